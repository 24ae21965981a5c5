//! The idle watchdog: an open turn with no frame for `after` fires an
//! `IdleTimeout` diagnostic and the configured action.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_actors::{Diagnostic, SessionEvent, ShutdownCause, Watchdog, WatchdogAction};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

fn silent_turn() -> Script {
    Script::new()
        .auto_reply("interrupt", json!({"still_queued": []}))
        .expect_initialize()
        .expect("user", None)
        .emit(json!({"type":"system","subtype":"init","session_id":"w"}))
}

fn is_idle(e: &SessionEvent) -> bool {
    matches!(e, SessionEvent::Diagnostic(Diagnostic::IdleTimeout { .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_turn_is_interrupted() {
    let fx = install(silent_turn());
    let after = Duration::from_millis(200);
    let mut cfg = fx.config().idle_watchdog(Some(Watchdog {
        after,
        action: WatchdogAction::Interrupt,
    }));
    let mut events = cfg.subscribe_events();
    let (session, _stream) = fx.start_with(cfg).await.unwrap();
    session.send(&user("go")).await.unwrap();
    match wait_event(&mut events, is_idle).await {
        SessionEvent::Diagnostic(Diagnostic::IdleTimeout { idle }) => assert!(idle >= after),
        _ => unreachable!(),
    }
    fx.wait_recorded(|v| v["type"] == "control_request" && v["request"]["subtype"] == "interrupt")
        .await;
    session.shutdown().await;
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn silent_turn_shuts_the_session_down() {
    let fx = install(silent_turn());
    let cfg = fx.config().idle_watchdog(Some(Watchdog {
        after: Duration::from_millis(200),
        action: WatchdogAction::Shutdown,
    }));
    let (session, _stream) = fx.start_with(cfg).await.unwrap();
    session.send(&user("go")).await.unwrap();
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert_eq!(report.cause, ShutdownCause::IdleTimeout);
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_open_turn_means_no_firing() {
    let fx = install(silent_turn());
    let cfg = fx.config().idle_watchdog(Some(Watchdog {
        after: Duration::from_millis(50),
        action: WatchdogAction::Shutdown,
    }));
    let (session, _stream) = fx.start_with(cfg).await.unwrap();
    // Idle with no turn: a control round trip well past `after` still works.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!session.is_closed(), "fired without an open turn");
    session
        .request(json!({"subtype":"interrupt"}), None)
        .await
        .unwrap();
    session.shutdown().await;
    assert_gone(fx.pid());
}
