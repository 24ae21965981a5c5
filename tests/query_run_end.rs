//! `query()` keeps stdin open past a result while background work may still
//! ask a callback, and ends the run when the CLI goes idle or the ceiling
//! passes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
use claude_agent::protocol::{Message, PermissionRequest};
use claude_agent::{client::ClientBuilder, client::Query};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::{Value, json};

/// A state frame as the CLI sends it to an SDK that asked for it.
fn host_state(state: &str) -> Value {
    json!({"type": "system", "subtype": "session_state_changed", "state": state,
        "sdk_host_only": true, "session_id": "s-1", "uuid": "u-s"})
}

fn task_started(id: &str) -> Value {
    json!({"type": "system", "subtype": "task_started", "task_id": id,
        "task_type": "local_agent", "description": "background agent",
        "session_id": "s-1", "uuid": "u-ts"})
}

fn task_done(id: &str) -> Value {
    json!({"type": "system", "subtype": "task_notification", "task_id": id,
        "status": "completed", "summary": "done", "session_id": "s-1", "uuid": "u-tn"})
}

fn permission(id: &str) -> Value {
    cli_request(
        id,
        json!({"subtype": "can_use_tool", "tool_name": "Bash",
               "input": {"command": "echo late"}, "tool_use_id": "toolu_late"}),
    )
}

/// `builder` with a permission callback that allows and counts.
fn counting(builder: ClientBuilder) -> (ClientBuilder, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let builder = builder.can_use_tool(move |_r: PermissionRequest, _c: PermissionContext| {
        seen.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, CallbackError>(allow()) }
    });
    (builder, calls)
}

/// Every item, with when the first `result` reached the caller.
async fn drain(mut q: Query) -> (Vec<Message>, Option<Instant>, Query) {
    let mut items = Vec::new();
    let mut first_result = None;
    while let Some(item) = tokio::time::timeout(SOON, q.next())
        .await
        .expect("query hung")
    {
        let m = item.expect("no error items");
        if matches!(m, Message::Result(_)) && first_result.is_none() {
            first_result = Some(Instant::now());
        }
        items.push(m);
    }
    (items, first_result, q)
}

fn kinds(items: &[Message]) -> Vec<String> {
    items.iter().map(Message::kind).collect()
}

#[tokio::test]
async fn a_permission_request_after_the_result_is_answered_and_idle_ends_the_run() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(host_state("running"))
            .emit(task_started("a1"))
            .emit(result("success", "started a background agent"))
            .sleep_ms(300)
            .emit(permission("late"))
            .step(expect_reply("late"))
            .emit(task_done("a1"))
            .emit(assistant("the agent finished"))
            .emit(result("success", "the agent finished"))
            .emit(host_state("idle"))
            .expect_eof(),
    );
    let (builder, calls) = counting(fake.builder());
    let (items, _, q) = drain(builder.query("start it")).await;
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the callback saw the request"
    );
    let reply = fake.reply_to("late").expect("the late request got a reply");
    assert_eq!(reply["response"]["subtype"], "success", "{reply}");
    assert_eq!(
        kinds(&items),
        [
            "system/task_started",
            "result/success",
            "system/task_notification",
            "assistant",
            "result/success"
        ],
        "host-only state frames stay out of the caller's stream"
    );
    let report = q.shutdown_report().expect("report after the end");
    assert_eq!(
        report.exit.map(|e| e.code),
        Some(Some(0)),
        "EOF, then a clean exit"
    );
}

#[tokio::test]
async fn an_agent_in_flight_keeps_stdin_open_for_a_cli_that_reports_no_state() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(task_started("a1"))
            .emit(result("success", "started"))
            .sleep_ms(300)
            .emit(permission("late"))
            .step(expect_reply("late"))
            .emit(task_done("a1"))
            .emit(result("success", "finished"))
            .expect_eof(),
    );
    let (builder, calls) = counting(fake.builder());
    let (items, _, q) = drain(builder.query("start it")).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let reply = fake.reply_to("late").expect("the late request got a reply");
    assert_eq!(reply["response"]["subtype"], "success", "{reply}");
    assert_eq!(items.len(), 4);
    let report = q.shutdown_report().expect("report after the end");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)));
}

#[tokio::test]
async fn the_ceiling_ends_a_run_whose_cli_never_reports_idle() {
    const CEILING_MS: u64 = 500;
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(host_state("running"))
            .emit(result("success", "done, but still running"))
            .expect_eof(),
    );
    let options = fake.options().env(
        "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS",
        CEILING_MS.to_string(),
    );
    let (builder, calls) = counting(
        ClientBuilder::new(options)
            .grace(Duration::from_millis(300))
            .term_grace(Duration::from_millis(300))
            .initialize_timeout(SOON),
    );
    let (items, first_result, q) = drain(builder.query("go")).await;
    let waited = first_result.expect("a result").elapsed();
    assert_eq!(kinds(&items), ["result/success"]);
    assert!(
        waited >= Duration::from_millis(CEILING_MS - 100),
        "stdin stayed open about the ceiling past the result, not {waited:?}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    let report = q.shutdown_report().expect("report after the end");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)));
}

#[tokio::test]
async fn without_callbacks_the_result_ends_the_run_even_while_the_cli_is_running() {
    // Nothing can need stdin, so the default ten-minute ceiling never
    // applies: the drain's timeout would fail this test if it did.
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(host_state("running"))
            .emit(result("success", "done"))
            .expect_eof(),
    );
    let (items, _, q) = drain(fake.builder().query("go")).await;
    assert_eq!(kinds(&items), ["result/success"]);
    assert!(q.shutdown_report().is_some());
}

#[tokio::test]
async fn without_callbacks_background_work_after_eof_runs_to_its_end_past_the_grace() {
    // As a background agent does under the real CLI: the main turn's
    // result, EOF, then the agent's follow-up turn, which takes longer
    // than the 300 ms grace. The CLI exits on its own; no signal is sent.
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(task_started("agent-1"))
            .emit(host_state("running"))
            .emit(result("success", "started in the background"))
            .expect_eof()
            .sleep_ms(1_200)
            .emit(task_done("agent-1"))
            .emit(result("success", "finished"))
            .emit(host_state("idle"))
            .exit(0),
    );
    let (items, _, q) = drain(fake.builder().query("go")).await;
    let results: Vec<_> = items
        .iter()
        .filter_map(|m| match m {
            Message::Result(r) => r.result.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["started in the background", "finished"]);
    let report = q.shutdown_report().expect("report after the end");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)), "{report:?}");
    assert!(report.steps.is_empty(), "no signal: {:?}", report.steps);
}

#[tokio::test]
async fn a_cli_that_hangs_after_the_result_with_no_background_work_gets_the_ladder() {
    // No agent and no busy state reported: nothing may still run after
    // EOF, so the ordered shutdown (300 ms grace, then signals) ends a CLI
    // that ignores it, rather than the ten-minute background ceiling.
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "done"))
            .hang(),
    );
    let (items, _, q) = drain(fake.builder().query("go")).await;
    assert_eq!(kinds(&items), ["result/success"]);
    let report = q.shutdown_report().expect("report after the end");
    assert!(!report.steps.is_empty(), "a signal ended it: {report:?}");
}
