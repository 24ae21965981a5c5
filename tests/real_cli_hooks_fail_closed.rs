//! `on_failure` against the real CLI: a `PreToolUse` hook set to block
//! whose callback panics keeps an allowed Bash command from running, and
//! the same hook left to fail open lets it run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher, OnFailure};
use claude_agent::protocol::{HookInput, HookOutput};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::json;

async fn panics_inside() -> Result<HookOutput, CallbackError> {
    panic!("the guard has a bug")
}

/// One turn whose model runs `touch <file>` through Bash (allowed by the
/// options, so only the hook can stop it), with a panicking `PreToolUse`
/// hook under `policy`. Returns the rig and the first tool result's
/// (is_error, text).
async fn run(file: &str, policy: OnFailure) -> Option<(Rig, bool, String)> {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": format!("touch {file}"), "description": "touch"}),
        ))
        .reply(Reply::text("Finished."));
    let rig = Rig::start(script).await?;
    let guard = |_: HookInput, _: Option<String>, _: HookContext| panics_inside();
    let client = rig
        .builder(rig.options().allowed_tools(["Bash"]))
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(guard).on_failure(policy),
        )
        .connect()
        .await
        .unwrap();
    let info = client.server_info().unwrap();
    assert_eq!(info.hook_on_failure_supported, Some(true), "{info:?}");
    client.send("touch a file").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.result.as_deref(), Some("Finished."), "{result:?}");
    shutdown(&client).await;
    let results = rig.server.main_requests()[1].tool_results();
    let (is_error, text) = (results[0].is_error, results[0].text());
    Some((rig, is_error, text))
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_blocking_pre_tool_use_hook_that_panics_keeps_the_command_from_running() {
    let Some((rig, is_error, text)) = run("blocked.txt", OnFailure::Block).await else {
        return;
    };
    assert!(!rig.cwd_has("blocked.txt"), "the command ran");
    assert!(is_error, "{text}");
    assert!(text.contains("onFailure is \"block\""), "{text}");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_same_hook_failing_open_lets_the_command_run() {
    let Some((rig, is_error, text)) = run("ran.txt", OnFailure::Continue).await else {
        return;
    };
    assert!(rig.cwd_has("ran.txt"), "the command did not run: {text}");
    assert!(!is_error, "{text}");
}
