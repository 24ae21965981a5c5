//! Cutting the shutdown ladder short, against a real CLI that ignores EOF
//! and SIGTERM and is given graces far longer than the test may take:
//! `hurry` skips the current wait (a second and third Ctrl-C), `kill` goes
//! straight to SIGKILL. Each step is in the report with its reason, the
//! `Escalated` events fire, and the escalation agrees with what was sent and
//! how the CLI died.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_actors::{
    Escalation, LifecycleEvent, SessionEvent, ShutdownCause, ShutdownReport, StepReason,
};
use claude_agent_testkit::Script;
use common::*;

/// Graces no test run waits out: if a step is not cut short, the test's
/// own bound fails it.
const FOREVER: Duration = Duration::from_secs(600);
const BOUND: Duration = Duration::from_secs(20);

fn stubborn() -> Fixture {
    install(
        // TERM is ignored before `initialize` is answered: a shutdown that
        // follows the start at once must not find it still default.
        Script::new()
            .ignore_signal("TERM")
            .expect_initialize()
            .hang(),
    )
}

fn is_escalated(to: Escalation) -> impl Fn(&SessionEvent) -> bool {
    move |e| matches!(e, SessionEvent::Lifecycle(LifecycleEvent::Escalated { to: t }) if *t == to)
}

async fn within_bound(report: impl std::future::Future<Output = ShutdownReport>) -> ShutdownReport {
    tokio::time::timeout(BOUND, report)
        .await
        .expect("the shutdown was not cut short")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_hurry_skips_the_current_grace() {
    let fx = stubborn();
    let (session, _stream) = fx
        .start_with(fx.config().grace(FOREVER).term_grace(FOREVER))
        .await
        .unwrap();
    let pid = session.pid().unwrap();
    let (closing, mut events) = begin_shutdown(&session).await;
    session.hurry();
    wait_event(&mut events, is_escalated(Escalation::Term)).await;
    session.hurry();
    wait_event(&mut events, is_escalated(Escalation::Kill)).await;
    let report = within_bound(async { closing.await.unwrap() }).await;

    let steps: Vec<(Escalation, StepReason)> = report.steps.iter().map(|s| (s.to, s.why)).collect();
    assert_eq!(
        steps,
        [
            (Escalation::Term, StepReason::Hurried),
            (Escalation::Kill, StepReason::Hurried)
        ]
    );
    assert_eq!(report.escalation, Escalation::Kill);
    assert_eq!(report.exit.unwrap().signal, Some(9));
    assert_eq!(report.cause, ShutdownCause::Requested);
    assert_eq!(report.timings.term_sent, Some(report.steps[0].at));
    assert_eq!(report.timings.kill_sent, Some(report.steps[1].at));
    assert_gone(pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hurry_before_any_shutdown_starts_one_and_sends_sigterm_at_once() {
    // This CLI exits on SIGTERM: one hurry is enough.
    let fx = install(Script::new().expect_initialize().hang());
    let (session, _stream) = fx
        .start_with(fx.config().grace(FOREVER).term_grace(FOREVER))
        .await
        .unwrap();
    session.hurry();
    let report = within_bound(session.closed()).await;
    assert_eq!(report.cause, ShutdownCause::Requested);
    assert_eq!(report.steps.len(), 1, "{:?}", report.steps);
    assert_eq!(report.steps[0].to, Escalation::Term);
    assert_eq!(report.steps[0].why, StepReason::Hurried);
    assert_eq!(report.escalation, Escalation::Term);
    assert_eq!(report.exit.unwrap().signal, Some(15));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_is_a_step_of_the_ladder_and_the_report_says_so() {
    let fx = stubborn();
    let (session, _stream) = fx
        .start_with(fx.config().grace(FOREVER).term_grace(FOREVER))
        .await
        .unwrap();
    let pid = session.pid().unwrap();
    let mut events = session.subscribe_events();
    session.kill(ShutdownCause::HostDrain);
    wait_event(&mut events, is_escalated(Escalation::Kill)).await;
    let report = within_bound(session.closed()).await;
    assert_eq!(report.cause, ShutdownCause::HostDrain);
    assert_eq!(
        report.steps.len(),
        1,
        "no SIGTERM first: {:?}",
        report.steps
    );
    assert_eq!(report.steps[0].to, Escalation::Kill);
    assert_eq!(report.steps[0].why, StepReason::KillRequested);
    assert_eq!(report.escalation, Escalation::Kill);
    assert_eq!(report.exit.unwrap().signal, Some(9));
    assert_eq!(report.timings.term_sent, None);
    assert!(report.timings.kill_sent.is_some());
    assert_gone(pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_graces_on_a_cli_dying_of_sigterm_report_term_with_both_steps() {
    // TERM and KILL go out back to back; the CLI dies of the TERM. The
    // report lists both signals and names the escalation that ended it.
    let fx = install(Script::new().expect_initialize().hang());
    let (session, _stream) = fx
        .start_with(fx.config().grace(Duration::ZERO).term_grace(Duration::ZERO))
        .await
        .unwrap();
    let report = within_bound(session.shutdown()).await;
    let sent: Vec<Escalation> = report.steps.iter().map(|s| s.to).collect();
    assert_eq!(sent[0], Escalation::Term, "{:?}", report.steps);
    match report.exit.unwrap().signal {
        Some(15) => assert_eq!(report.escalation, Escalation::Term),
        Some(9) => assert_eq!(report.escalation, Escalation::Kill),
        other => panic!("died of {other:?}"),
    }
}
