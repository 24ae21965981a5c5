//! Supervision exercised for real: each child actor of a session is killed
//! during a turn and during the shutdown, and the supervisor itself is
//! killed. Every case ends in a report that says what happened (cause,
//! signals sent, how the CLI ended), the turn's stream ends with
//! `ClosedBeforeResult`, and no process is left.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_actors::{
    ControlError, Escalation, Session, SessionError, ShutdownCause, ShutdownReport, StepReason,
};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

/// Graces no test waits out: the ladder must be ended by what the test does.
const FOREVER: Duration = Duration::from_secs(600);

#[derive(Clone, Copy, Debug)]
enum Child {
    Reader,
    Dispatch,
    Transport,
}

fn kill(session: &Session, child: Child) {
    let fault = session.fault();
    match child {
        Child::Reader => fault.kill_reader(),
        Child::Dispatch => fault.kill_dispatch(),
        Child::Transport => fault.kill_transport(),
    }
}

/// A CLI that takes a turn's first frame and then works forever (it ignores
/// stdin EOF but dies of SIGTERM).
fn mid_turn() -> Fixture {
    install(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type":"assistant","marker":"working"}))
            .hang(),
    )
}

fn steps(report: &ShutdownReport) -> Vec<(Escalation, StepReason)> {
    report.steps.iter().map(|s| (s.to, s.why)).collect()
}

fn assert_fatal_kill(report: &ShutdownReport) {
    match &report.cause {
        ShutdownCause::Fatal { reason } => {
            assert!(reason.contains("stopped early (killed)"), "{reason}")
        }
        other => panic!("expected a Fatal cause, got {other:?}"),
    }
}

/// Starts a turn, kills `child` once the turn's first frame arrived, and
/// returns the report after checking the stream ends with the turn cut off.
async fn kill_mid_turn(child: Child) -> (ShutdownReport, u32) {
    let fx = mid_turn();
    let (session, mut stream) = fx.start().await;
    let pid = session.pid().unwrap();
    session.send(&user("go")).await.unwrap();
    let first = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(first.to_value().unwrap()["marker"], "working");

    kill(&session, child);
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert_fatal_kill(&report);
    match next_frame(&mut stream).await {
        Some(Err(SessionError::ClosedBeforeResult { .. })) => {}
        other => panic!("expected ClosedBeforeResult, got {other:?}"),
    }
    assert!(next_frame(&mut stream).await.is_none());
    assert_gone(pid);
    (report, pid)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_reader_mid_turn_runs_the_ordered_shutdown() {
    let (report, _) = kill_mid_turn(Child::Reader).await;
    // The shutdown ran its ladder: EOF ignored, SIGTERM after grace.
    assert_eq!(
        steps(&report),
        [(Escalation::Term, StepReason::GraceElapsed)]
    );
    assert_eq!(report.exit.unwrap().signal, Some(15));
    assert_eq!(report.escalation, Escalation::Term);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_transport_mid_turn_kills_the_cli_and_the_report_says_so() {
    let (report, _) = kill_mid_turn(Child::Transport).await;
    // Dropping the channel killed the group; its status was never seen.
    assert_eq!(
        steps(&report),
        [(Escalation::Kill, StepReason::TransportLost)]
    );
    assert_eq!(report.exit, None);
    assert_eq!(report.escalation, Escalation::Kill);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_dispatch_mid_turn_fails_the_pending_request_and_runs_the_ordered_shutdown() {
    // Takes our request and never answers it.
    let fx = install(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type":"assistant","marker":"working"}))
            .expect("control_request", Some("interrupt"))
            .hang(),
    );
    let (session, mut stream) = fx.start().await;
    let pid = session.pid().unwrap();
    session.send(&user("go")).await.unwrap();
    next_frame(&mut stream).await.unwrap().unwrap();
    // The CLI never answers this one: it waits in dispatch.
    let pending = tokio::spawn({
        let s = session.clone();
        async move { s.request(json!({"subtype":"interrupt"}), None).await }
    });
    fx.wait_recorded(|v| v["request"]["subtype"] == "interrupt")
        .await;

    kill(&session, Child::Dispatch);
    let failed = tokio::time::timeout(SOON, pending).await.unwrap().unwrap();
    assert!(
        matches!(failed, Err(ControlError::ShuttingDown)),
        "{failed:?}"
    );
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert_fatal_kill(&report);
    assert_eq!(
        steps(&report),
        [(Escalation::Term, StepReason::GraceElapsed)]
    );
    assert_eq!(report.exit.unwrap().signal, Some(15));
    match next_frame(&mut stream).await {
        Some(Err(SessionError::ClosedBeforeResult { .. })) => {}
        other => panic!("expected ClosedBeforeResult, got {other:?}"),
    }
    assert_gone(pid);
}

/// Starts a shutdown that only `Session::kill` can finish, kills `child`
/// while it runs, and returns the report.
async fn kill_during_shutdown(child: Child, then_kill_cli: bool) -> ShutdownReport {
    let fx = install(Script::new().expect_initialize().hang());
    let (session, _stream) = fx
        .start_with(fx.config().grace(FOREVER).term_grace(FOREVER))
        .await
        .unwrap();
    let pid = session.pid().unwrap();
    let (closing, _events) = begin_shutdown(&session).await;
    kill(&session, child);
    if then_kill_cli {
        session.kill(ShutdownCause::Requested);
    }
    let report = tokio::time::timeout(SOON, closing)
        .await
        .expect("the shutdown did not complete")
        .unwrap();
    // The cause is the one the shutdown began with; the kill changed nothing.
    assert_eq!(report.cause, ShutdownCause::Requested);
    assert_eq!(session.report(), Some(report.clone()));
    assert_gone(pid);
    report
}

/// The shutdown went on to the requested kill, and the report says so.
fn assert_ended_by_the_requested_kill(report: &ShutdownReport) {
    assert_eq!(
        steps(report),
        [(Escalation::Kill, StepReason::KillRequested)]
    );
    assert_eq!(report.exit.unwrap().signal, Some(9));
    assert_eq!(report.escalation, Escalation::Kill);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_killed_during_shutdown_does_not_stop_the_sequence() {
    assert_ended_by_the_requested_kill(&kill_during_shutdown(Child::Reader, true).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatch_killed_during_shutdown_does_not_stop_the_sequence() {
    assert_ended_by_the_requested_kill(&kill_during_shutdown(Child::Dispatch, true).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_transport_killed_during_shutdown_ends_the_ladder_with_a_transport_lost_step() {
    // No kill from the test: the transport's death alone must end the
    // ladder's endless grace, and the report must say it killed the CLI.
    let report = kill_during_shutdown(Child::Transport, false).await;
    assert_eq!(
        steps(&report),
        [(Escalation::Kill, StepReason::TransportLost)]
    );
    assert_eq!(report.exit, None);
    assert_eq!(report.escalation, Escalation::Kill);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_supervisor_publishes_a_fatal_report_and_kills_the_cli() {
    let fx = mid_turn();
    let (session, mut stream) = fx.start().await;
    let pid = session.pid().unwrap();
    session.send(&user("go")).await.unwrap();
    next_frame(&mut stream).await.unwrap().unwrap();

    session.fault().kill_supervisor();
    // The supervisor's state `Drop` is the only one left to report.
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert_eq!(
        report.cause,
        ShutdownCause::Fatal {
            reason: "the session supervisor stopped unexpectedly".into()
        }
    );
    assert_eq!(
        steps(&report),
        [(Escalation::Kill, StepReason::SupervisorLost)]
    );
    assert_eq!(report.exit, None);
    assert_eq!(report.escalation, Escalation::Kill);
    assert!(session.is_closed());
    assert!(matches!(
        session.send(&user("more")).await,
        Err(SessionError::ShuttingDown)
    ));
    assert_gone(pid);
}
