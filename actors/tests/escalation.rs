//! The shutdown ladder against CLIs that misbehave at the end: ignoring EOF
//! and SIGTERM (killed after grace + term_grace), needing time to flush
//! (no signal inside grace), leaving a grandchild (dies with the group),
//! closing stdout while running (detected, escalates).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_actors::{Escalation, LifecycleEvent, SessionEvent, ShutdownCause};
use claude_agent_testkit::Script;
use common::*;

const MARGIN: Duration = Duration::from_secs(1);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ignores_eof_and_sigterm_is_killed_after_both_graces() {
    let fx = install(
        Script::new()
            .expect_initialize()
            .ignore_signal("TERM")
            .hang(),
    );
    let (session, _stream) = fx.start().await;
    let pid = session.pid().unwrap();
    let report = session.shutdown().await;
    assert_eq!(report.escalation, Escalation::Kill);
    assert_eq!(report.exit.unwrap().signal, Some(9));
    let t = report.timings;
    let term = t.term_sent.unwrap();
    let kill = t.kill_sent.unwrap();
    assert!(term >= GRACE && term < GRACE + MARGIN, "{t:?}");
    assert!(
        kill >= GRACE + TERM_GRACE && kill < GRACE + TERM_GRACE + MARGIN,
        "{t:?}"
    );
    assert!(t.total < GRACE + TERM_GRACE + MARGIN, "{t:?}");
    assert_gone(pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_flush_on_eof_gets_no_signal_within_grace() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("session.jsonl");
    let fx = install(
        Script::new()
            .expect_initialize()
            .expect_eof()
            .sleep_ms(150)
            .emit(serde_json::json!({"type":"system","subtype":"status","marker":"after-eof"}))
            .write_file(&out, "last message\n")
            .exit(0),
    );
    let (session, mut stream) = fx.start().await;
    let report = session.shutdown().await;
    assert_eq!(
        report.frames_after_eof, 1,
        "read to EOF after closing stdin"
    );
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "after-eof");
    assert_eq!(report.escalation, Escalation::None);
    assert_eq!(report.timings.term_sent, None);
    assert_eq!(report.exit.unwrap().code, Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "last message\n");
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grandchild_dies_with_the_group() {
    let dir = tempfile::tempdir().unwrap();
    let gc_pid_file = dir.path().join("grandchild.pid");
    let fx = install(
        Script::new()
            .expect_initialize()
            .spawn_grandchild(&gc_pid_file)
            .loop_turns("x"),
    );
    let (session, _stream) = fx.start().await;
    let pid = session.pid().unwrap();
    let gc = loop {
        if let Some(p) = std::fs::read_to_string(&gc_pid_file)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
        {
            break p;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_running(gc);
    assert_eq!(claude_agent_testkit::process_group(gc), Some(pid));
    let report = session.shutdown().await;
    assert_eq!(
        report.escalation,
        Escalation::None,
        "the CLI itself exits on EOF"
    );
    assert_gone(gc);
    assert_gone(pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_stdout_while_running_is_detected_and_escalates() {
    let fx = install(Script::new().expect_initialize().close_stdout().hang());
    let mut cfg = fx.config();
    let mut events = cfg.subscribe_events();
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let pid = session.pid().unwrap();
    // Nobody calls shutdown: the session notices on its own.
    let report = tokio::time::timeout(SOON, session.closed())
        .await
        .expect("not detected");
    assert_eq!(report.cause, ShutdownCause::StdoutClosed);
    assert_eq!(
        report.escalation,
        Escalation::Term,
        "hanging CLI ignores EOF, dies on TERM"
    );
    assert_eq!(report.exit.unwrap().signal, Some(15));
    assert!(next_frame(&mut stream).await.is_none());
    wait_event(&mut events, |e| {
        matches!(
            e,
            SessionEvent::Lifecycle(LifecycleEvent::Escalated {
                to: Escalation::Term
            })
        )
    })
    .await;
    assert_gone(pid);
}
