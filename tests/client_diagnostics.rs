//! The diagnostics observer (`ClientBuilder::on_diagnostic`) has seen every
//! diagnostic of a session by the time its shutdown report is out, however
//! slow it is: a count it keeps is complete when the caller reads it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;

// Two workers: the observer runs beside the shutdown, as in a real program.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_observer_has_seen_every_skipped_line_when_shutdown_returns() {
    const BAD: usize = 5;
    let mut script = Script::new().expect_initialize().expect("user", None);
    for i in 0..BAD {
        script = script.emit_raw(&format!("not json {i}\n"));
    }
    let fake = fake(
        script
            .emit(assistant("hi"))
            .emit(result("success", "hi"))
            .expect_eof(),
    );
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let client = fake
        .builder()
        .on_diagnostic(move |_d| {
            // A slow observer: the session ends long before it catches up.
            std::thread::sleep(Duration::from_millis(40));
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .connect()
        .await
        .unwrap();
    client.send("go").await.unwrap();
    let mut replies = client.receive_response();
    while let Some(m) = replies.next().await {
        m.unwrap();
    }
    drop(replies);
    let report = client.shutdown().await;
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)), "{report:?}");
    assert_eq!(seen.load(Ordering::SeqCst), BAD);
}
