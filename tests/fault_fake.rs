//! Fault plans against the test kit's fake CLI: the plan sits between the
//! runtime and the pipes, so any CLI gets the same faults (the catalogue on
//! the real CLI is tests/real_cli_faults.rs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use claude_agent::fault::{FaultPlan, FaultReport};
use claude_agent_testkit::Script;
use common::{SOON, assistant, fake, result};
use futures::StreamExt;

#[tokio::test]
async fn kill_at_the_first_assistant_ends_the_fake_s_turn_with_sigkill_and_leaves_nothing() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("partial"))
            // Waits for a message that never comes: only the fault ends it.
            .expect("user", None),
    );
    let plan = FaultPlan::new().with("kill@assistant:1").unwrap();
    let client = fake.builder().fault_plan(plan).connect().await.unwrap();
    client.send("go").await.unwrap();
    let mut turn = client.receive_response();
    let first = tokio::time::timeout(SOON, turn.next()).await.unwrap();
    assert_eq!(first.unwrap().unwrap().kind(), "assistant");
    let err = tokio::time::timeout(SOON, turn.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(err.is_closed(), "{err}");
    drop(turn);
    let report = tokio::time::timeout(SOON, client.shutdown()).await.unwrap();
    assert_eq!(report.exit.and_then(|e| e.signal), Some(libc::SIGKILL));
    let faults = FaultReport::from_report(&report).unwrap();
    assert_eq!(faults.injected.len(), 1);
    assert_eq!(faults.injected[0].fault, "kill@assistant:1");
    // After the initialize reply: the fake's second stdout frame.
    assert_eq!(faults.injected[0].frame, Some(2));
    faults.no_process_left(SOON).await.unwrap();
    faults.one_reply_per_request().unwrap();
    faults.signals_match(&report.runtime).unwrap();
}

#[tokio::test]
async fn a_corrupted_frame_from_the_fake_is_skipped_and_the_turn_completes() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("spoiled"))
            .emit(result("success", "fine")),
    );
    let skipped = Arc::new(AtomicU64::new(0));
    let counted = skipped.clone();
    let client = fake
        .builder()
        .on_diagnostic(move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
        })
        .fault_plan(FaultPlan::new().with("corrupt@assistant:1").unwrap())
        .connect()
        .await
        .unwrap();
    client.send("go").await.unwrap();
    let kinds: Vec<String> = tokio::time::timeout(
        SOON,
        client
            .receive_response()
            .map(|m| m.unwrap().kind())
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    assert_eq!(kinds, ["result/success"]);
    let report = tokio::time::timeout(SOON, client.shutdown()).await.unwrap();
    assert_eq!(skipped.load(Ordering::Relaxed), 1);
    let faults = FaultReport::from_report(&report).unwrap();
    assert_eq!(faults.fired("corrupt").count(), 1);
    faults.no_process_left(SOON).await.unwrap();
    faults.signals_match(&report.runtime).unwrap();
}
