//! `Client`: turns on one connection, response boundaries, control calls,
//! and the session ending with nothing left running.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::protocol::Message;
use claude_agent::{Error, client::Client};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::json;

async fn collect(client: &Client) -> Vec<Message> {
    let mut out = Vec::new();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next())
        .await
        .expect("turn hung")
    {
        out.push(m.unwrap());
    }
    out
}

fn kinds(messages: &[Message]) -> Vec<String> {
    messages.iter().map(Message::kind).collect()
}

#[tokio::test]
async fn two_turns_share_one_connection_and_trailing_frames_are_kept() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("one"))
            .emit(result("success", "one"))
            .emit(state("idle"))
            .expect("user", None)
            .emit(assistant("two"))
            .emit(result("success", "two")),
    );
    let client = fake.builder().connect().await.unwrap();
    let pid = client.pid().unwrap();

    client.send("first").await.unwrap();
    let first = collect(&client).await;
    assert_eq!(kinds(&first), ["assistant", "result/success"]);

    client.send("second").await.unwrap();
    let second = collect(&client).await;
    assert_eq!(
        kinds(&second),
        [
            "system/session_state_changed",
            "assistant",
            "result/success"
        ],
        "the frame after the first result waits for the next turn"
    );

    let sent: Vec<_> = fake
        .received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect();
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[0]["message"]["content"], "first");
    assert_eq!(sent[1]["message"]["content"], "second");
    assert_eq!(sent[1]["parent_tool_use_id"], json!(null));

    let report = client.shutdown().await;
    assert_eq!(format!("{:?}", report.escalation), "None");
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn interrupt_gets_its_reply_and_the_turn_ends_with_an_error_result() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("working"))
            .expect_control("interrupt", json!({"still_queued": ["q-1"]}))
            .emit(result("error_during_execution", "")),
    );
    let client = fake.builder().connect().await.unwrap();
    client.send("long task").await.unwrap();
    let mut turn = client.receive_response();
    let first = turn.next().await.unwrap().unwrap();
    assert_eq!(first.kind(), "assistant");
    let reply = client.interrupt().await.unwrap();
    assert_eq!(reply.still_queued.as_deref(), Some(&["q-1".to_owned()][..]));
    let last = turn.next().await.unwrap().unwrap();
    assert_eq!(last.kind(), "result/error_during_execution");
    assert!(turn.next().await.is_none());
    drop(turn);
    client.shutdown().await;
}

#[tokio::test]
async fn control_calls_send_the_documented_requests() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("set_permission_mode", json!({"mode": "acceptEdits"}))
            .expect_control("set_model", json!({"model": "claude-sonnet-4-5"}))
            .expect_control("mcp_status", json!({"mcpServers": []}))
            .expect_control("mcp_toggle", json!({}))
            .expect_control("mcp_reconnect", json!({}))
            .expect_control("stop_task", json!({}))
            .expect_control("rewind_files", json!({}))
            .expect_control("get_context_usage", json!({"totalTokens": 7})),
    );
    let client = fake.builder().connect().await.unwrap();
    use claude_agent::options::PermissionMode;
    client
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await
        .unwrap();
    client.set_model(Some("claude-sonnet-4-5")).await.unwrap();
    assert!(client.mcp_status().await.unwrap().is_empty());
    client.mcp_toggle("calc", false).await.unwrap();
    client.mcp_reconnect("calc").await.unwrap();
    client.stop_task("task-9").await.unwrap();
    client.rewind_files("uuid-1").await.unwrap();
    assert_eq!(
        client.get_context_usage().await.unwrap().total_tokens,
        Some(7)
    );

    let requests: Vec<_> = fake
        .received()
        .into_iter()
        .filter(|l| l["type"] == "control_request")
        .map(|l| l["request"].clone())
        .collect();
    assert_eq!(
        requests[1],
        json!({"subtype": "set_permission_mode", "mode": "acceptEdits"})
    );
    assert_eq!(
        requests[2],
        json!({"subtype": "set_model", "model": "claude-sonnet-4-5"})
    );
    assert_eq!(
        requests[4],
        json!({"subtype": "mcp_toggle", "serverName": "calc", "enabled": false})
    );
    assert_eq!(
        requests[5],
        json!({"subtype": "mcp_reconnect", "serverName": "calc"})
    );
    assert_eq!(
        requests[6],
        json!({"subtype": "stop_task", "task_id": "task-9"})
    );
    assert_eq!(
        requests[7],
        json!({"subtype": "rewind_files", "user_message_id": "uuid-1"})
    );
    let ids: std::collections::HashSet<_> = fake
        .received()
        .iter()
        .filter_map(|l| l["request_id"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(ids.len(), 9, "every request id is unique");
    client.shutdown().await;
}

#[tokio::test]
async fn server_info_is_the_typed_initialize_reply() {
    let fake = fake(Script::new().expect_initialize_reply(json!({
        "commands": [], "agents": [], "models": [], "pid": 4242,
        "claude_code_version": "2.1.332", "current_permission_mode": "default",
        "output_style": "default", "future_field": {"kept": true}
    })));
    let client = fake.builder().connect().await.unwrap();
    let info = client.server_info().unwrap();
    assert_eq!(info.claude_code_version.as_deref(), Some("2.1.332"));
    assert_eq!(client.server_info_raw()["future_field"]["kept"], true);
    client.shutdown().await;
}

#[tokio::test]
async fn a_crash_mid_turn_delivers_what_came_before_then_a_typed_error() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("partial answer"))
            .stderr("fatal: out of cheese")
            .crash("SEGV"),
    );
    let client = fake.builder().connect().await.unwrap();
    let pid = client.pid().unwrap();
    client.send("go").await.unwrap();
    let mut turn = client.receive_response();
    assert_eq!(turn.next().await.unwrap().unwrap().kind(), "assistant");
    let err = turn.next().await.unwrap().unwrap_err();
    assert!(err.is_closed(), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("SIGSEGV") || text.contains("signal 11"),
        "{text}"
    );
    assert!(text.contains("out of cheese"), "{text}");
    assert!(turn.next().await.is_none());
    drop(turn);
    let control = client.interrupt().await.unwrap_err();
    assert!(matches!(control, Error::Control(_)), "{control}");
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn dropping_every_clone_without_shutdown_leaves_nothing_running() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let client = fake.builder().connect().await.unwrap();
    let pid = client.pid().unwrap();
    let clone = client.clone();
    let task = tokio::spawn(async move { clone.send("from another task").await });
    task.await.unwrap().unwrap();
    drop(client);
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn sends_after_shutdown_fail_with_a_typed_error() {
    let fake = fake(Script::new().expect_initialize());
    let client = fake.builder().connect().await.unwrap();
    client.shutdown().await;
    let err = client.send("late").await.unwrap_err();
    assert!(err.is_shutting_down(), "{err}");
}
