//! `query()`: one-shot runs as a stream, and every way they can end.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::protocol::{Message, UserMessage};
use claude_agent::{client::ClientBuilder, client::QueryPrompt, client::query, options::Options};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;

async fn all(
    mut q: claude_agent::client::Query,
) -> (
    Vec<claude_agent::Result<Message>>,
    claude_agent::client::Query,
) {
    let mut items = Vec::new();
    while let Some(item) = tokio::time::timeout(SOON, q.next())
        .await
        .expect("query hung")
    {
        items.push(item);
    }
    (items, q)
}

#[tokio::test]
async fn a_query_streams_until_the_run_ends_and_keeps_trailing_frames() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("hi there"))
            .emit(result("success", "hi there"))
            .emit(state("idle")),
    );
    let (items, q) = all(fake.builder().query("hello")).await;
    let kinds: Vec<String> = items.into_iter().map(|m| m.unwrap().kind()).collect();
    assert_eq!(
        kinds,
        [
            "assistant",
            "result/success",
            "system/session_state_changed"
        ]
    );
    let report = q.shutdown_report().expect("report after the end");
    assert_eq!(format!("{:?}", report.escalation), "None");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)));
}

#[tokio::test]
async fn a_stream_prompt_sends_every_message_and_waits_for_the_last_result() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "one"))
            .expect("user", None)
            .emit(result("success", "two")),
    );
    let prompts =
        futures::stream::iter([UserMessage::prompt("first"), UserMessage::prompt("second")]);
    let (items, _) = all(fake.builder().query_stream(QueryPrompt::Stream(prompts))).await;
    let kinds: Vec<String> = items.into_iter().map(|m| m.unwrap().kind()).collect();
    assert_eq!(kinds, ["result/success", "result/success"]);
    let sent: Vec<_> = fake
        .received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect();
    assert_eq!(sent.len(), 2);
}

#[tokio::test]
async fn a_cli_that_exits_before_the_result_is_a_typed_error_with_its_stderr() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("half"))
            .stderr("quota exhausted")
            .exit(3),
    );
    let (items, q) = all(fake.builder().query("go")).await;
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap().kind(), "assistant");
    let err = items[1].as_ref().unwrap_err();
    assert!(err.is_closed(), "{err}");
    assert!(format!("{err:?}").contains("exit code 3"), "{err}");
    assert!(format!("{err:?}").contains("quota exhausted"), "{err}");
    assert!(q.shutdown_report().is_some());
}

#[tokio::test]
async fn a_missing_cli_is_a_typed_error_before_anything_starts() {
    let options = Options::new().cli_path("/nonexistent/claude");
    let (items, _) = all(query("hi", options)).await;
    assert_eq!(items.len(), 1);
    let err = items[0].as_ref().unwrap_err();
    assert!(err.is_cli_not_found(), "{err}");
}

#[tokio::test]
async fn exiting_before_initialize_is_a_typed_start_error() {
    let fake = fake(Script::new().stderr("bad flag --frobnicate").exit(1));
    let (items, _) = all(fake.builder().query("hi")).await;
    let err = items[0].as_ref().unwrap_err();
    assert!(err.is_closed(), "{err}");
    assert!(format!("{err:?}").contains("bad flag"), "{err}");
}

#[tokio::test]
async fn dropping_a_query_mid_turn_leaves_nothing_running() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("working"))
            .hang(),
    );
    let mut q = ClientBuilder::new(fake.options())
        .grace(std::time::Duration::from_millis(200))
        .term_grace(std::time::Duration::from_millis(200))
        .query("go");
    let first = q.next().await.unwrap().unwrap();
    assert_eq!(first.kind(), "assistant");
    let pid = fake.cli.pid().unwrap();
    drop(q);
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn a_prompt_stream_that_ends_after_the_last_result_still_ends_the_run() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "one")),
    );
    let (end_tx, end_rx) = tokio::sync::oneshot::channel::<()>();
    let prompts = futures::stream::unfold((0, Some(end_rx)), |(n, rx)| async move {
        if n == 0 {
            return Some((UserMessage::prompt("first"), (1, rx)));
        }
        // The host decides it is done only after it saw the result.
        let _ = rx?.await;
        None
    });
    let mut q = fake.builder().query_stream(QueryPrompt::Stream(prompts));
    let first = tokio::time::timeout(SOON, q.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(first.kind(), "result/success");
    end_tx.send(()).unwrap();
    let end = tokio::time::timeout(SOON, q.next())
        .await
        .expect("query hung");
    assert!(end.is_none());
    assert!(q.shutdown_report().is_some());
}

#[tokio::test]
async fn stdin_stays_open_for_the_callbacks_of_a_queued_second_turn() {
    use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
    use claude_agent::protocol::PermissionRequest;
    use serde_json::json;
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .expect("user", None)
            .emit(result("success", "one"))
            .emit(cli_request(
                "p1",
                json!({"subtype": "can_use_tool", "tool_name": "Read",
                       "input": {"file_path": "/tmp/x"}, "tool_use_id": "toolu_p1"}),
            ))
            .step(expect_reply("p1"))
            .emit(result("success", "two")),
    );
    let prompts =
        futures::stream::iter([UserMessage::prompt("first"), UserMessage::prompt("second")]);
    let (items, _) = all(fake
        .builder()
        .can_use_tool(|_r: PermissionRequest, _c: PermissionContext| async move {
            Ok::<_, CallbackError>(allow())
        })
        .query_stream(QueryPrompt::Stream(prompts)))
    .await;
    assert_eq!(items.len(), 2);
    let reply = fake
        .reply_to("p1")
        .expect("the second turn's callback was answered");
    assert_eq!(reply["response"]["subtype"], "success", "{reply}");
}

#[tokio::test]
async fn a_result_that_fails_to_parse_still_ends_the_run() {
    let mut bad = result("success", "done");
    bad["duration_ms"] = serde_json::json!("fast");
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(bad),
    );
    let (items, q) = all(fake.builder().query("hi")).await;
    assert_eq!(items.len(), 1);
    assert!(matches!(items[0], Err(claude_agent::Error::Parse(_))));
    assert!(q.shutdown_report().is_some());
}
