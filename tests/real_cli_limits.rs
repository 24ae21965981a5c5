//! Turn limits and API failures as the real CLI reports them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::protocol::{Message, ResultSubtype, SystemMessage, TerminalReason};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, kinds, shutdown, turn};
use serde_json::json;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn max_turns_one_with_a_tool_call_ends_in_error_max_turns() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": "echo hi", "description": "echo"}),
        ))
        .reply(Reply::text("never reached"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig
        .connect(rig.options().max_turns(1).allowed_tools(["Bash"]))
        .await;
    client.send("echo hi").await.unwrap();
    let (messages, result) = turn(&client).await;
    assert_eq!(
        result.subtype,
        ResultSubtype::ErrorMaxTurns,
        "{result:?} {:?}",
        kinds(&messages)
    );
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.terminal_reason, Some(TerminalReason::MaxTurns));
    assert_eq!(rig.server.main_requests().len(), 1, "no second model call");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn api_500_is_retried_then_the_turn_fails_with_api_error() {
    let script = ModelScript::new().fallback(Reply::error(500));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("hello").await.unwrap();
    let (messages, result) = turn(&client).await;
    let retries = messages
        .iter()
        .filter(|m| matches!(m, Message::System(SystemMessage::ApiRetry(_))))
        .count();
    // CLAUDE_CODE_MAX_RETRIES=2: the first call and two retries.
    assert_eq!(retries, 2, "{:?}", kinds(&messages));
    assert_eq!(rig.server.main_requests().len(), 3);
    assert_eq!(
        result.terminal_reason,
        Some(TerminalReason::ApiError),
        "{result:?}"
    );
    assert_eq!(result.is_error, Some(true), "{result:?}");
    // 2.1.332 reports the failed turn as subtype `success` with
    // `is_error: true`; the error text is the result.
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert!(
        result.result.as_deref().unwrap_or("").contains("500"),
        "{result:?}"
    );
    shutdown(&client).await;
}
