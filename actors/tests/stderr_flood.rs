//! A CLI flooding stderr never blocks: stderr is drained into a bounded
//! ring, and stdout frames keep flowing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use claude_agent_testkit::{Script, Stream};
use common::*;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stderr_flood_is_bounded_and_never_blocks_the_cli() {
    let fx = install(
        Script::new()
            .expect_initialize()
            .flood(
                Stream::Stderr,
                "noise noise noise noise noise noise noise",
                200_000,
            )
            .stderr("the last stderr line")
            .emit(json!({"type":"assistant","marker":"after-flood"})),
    );
    let seen = Arc::new(AtomicU64::new(0));
    let counter = seen.clone();
    let cfg = fx
        .config()
        .stderr_lines(50)
        .on_stderr(Arc::new(move |_line: &str| {
            counter.fetch_add(1, Ordering::Relaxed);
        }));
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "after-flood");
    let report = session.shutdown().await;
    assert_eq!(
        report.stderr_tail.len(),
        50,
        "ring keeps the last 50 lines only"
    );
    assert_eq!(report.stderr_tail.last().unwrap(), "the last stderr line");
    assert!(
        seen.load(Ordering::Relaxed) >= 200_001,
        "every line seen by the callback"
    );
    assert_gone(fx.pid());
}
