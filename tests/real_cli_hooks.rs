//! A `PreToolUse` hook deciding real tool calls of the real CLI: deny keeps
//! the command from running, allow runs it without a permission prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::{Arc, Mutex};

use claude_agent::callbacks::{
    CallbackError, HookContext, HookEventKind, HookMatcher, pre_tool_use_decision,
};
use claude_agent::protocol::{HookEvent, HookInput, HookOutput, PermissionDecision};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::json;

/// Runs one turn whose model touches `file`, with a Bash `PreToolUse` hook
/// answering `decision`; returns the commands the hook saw.
async fn run(file: &str, decision: PermissionDecision) -> Option<(Rig, Vec<String>)> {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": format!("touch {file}"), "description": "touch"}),
        ))
        .reply(Reply::text("Finished."));
    let rig = Rig::start(script).await?;
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let hook = move |input: HookInput, _id: Option<String>, _ctx: HookContext| {
        if let HookEvent::PreToolUse(t) = &input.event {
            let cmd = t.tool_input.as_ref().map(|i| i["command"].to_string());
            log.lock().unwrap().push(cmd.unwrap_or_default());
        }
        let out: HookOutput = pre_tool_use_decision(decision.clone(), "policy says so");
        async move { Ok::<_, CallbackError>(out) }
    };
    let client = rig
        .builder(rig.options())
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(hook),
        )
        .connect()
        .await
        .unwrap();
    client.send("touch a file").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.result.as_deref(), Some("Finished."), "{result:?}");
    shutdown(&client).await;
    let seen = seen.lock().unwrap().clone();
    Some((rig, seen))
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_pre_tool_use_deny_keeps_the_command_from_running() {
    let Some((rig, seen)) = run("hook-denied.txt", PermissionDecision::Deny).await else {
        return;
    };
    assert_eq!(seen, ["\"touch hook-denied.txt\""]);
    assert!(!rig.cwd_has("hook-denied.txt"));
    let results = rig.server.main_requests()[1].tool_results();
    assert!(results[0].is_error, "{results:?}");
    assert!(results[0].text().contains("policy says so"), "{results:?}");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_pre_tool_use_allow_runs_the_command() {
    let Some((rig, seen)) = run("hook-allowed.txt", PermissionDecision::Allow).await else {
        return;
    };
    assert_eq!(seen, ["\"touch hook-allowed.txt\""]);
    assert!(rig.cwd_has("hook-allowed.txt"));
    let results = rig.server.main_requests()[1].tool_results();
    assert!(!results[0].is_error, "{results:?}");
}
