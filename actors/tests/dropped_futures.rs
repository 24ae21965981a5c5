//! A caller's future dropped mid-connect, mid-initialize or mid-turn leaves
//! no process, actor or task behind.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_actors::{Session, live_sessions};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

async fn assert_unregistered(pid: u32) {
    let deadline = std::time::Instant::now() + SOON;
    while live_sessions().iter().any(|s| s.pid == Some(pid)) {
        assert!(
            std::time::Instant::now() < deadline,
            "session {pid} still registered"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_dropped_while_waiting_for_initialize() {
    let baseline = alive_tasks();
    let fx = install(
        Script::new()
            .step(json!({"op":"expect","type":"control_request","subtype":"initialize","no_reply":true}))
            .expect_eof(),
    );
    let r = tokio::time::timeout(Duration::from_millis(300), Session::start(fx.config())).await;
    assert!(r.is_err(), "start must still be waiting");
    let pid = fx.pid();
    assert_gone(pid);
    assert_unregistered(pid).await;
    assert_tasks_back_to(baseline).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_dropped_at_any_point_leaves_nothing() {
    let baseline = alive_tasks();
    for step in 0..12u64 {
        let fx = install(Script::new().expect_initialize().loop_turns("x"));
        let budget = Duration::from_micros(step * step * 150);
        match tokio::time::timeout(budget, Session::start(fx.config())).await {
            Ok(Ok((session, _stream))) => {
                session.shutdown().await;
            }
            Ok(Err(e)) => panic!("{e}"),
            Err(_) => {}
        }
        if let Some(pid) = fx.cli.pid() {
            assert_gone(pid);
            assert_unregistered(pid).await;
        }
    }
    assert_tasks_back_to(baseline).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn futures_and_handles_dropped_mid_turn() {
    let baseline = alive_tasks();
    let fx = install(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type":"system","subtype":"init","session_id":"s-9"}))
            .expect_eof(),
    );
    let (session, mut stream) = fx.start().await;
    let pid = session.pid().unwrap();
    session.send(&user("go")).await.unwrap();
    assert_eq!(
        next_frame(&mut stream).await.unwrap().unwrap().kind,
        "system"
    );
    // A control call abandoned by its caller is forgotten, not leaked.
    let call = session.request(json!({"subtype":"get_context_usage"}), None);
    assert!(
        tokio::time::timeout(Duration::from_millis(100), call)
            .await
            .is_err()
    );
    let deadline = std::time::Instant::now() + SOON;
    while session.stats().requests_pending != 0 {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(session.session_id().as_deref(), Some("s-9"));
    drop(session);
    // The stream ends with the typed error: the turn never got its result.
    assert!(matches!(
        next_frame(&mut stream).await,
        Some(Err(
            claude_agent_actors::SessionError::ClosedBeforeResult { .. }
        ))
    ));
    assert!(next_frame(&mut stream).await.is_none());
    drop(stream);
    assert_gone(pid);
    assert_unregistered(pid).await;
    assert_tasks_back_to(baseline).await;
}
