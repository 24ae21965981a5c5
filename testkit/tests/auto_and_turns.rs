//! `auto` rules, `turn`, `loop_turns`, and the default script.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::Script;
use common::{Running, control_request, user};
use serde_json::{Value, json};

fn assert_turn(run: &Running, text: &str) -> Value {
    let init = run.json();
    assert_eq!(
        (init["type"].as_str(), init["subtype"].as_str()),
        (Some("system"), Some("init"))
    );
    let assistant = run.json();
    assert_eq!(assistant["type"], "assistant");
    assert_eq!(
        assistant["message"]["content"][0],
        json!({"type": "text", "text": text})
    );
    let result = run.json();
    assert_eq!(result["type"], "result");
    assert_eq!(result["subtype"], "success");
    assert_eq!(result["is_error"], false);
    assert_eq!(result["num_turns"], 1);
    assert_eq!(result["result"], text);
    assert_eq!(result["total_cost_usd"], 0.0);
    assert!(result["duration_ms"].is_u64());
    assert!(result["usage"].is_object());
    assert_eq!(result["session_id"], init["session_id"]);
    result
}

#[test]
fn auto_rules_answer_in_any_later_reading_step() {
    let script = Script::new()
        .auto_reply("interrupt", json!({"still_queued": []}))
        .step(json!({"op": "auto", "rules": [{"subtype": "set_model", "reply_error": "nope"}]}))
        .expect_initialize()
        .turn("one");
    let mut run = Running::start(&script);
    // Answered while `expect initialize` is reading...
    run.send(control_request("i1", "interrupt"));
    let r = run.json();
    assert_eq!(r["response"]["request_id"], "i1");
    assert_eq!(r["response"]["response"], json!({"still_queued": []}));
    run.send(control_request("init", "initialize"));
    assert_eq!(run.json()["response"]["request_id"], "init");
    // ...while `turn` waits for a user message...
    run.send(control_request("m1", "set_model"));
    let r = run.json();
    assert_eq!(r["response"]["subtype"], "error");
    assert_eq!(r["response"]["error"], "nope");
    run.send(user("go"));
    assert_turn(&run, "one");
    // ...and in the final wait for EOF.
    run.send(control_request("i2", "interrupt"));
    assert_eq!(run.json()["response"]["request_id"], "i2");
    run.close_stdin();
    assert!(run.wait().success());
}

#[test]
fn expect_takes_precedence_over_an_auto_rule() {
    let script = Script::new()
        .auto_reply("interrupt", json!({"auto": true}))
        .expect_control("interrupt", json!({"expected": true}));
    let mut run = Running::start(&script);
    run.send(control_request("x", "interrupt"));
    assert_eq!(
        run.json()["response"]["response"],
        json!({"expected": true})
    );
    run.send(control_request("y", "interrupt"));
    assert_eq!(run.json()["response"]["response"], json!({"auto": true}));
}

#[test]
fn turn_uses_the_given_session_id() {
    let script = Script::new().step(json!({"op": "turn", "text": "t", "session_id": "sess-1"}));
    let mut run = Running::start(&script);
    run.send(user("q"));
    assert_eq!(assert_turn(&run, "t")["session_id"], "sess-1");
}

#[test]
fn loop_turns_answers_every_user_message_until_eof() {
    let mut run = Running::start(&Script::new().loop_turns("again").exit(9));
    for i in 0..5 {
        run.send(user(&format!("q{i}")));
        assert_turn(&run, "again");
    }
    run.close_stdin();
    // EOF ends the loop with status 0; the `exit 9` after it never runs.
    assert_eq!(run.wait().code(), Some(0));
    assert_eq!(run.fake.recorded_lines().len(), 5);
}

#[test]
fn default_script_initializes_answers_interrupts_and_turns() {
    let mut run = Running::start_with(&Script::new(), &[], |cmd| {
        cmd.env_remove("FAKE_CLAUDE_SCRIPT");
    });
    run.send(control_request("int0", "interrupt"));
    assert_eq!(
        run.json()["response"]["response"],
        json!({"still_queued": []})
    );
    run.send(control_request("init", "initialize"));
    let r = run.json();
    assert_eq!(r["response"]["request_id"], "init");
    assert_eq!(r["response"]["response"]["claude_code_version"], "2.1.332");
    for _ in 0..2 {
        run.send(user("hi"));
        assert_turn(&run, "Hello from the fake CLI.");
    }
    run.close_stdin();
    assert!(run.wait().success());
}
