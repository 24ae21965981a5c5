//! Host drain: stop admitting, interrupt running turns, ordered shutdown of
//! every session in parallel, kill what is left at the deadline, aggregate
//! report; nothing left running.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use claude_agent::host::{DrainOptions, Failure, HostConfig, HostError, HostEvent};
use claude_agent::{host::Host, runtime::Escalation, runtime::ShutdownCause, runtime::StepReason};
use claude_agent_testkit::Script;
use common::{SOON, fake};

#[tokio::test]
async fn drain_shuts_down_in_parallel_and_kills_what_is_left_at_the_deadline() {
    let polite = fake(Script::new().expect_initialize().loop_turns("ok"));
    // Ignores EOF and SIGTERM: only the deadline's kill ends it.
    let stubborn = fake(
        Script::new()
            .ignore_signal("TERM")
            .expect_initialize()
            .hang(),
    );
    let host = Host::start(HostConfig::new().max_sessions(6).max_per_tenant(6))
        .await
        .unwrap();
    let mut polite_h = Vec::new();
    for _ in 0..4 {
        polite_h.push(host.spawn("a", polite.builder()).await.unwrap());
    }
    // Graces far beyond the drain deadline.
    let slow = stubborn
        .builder()
        .grace(Duration::from_secs(30))
        .term_grace(Duration::from_secs(30));
    let stuck = host.spawn("b", slow).await.unwrap();
    let mut pids = Vec::new();
    for h in polite_h.iter().chain([&stuck]) {
        pids.push(h.client().await.unwrap().pid().unwrap());
    }
    // Queued beyond the limit: cancelled by the drain.
    let mut events = host.events();
    let queued: Vec<_> = {
        let mut v = Vec::new();
        for _ in 0..3 {
            v.push(host.spawn("c", polite.builder()).await.unwrap());
        }
        v
    };
    let deadline = Duration::from_millis(800);
    let started = Instant::now();
    let report = host.drain(DrainOptions::new(deadline)).await;
    let took = started.elapsed();
    assert_eq!(report.running, 6, "{report:?}");
    assert_eq!(report.cancelled_queued, 2, "{report:?}");
    assert_eq!(report.killed_at_deadline, 1, "{report:?}");
    assert_eq!(report.ended_in_time, 5, "{report:?}");
    assert_eq!(report.unresolved, 0);
    assert_eq!(report.escalations_kill, 1);
    assert!(
        took >= deadline,
        "the stuck session held the drain to its deadline"
    );
    // The polite sessions ended in an ordered shutdown, without escalation.
    for h in &polite_h {
        let out = h.outcome().await;
        assert!(
            matches!(out.failure, Some(Failure::Drained)),
            "{:?}",
            out.failure
        );
        let r = out.report.as_ref().unwrap();
        assert_eq!(r.cause, ShutdownCause::HostDrain);
        assert_eq!(r.escalation, Escalation::None);
    }
    // The stuck session's own report tells the kill at the deadline: a step
    // of its ladder, with its reason, and the escalation agrees.
    let out = stuck.outcome().await;
    let r = out.report.as_ref().unwrap();
    assert_eq!(r.exit.unwrap().signal, Some(libc::SIGKILL));
    assert_eq!(r.escalation, Escalation::Kill, "{r:?}");
    let kills: Vec<_> = r
        .steps
        .iter()
        .filter(|s| s.to == Escalation::Kill)
        .collect();
    assert_eq!(kills.len(), 1, "{:?}", r.steps);
    assert_eq!(kills[0].why, StepReason::KillRequested);
    // Two never left the queue; the third had the sixth slot. All three
    // were ended by the drain.
    let mut admitted = Vec::new();
    while let Ok(e) = events.try_recv() {
        if let HostEvent::Admitted { id, .. } = e {
            admitted.push(id);
        }
    }
    assert_eq!(admitted, vec![queued[0].id()], "{queued:?}");
    for (i, h) in queued.iter().enumerate() {
        let out = h.outcome().await;
        assert!(
            matches!(out.failure, Some(Failure::Drained)),
            "{:?}",
            out.failure
        );
        if i > 0 {
            // Never admitted: no CLI, no time running.
            assert!(out.report.is_none(), "{out:?}");
            assert_eq!(out.ran_for, Duration::ZERO, "{out:?}");
        }
    }
    for pid in pids {
        polite.assert_gone(pid).await;
    }
    let err = host
        .submit("a", polite.builder(), "late")
        .await
        .unwrap_err();
    assert!(matches!(err, HostError::Draining), "{err}");
    let m = host.metrics().await.unwrap();
    assert!(m.draining);
    assert_eq!((m.running, m.queued), (0, 0), "{m:?}");
    // A second drain has nothing to do.
    let again = host.drain(DrainOptions::new(deadline)).await;
    assert_eq!((again.running, again.cancelled_queued), (0, 0));
}

#[tokio::test]
async fn drain_interrupts_running_turns_first() {
    // A turn that never finishes on its own; only an interrupt is answered.
    let busy = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .expect_control("interrupt", serde_json::json!({"still_queued": []}))
            .expect_eof(),
    );
    let host = Host::start(HostConfig::new()).await.unwrap();
    let session = host.spawn("a", busy.builder()).await.unwrap();
    let client = session.client().await.unwrap();
    let pid = client.pid().unwrap();
    client.send("long work").await.unwrap();
    drop(client);
    let report = host.drain(DrainOptions::new(SOON).interrupt(true)).await;
    assert_eq!(report.running, 1);
    assert_eq!(report.killed_at_deadline, 0);
    let out = session.outcome().await;
    assert!(
        matches!(out.failure, Some(Failure::Drained)),
        "{:?}",
        out.failure
    );
    let r = out.report.as_ref().unwrap();
    assert_eq!(r.escalation, Escalation::None, "{r:?}");
    let lines = busy.received();
    let interrupt = lines
        .iter()
        .position(|l| l["type"] == "control_request" && l["request"]["subtype"] == "interrupt")
        .expect("the CLI got an interrupt");
    let user = lines.iter().position(|l| l["type"] == "user").unwrap();
    assert!(user < interrupt);
    busy.assert_gone(pid).await;
}

/// Ends only when the test process does: a post_stop that ignores the
/// hurry, so a session killed at the deadline never reports.
struct NeverEnds;

impl claude_agent::extensions::Extension for NeverEnds {
    fn name(&self) -> &str {
        "never-ends"
    }

    async fn post_stop(&self, _stopped: &mut claude_agent::extensions::Stopped<'_>) {
        futures::future::pending::<()>().await;
    }
}

#[tokio::test]
async fn a_configured_killed_report_timeout_bounds_the_wait_for_a_killed_session() {
    let stubborn = fake(
        Script::new()
            .ignore_signal("TERM")
            .expect_initialize()
            .hang(),
    );
    let host = Host::start(HostConfig::new()).await.unwrap();
    let slow = stubborn
        .builder()
        .grace(Duration::from_secs(30))
        .term_grace(Duration::from_secs(30))
        .extension(NeverEnds);
    let stuck = host.spawn("a", slow).await.unwrap();
    let pid = stuck.client().await.unwrap().pid().unwrap();
    let (deadline, after_kill) = (Duration::from_millis(300), Duration::from_millis(400));
    let opts = DrainOptions::new(deadline).killed_report_timeout(after_kill);
    let started = Instant::now();
    let report = host.drain(opts).await;
    let took = started.elapsed();
    assert_eq!(report.killed_at_deadline, 1, "{report:?}");
    assert_eq!(report.unresolved, 1, "{report:?}");
    assert!(took >= deadline + after_kill, "{took:?}");
    // Not the default's 5 s.
    assert!(
        took < claude_agent::host::DEFAULT_KILLED_REPORT_TIMEOUT,
        "{took:?}"
    );
    stubborn.assert_gone(pid).await;
}
