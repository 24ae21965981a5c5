//! `permission_rtt`: one `can_use_tool` request at a time, each timed from
//! write to the matching reply, written to a file at the end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::{EXIT_TIMEOUT, Script};
use common::{Running, wait_for_file};
use serde_json::{Value, json};

fn reply(id: &Value, subtype: &str) -> Value {
    json!({"type": "control_response", "response": {"subtype": subtype,
        "request_id": id, "response": {"behavior": "allow", "updatedInput": {}}}})
}

#[test]
fn times_each_round_trip_and_ignores_replies_to_other_ids() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtt.txt");
    let script = Script::new()
        .permission_rtt(3, "Bash", &out, 0)
        .emit(json!({"type": "marker"}));
    let mut run = Running::start(&script);
    let mut ids = Vec::new();
    for i in 0..3 {
        let req = run.json();
        assert_eq!(req["type"], "control_request");
        assert_eq!(req["request"]["subtype"], "can_use_tool");
        assert_eq!(req["request"]["tool_name"], "Bash");
        assert_eq!(req["request"]["tool_use_id"], format!("toolu_rtt_{i}"));
        let id = req["request_id"].clone();
        assert!(!ids.contains(&id), "request ids must be unique");
        // A reply to some other id does not complete this round trip.
        run.send(reply(&json!("someone-else"), "success"));
        // Not synchronisation: a delay the fake's clock must include.
        std::thread::sleep(std::time::Duration::from_millis(20));
        run.send(reply(&id, "success"));
        ids.push(id);
    }
    assert_eq!(run.json()["type"], "marker");
    assert!(wait_for_file(&out));
    let nanos: Vec<u64> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(nanos.len(), 3);
    // Each reply came only after the 20 ms pause.
    assert!(nanos.iter().all(|&n| n >= 20_000_000), "{nanos:?}");
    run.close_stdin();
    assert!(run.wait().success());
}

#[test]
fn no_reply_within_timeout_exits_4_with_partial_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rtt.txt");
    let script = Script::new().step(json!({"op": "permission_rtt", "count": 5,
        "out": out.to_string_lossy(), "timeout_ms": 200}));
    let mut run = Running::start(&script);
    let first = run.json();
    run.send(reply(&first["request_id"], "success"));
    let second = run.json();
    assert_eq!(second["request"]["tool_name"], "Bash");
    // No answer to the second: the fake gives up after 200 ms.
    assert_eq!(run.wait().code(), Some(EXIT_TIMEOUT));
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(run.stderr_after_exit().contains("no reply"));
}
