//! The CLI crashes in the middle of a turn: every frame printed before the
//! crash is delivered, then one typed "closed before result" error carrying
//! the exit status and stderr tail; pending control calls fail at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use claude_agent_actors::{ControlError, SessionError, ShutdownCause};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

const FRAMES: usize = 300;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_before_a_crash_are_delivered_then_a_typed_error() {
    let frames: Vec<_> = (0..FRAMES)
        .map(|i| json!({"type":"assistant","message":{"content":[{"type":"text","text":format!("part {i}")}]},"seq":i}))
        .collect();
    let fx = install(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .step(json!({"op":"emit","frames":frames}))
            // Wait for our control request so it is pending when we die.
            .step(json!({"op":"expect","type":"control_request","subtype":"mcp_status","no_reply":true}))
            .stderr("fatal: out of memory")
            .crash("SEGV"),
    );
    let (session, mut stream) = fx.start().await;
    let pid = session.pid().unwrap();
    session.send(&user("go")).await.unwrap();

    let s2 = session.clone();
    let pending = tokio::spawn(async move {
        let t0 = Instant::now();
        let r = s2
            .request(
                json!({"subtype":"mcp_status"}),
                Some(Duration::from_secs(60)),
            )
            .await;
        (r, t0.elapsed())
    });

    for i in 0..FRAMES {
        let f = next_frame(&mut stream).await.unwrap().unwrap();
        assert_eq!(f.to_value().unwrap()["seq"], i, "in order, none lost");
    }
    match next_frame(&mut stream).await {
        Some(Err(SessionError::ClosedBeforeResult { exit, stderr_tail })) => {
            assert_eq!(exit.unwrap().signal, Some(11), "SIGSEGV");
            assert!(
                stderr_tail.contains("fatal: out of memory"),
                "{stderr_tail:?}"
            );
        }
        other => panic!("expected ClosedBeforeResult, got {other:?}"),
    }
    assert!(next_frame(&mut stream).await.is_none());

    let (r, took) = pending.await.unwrap();
    match r {
        Err(ControlError::Closed { exit, .. }) => assert_eq!(exit.unwrap().signal, Some(11)),
        other => panic!("{other:?}"),
    }
    assert!(
        took < Duration::from_secs(5),
        "failed at once, not at the timeout: {took:?}"
    );

    let report = session.closed().await;
    assert!(
        matches!(report.cause, ShutdownCause::CliExited { exit: Some(e) } if e.signal == Some(11))
    );
    assert_eq!(report.requests_failed, 1);
    assert!(
        report
            .stderr_tail
            .iter()
            .any(|l| l.contains("out of memory"))
    );
    assert_gone(pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clean_exit_between_turns_ends_the_stream_without_error() {
    let fx = install(Script::new().expect_initialize().turn("one").exit(0));
    let (session, mut stream) = fx.start().await;
    session.send(&user("go")).await.unwrap();
    assert_eq!(read_turn(&mut stream).await.len(), 3);
    assert!(
        next_frame(&mut stream).await.is_none(),
        "no turn open: no error"
    );
    let report = session.closed().await;
    assert_eq!(report.exit.unwrap().code, Some(0));
    assert_gone(fx.pid());
}
