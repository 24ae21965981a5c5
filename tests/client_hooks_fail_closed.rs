//! Fail-closed hooks through `connect()` against the fake CLI (a real
//! subprocess): `onFailure` reaches `initialize`, a callback that errors,
//! panics or outlives its timeout is answered with an error reply (which
//! a CLI honoring `onFailure: block` turns into a block), and a session
//! whose CLI does not confirm the option is refused before any prompt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod callback_replies;
mod common;

use std::time::Duration;

use callback_replies::{answer, ask, finish_turn};
use claude_agent::Error;
use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher, OnFailure};
use claude_agent::options::CapabilityError;
use claude_agent::protocol::{HookInput, HookOutput};
use claude_agent::runtime::live_sessions;
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

/// An `initialize` reply from a CLI that honors `onFailure`.
fn supported() -> Value {
    json!({"commands": [], "hooks_applied": true, "hook_on_failure_supported": true})
}

fn pre_tool_use(id: &str, callback_id: &str) -> Value {
    let input = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "touch x"}, "tool_use_id": "toolu_1"});
    cli_request(
        id,
        json!({"subtype": "hook_callback", "callback_id": callback_id, "input": input,
               "tool_use_id": "toolu_1"}),
    )
}

fn erroring(
    _: HookInput,
    _: Option<String>,
    _: HookContext,
) -> futures::future::Ready<Result<HookOutput, CallbackError>> {
    futures::future::ready(Err(CallbackError::new("policy store unreachable")))
}

async fn panics_inside() -> Result<HookOutput, CallbackError> {
    panic!("guard bug")
}

#[tokio::test]
async fn a_blocking_hook_that_errors_panics_or_hangs_gets_an_error_reply() {
    let fake = fake(ask(
        Script::new().expect_initialize_reply(supported()),
        &[
            pre_tool_use("h-err", "hook_0"),
            pre_tool_use("h-panic", "hook_1"),
            pre_tool_use("h-hang", "hook_2"),
            pre_tool_use("h-panic-early", "hook_3"),
        ],
    ));
    let panicking = |_: HookInput, _: Option<String>, _: HookContext| panics_inside();
    // Panics in the call itself, before there is a future to poll.
    let panicking_early = |_: HookInput,
                           _: Option<String>,
                           _: HookContext|
     -> futures::future::Ready<Result<HookOutput, CallbackError>> {
        panic!("guard bug before the future")
    };
    // Never answers: only the matcher's timeout ends it.
    let hanging = |_: HookInput, _: Option<String>, _: HookContext| {
        futures::future::pending::<Result<HookOutput, CallbackError>>()
    };
    let client = fake
        .builder()
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(erroring).fail_closed(),
        )
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash")
                .hook(panicking)
                .on_failure(OnFailure::Block),
        )
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash")
                .hook(hanging)
                .timeout(Duration::from_millis(200))
                .fail_closed(),
        )
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash")
                .hook(panicking_early)
                .fail_closed(),
        )
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.shutdown().await;

    let init = &fake.received()[0];
    assert_eq!(
        init["request"]["hooks"],
        json!({"PreToolUse": [
            {"matcher": "Bash", "hookCallbackIds": ["hook_0"], "onFailure": "block"},
            {"matcher": "Bash", "hookCallbackIds": ["hook_1"], "onFailure": "block"},
            {"matcher": "Bash", "hookCallbackIds": ["hook_2"], "timeout": 1, "onFailure": "block"},
            {"matcher": "Bash", "hookCallbackIds": ["hook_3"], "onFailure": "block"},
        ]})
    );
    assert_eq!(
        answer(&fake, "h-err").unwrap_err(),
        "hook callback hook_0 failed: policy store unreachable \
         (on_failure is block: the action is blocked)"
    );
    assert_eq!(
        answer(&fake, "h-panic").unwrap_err(),
        "hook callback hook_1 panicked: guard bug (on_failure is block: the action is blocked)"
    );
    assert_eq!(
        answer(&fake, "h-hang").unwrap_err(),
        "hook callback hook_2 did not answer within 200 ms \
         (on_failure is block: the action is blocked)"
    );
    assert_eq!(
        answer(&fake, "h-panic-early").unwrap_err(),
        "hook callback hook_3 panicked: guard bug before the future \
         (on_failure is block: the action is blocked)"
    );
}

/// Connects with one fail-closed hook to a CLI answering `initialize` with
/// `reply`; returns the error and what the fake CLI read.
async fn refused(reply: Value, label: &str) -> (Error, Vec<Value>) {
    let fake = fake(
        Script::new()
            .expect_initialize_reply(reply)
            .loop_turns("hi"),
    );
    let err = fake
        .builder()
        .label(label)
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::any().hook(erroring).fail_closed(),
        )
        .connect()
        .await
        .unwrap_err();
    assert!(
        live_sessions()
            .iter()
            .all(|s| s.label.as_deref() != Some(label)),
        "the refused session is still alive"
    );
    (err, fake.received())
}

#[tokio::test]
async fn a_cli_that_does_not_confirm_on_failure_is_refused_before_any_prompt() {
    let old_cli = json!({"commands": [], "hooks_applied": true});
    let (err, received) = refused(old_cli, "fail-closed-old-cli").await;
    assert!(
        matches!(
            err,
            Error::Capability(CapabilityError::HookOnFailureUnsupported)
        ),
        "{err}"
    );
    assert!(
        format!("{err:?}").contains("does not honor onFailure"),
        "{err:?}"
    );
    assert_eq!(received.len(), 1, "only initialize was sent: {received:?}");
}

#[tokio::test]
async fn a_session_that_did_not_register_the_hooks_is_refused() {
    let not_applied =
        json!({"commands": [], "hooks_applied": false, "hook_on_failure_supported": true});
    let (err, received) = refused(not_applied, "fail-closed-not-applied").await;
    assert!(
        matches!(err, Error::Capability(CapabilityError::HooksNotApplied)),
        "{err}"
    );
    assert_eq!(received.len(), 1, "only initialize was sent: {received:?}");
}

#[tokio::test]
async fn fail_open_hooks_need_no_confirmation_and_send_no_on_failure() {
    let fake = fake(ask(
        Script::new().expect_initialize_reply(json!({"commands": []})),
        &[pre_tool_use("h-open", "hook_0")],
    ));
    let client = fake
        .builder()
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(erroring),
        )
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.shutdown().await;
    assert_eq!(
        fake.received()[0]["request"]["hooks"],
        json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]})
    );
    assert_eq!(
        answer(&fake, "h-open").unwrap_err(),
        "hook callback hook_0 failed: policy store unreachable"
    );
}
