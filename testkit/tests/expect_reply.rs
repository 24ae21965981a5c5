//! `expect`: matching, replies carrying the matched request id, skipping,
//! timeouts and EOF.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::{EXIT_TIMEOUT, Script};
use common::{Running, control_request, user};
use serde_json::json;

#[test]
fn initialize_gets_default_server_info_with_its_request_id() {
    let mut run = Running::start(&Script::new().expect_initialize());
    run.send(control_request("req_1_abc", "initialize"));
    let reply = run.json();
    assert_eq!(reply["type"], "control_response");
    assert_eq!(reply["response"]["subtype"], "success");
    assert_eq!(reply["response"]["request_id"], "req_1_abc");
    let info = &reply["response"]["response"];
    assert_eq!(info["pid"], run.pid());
    assert_eq!(info["claude_code_version"], "2.1.332");
    assert_eq!(info["commands"], json!([]));
    run.close_stdin();
    assert!(run.wait().success());
}

#[test]
fn expect_control_replies_with_given_payload_and_skips_other_lines() {
    let script = Script::new()
        .expect_control("set_model", json!({"model": "m2"}))
        .emit(json!({"type": "marker"}));
    let mut run = Running::start(&script);
    run.send(user("not this"));
    run.send_raw("not json at all\n");
    run.send(control_request("other", "interrupt"));
    run.send(control_request("req_9", "set_model"));
    let reply = run.json();
    assert_eq!(reply["response"]["request_id"], "req_9");
    assert_eq!(reply["response"]["response"], json!({"model": "m2"}));
    assert_eq!(run.json()["type"], "marker");
    run.close_stdin();
    assert!(run.wait().success());
    // Every line, matched or skipped, is recorded verbatim and in order.
    let rec = run.fake.recorded_lines();
    assert_eq!(rec.len(), 4);
    assert_eq!(rec[0]["type"], "user");
    assert_eq!(rec[1], json!("not json at all"));
    assert_eq!(rec[3]["request_id"], "req_9");
    let stderr = run.stderr_after_exit();
    assert!(stderr.contains("skipped"), "{stderr}");
}

#[test]
fn reply_error_and_no_reply() {
    let script = Script::new()
        .step(
            json!({"op": "expect", "type": "control_request", "subtype": "initialize",
            "no_reply": true}),
        )
        .step(
            json!({"op": "expect", "type": "control_request", "subtype": "mcp_status",
            "reply_error": "no such server"}),
        )
        .emit(json!({"type": "after"}));
    let mut run = Running::start(&script);
    run.send(control_request("a", "initialize"));
    run.send(control_request("b", "mcp_status"));
    // No reply for "a": the first line out is the error for "b".
    let reply = run.json();
    assert_eq!(reply["response"]["subtype"], "error");
    assert_eq!(reply["response"]["request_id"], "b");
    assert_eq!(reply["response"]["error"], "no such server");
    assert_eq!(run.json()["type"], "after");
}

#[test]
fn matches_control_response_and_cancel_by_request_id() {
    let script = Script::new()
        .step(json!({"op": "expect", "type": "control_response", "request_id": "r2"}))
        .emit(json!({"type": "got_response"}))
        .step(json!({"op": "expect", "type": "control_cancel_request", "request_id": "c1"}))
        .emit(json!({"type": "got_cancel"}));
    let mut run = Running::start(&script);
    let resp = |id: &str| {
        json!({"type": "control_response",
        "response": {"subtype": "success", "request_id": id, "response": {}}})
    };
    run.send(resp("r1"));
    run.send(resp("r2"));
    assert_eq!(run.json()["type"], "got_response");
    run.send(json!({"type": "control_cancel_request", "request_id": "c0"}));
    run.send(json!({"type": "control_cancel_request", "request_id": "c1"}));
    assert_eq!(run.json()["type"], "got_cancel");
}

#[test]
fn timeout_exits_4_and_eof_exits_0() {
    let script = Script::new().step(json!({"op": "expect", "type": "user", "timeout_ms": 50}));
    let mut run = Running::start(&script);
    assert_eq!(run.wait().code(), Some(EXIT_TIMEOUT));
    assert!(run.stderr_after_exit().contains("timed out"));

    let mut run = Running::start(&Script::new().expect_initialize().exit(9));
    run.close_stdin();
    assert_eq!(run.wait().code(), Some(0));
    run.expect_stdout_eof();
}

#[test]
fn expect_eof_records_everything_until_eof() {
    let mut run = Running::start(&Script::new().expect_eof().exit(5));
    run.send(user("one"));
    run.send(user("two"));
    run.close_stdin();
    assert_eq!(run.wait().code(), Some(5));
    let rec = run.fake.recorded_lines();
    assert_eq!(rec.len(), 2);
    assert_eq!(rec[1]["message"]["content"], "two");
}
