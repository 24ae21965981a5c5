//! Permission callbacks end to end through `Client::builder(..).connect()`:
//! each decision's wire form, and a callback that panics, hangs or is
//! cancelled. The fake CLI (a real subprocess) asks; the tests read what
//! the SDK answered from the fake's record of its stdin.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod callback_replies;
mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use callback_replies::{answer, ask, finish_turn};
use claude_agent::callbacks::{
    CallbackError, PermissionContext, allow, allow_and_update, allow_with_input, deny,
    deny_and_interrupt,
};
use claude_agent::protocol::{
    PermissionBehavior, PermissionRequest, PermissionRule, PermissionUpdate,
    PermissionUpdateDestination, RulesUpdate,
};
use claude_agent::runtime::CancellationToken;
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn can_use_tool(id: &str, tool: &str, input: Value) -> Value {
    cli_request(
        id,
        json!({"subtype": "can_use_tool", "tool_name": tool, "input": input,
               "tool_use_id": format!("toolu_{id}")}),
    )
}

#[tokio::test]
async fn permission_decisions_reach_the_cli_in_its_spelling() {
    let read = json!({"file_path": "/tmp/x"});
    let edit = json!({"file_path": "src/lib.rs", "old_string": "a", "new_string": "b"});
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[
            can_use_tool("p1", "Read", read.clone()),
            can_use_tool("p2", "Write", json!({"file_path": "/etc/passwd"})),
            can_use_tool("p3", "WebFetch", json!({"url": "http://x"})),
            can_use_tool("p4", "Bash", json!({"command": "ls"})),
            can_use_tool("p5", "Edit", edit.clone()),
        ],
    ));
    let client = fake
        .builder()
        .can_use_tool(
            |req: PermissionRequest, _ctx: PermissionContext| async move {
                let input = req.input.unwrap_or_default();
                Ok::<_, CallbackError>(match req.tool_name.as_deref().unwrap_or_default() {
                    "Read" => allow(),
                    "Write" => deny("no writes"),
                    "WebFetch" => deny_and_interrupt("no network"),
                    "Bash" => allow_with_input(
                        json!({"command": format!("{} -la", input["command"].as_str().unwrap())}),
                    ),
                    _ => {
                        let mut rule = PermissionRule::default();
                        rule.tool_name = Some("Edit".into());
                        rule.rule_content = Some("src/**".into());
                        let mut update = RulesUpdate::default();
                        update.rules = Some(vec![rule]);
                        update.behavior = Some(PermissionBehavior::Allow);
                        update.destination = Some(PermissionUpdateDestination::Session);
                        allow_and_update(vec![PermissionUpdate::AddRules(update)])
                    }
                })
            },
        )
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    finish_turn(&client).await;
    client.shutdown().await;
    fake.assert_gone(pid).await;

    let argv = fake.cli.recorded_argv().unwrap();
    let at = argv
        .iter()
        .position(|a| a == "--permission-prompt-tool")
        .unwrap();
    assert_eq!(argv[at + 1], "stdio");
    // Every reply names its tool call, as the TypeScript SDK's do.
    assert_eq!(
        answer(&fake, "p1").unwrap(),
        json!({"behavior": "allow", "updatedInput": read, "toolUseID": "toolu_p1"}),
        "an unchanged allow sends the original input back"
    );
    assert_eq!(
        answer(&fake, "p2").unwrap(),
        json!({"behavior": "deny", "message": "no writes", "toolUseID": "toolu_p2"})
    );
    assert_eq!(
        answer(&fake, "p3").unwrap(),
        json!({"behavior": "deny", "message": "no network", "interrupt": true,
               "toolUseID": "toolu_p3"})
    );
    assert_eq!(
        answer(&fake, "p4").unwrap(),
        json!({"behavior": "allow", "updatedInput": {"command": "ls -la"}, "toolUseID": "toolu_p4"})
    );
    assert_eq!(
        answer(&fake, "p5").unwrap(),
        json!({"behavior": "allow", "updatedInput": edit, "toolUseID": "toolu_p5", "updatedPermissions": [{
            "type": "addRules", "rules": [{"toolName": "Edit", "ruleContent": "src/**"}],
            "behavior": "allow", "destination": "session"}]})
    );
}

#[tokio::test]
async fn a_panicking_callback_gets_an_error_reply_and_the_session_goes_on() {
    let script = ask(
        Script::new().expect_initialize(),
        &[can_use_tool("p1", "Boom", json!({}))],
    )
    .expect("user", None);
    let fake = fake(ask(
        script,
        &[can_use_tool("p2", "Read", json!({"file_path": "a"}))],
    ));
    let client = fake
        .builder()
        .can_use_tool(
            |req: PermissionRequest, _ctx: PermissionContext| async move {
                if req.tool_name.as_deref() == Some("Boom") {
                    panic!("policy exploded");
                }
                Ok::<_, CallbackError>(allow())
            },
        )
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.send("next turn").await.unwrap();
    finish_turn(&client).await;
    let report = client.shutdown().await;

    let error = answer(&fake, "p1").unwrap_err();
    assert!(
        error.contains("panicked") && error.contains("policy exploded"),
        "{error}"
    );
    assert_eq!(answer(&fake, "p2").unwrap()["behavior"], "allow");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)), "{report:?}");
}

#[tokio::test]
async fn a_hanging_callback_gets_a_timeout_error_reply() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[can_use_tool("p1", "Read", json!({}))],
    ));
    let client = fake
        .builder()
        .callback_timeout(Duration::from_millis(200))
        .can_use_tool(|_req: PermissionRequest, _ctx: PermissionContext| {
            std::future::pending::<Result<_, CallbackError>>()
        })
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.shutdown().await;
    let error = answer(&fake, "p1").unwrap_err();
    assert!(error.contains("timed out after 200ms"), "{error}");
}

#[tokio::test]
async fn a_cancelled_callback_sends_no_reply_even_when_it_finishes() {
    let cancel = json!({"type": "control_cancel_request", "request_id": "c1"});
    let fake = fake(
        Script::new()
            .expect_initialize()
            .emit(can_use_tool("c1", "Slow", json!({})))
            .emit(cancel)
            .emit(can_use_tool("c2", "Fast", json!({})))
            .step(expect_reply("c2"))
            .emit(result("success", "done")),
    );
    // The slow request's token, kept so the later request can check that
    // the cancel reached it before that request was dispatched.
    let slow: Arc<Mutex<Option<CancellationToken>>> = Arc::default();
    let seen = slow.clone();
    let client = fake
        .builder()
        .can_use_tool(move |req: PermissionRequest, ctx: PermissionContext| {
            let slow_token = seen.lock().unwrap().clone();
            if req.tool_name.as_deref() == Some("Slow") {
                *seen.lock().unwrap() = Some(ctx.cancel.clone());
            }
            async move {
                if req.tool_name.as_deref() == Some("Slow") {
                    // Answers as soon as it is cancelled: the runtime must
                    // still discard the answer.
                    ctx.cancel.cancelled().await;
                    return Ok::<_, CallbackError>(allow());
                }
                Ok(match slow_token {
                    Some(t) if t.is_cancelled() => allow(),
                    _ => deny("the slow request was not cancelled first"),
                })
            }
        })
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    assert_eq!(answer(&fake, "c2").unwrap()["behavior"], "allow");
    assert!(
        fake.reply_to("c1").is_none(),
        "cancelled request was answered"
    );
    client.shutdown().await;
    // The fake reads stdin to EOF at the end: nothing came later either.
    assert!(
        fake.reply_to("c1").is_none(),
        "cancelled request was answered late"
    );
    assert!(slow.lock().unwrap().is_some());
}
