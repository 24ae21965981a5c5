//! Host admission: fairness between tenants, global and per-tenant limits,
//! queue bounds, lookup by id, cancellation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent::host::{Failure, HostConfig, HostError, HostEvent, SessionStatus};
use claude_agent::{client::ClientBuilder, host::Host};
use claude_agent_testkit::Script;
use common::{SOON, fake};

fn quiet() -> Script {
    Script::new().expect_initialize().loop_turns("done")
}

/// Waits (bounded) for the next event matching `pick`.
async fn next_event<T>(
    rx: &mut tokio::sync::broadcast::Receiver<HostEvent>,
    mut pick: impl FnMut(&HostEvent) -> Option<T>,
) -> T {
    tokio::time::timeout(SOON, async {
        loop {
            let ev = rx.recv().await.unwrap();
            if let Some(t) = pick(&ev) {
                return t;
            }
        }
    })
    .await
    .expect("event within the bound")
}

#[tokio::test]
async fn three_jobs_are_not_starved_by_a_thousand_queued_before_them() {
    let f = fake(quiet());
    let host = Host::start(
        HostConfig::new()
            .max_sessions(1)
            .max_per_tenant(1)
            .event_capacity(8192),
    )
    .await
    .unwrap();
    let mut events = host.events();
    // The big tenant queues first, and far more.
    let mut big = Vec::new();
    for _ in 0..1000 {
        big.push(host.submit("big", f.builder(), "work").await.unwrap());
    }
    let mut small = Vec::new();
    for _ in 0..3 {
        small.push(host.submit("small", f.builder(), "work").await.unwrap());
    }
    for h in &small {
        let out = tokio::time::timeout(Duration::from_secs(60), h.outcome())
            .await
            .expect("small tenant's job finished");
        assert!(out.is_success(), "{:?}", out.failure);
    }
    // Admission order once the small tenant is waiting: with one slot,
    // tenants alternate, so its 3 jobs are among the next 7 admissions
    // (one of big's may already have been on its way in).
    let mut after_small = Vec::new();
    let mut small_waiting = false;
    while after_small.len() < 7 {
        match events.recv().await.unwrap() {
            HostEvent::Queued { tenant, .. } if tenant == "small" => small_waiting = true,
            HostEvent::Admitted { tenant, .. } if small_waiting => after_small.push(tenant),
            _ => {}
        }
    }
    assert_eq!(
        after_small.iter().filter(|t| *t == "small").count(),
        3,
        "{after_small:?}"
    );
    let m = host.metrics().await.unwrap();
    assert_eq!(m.by_tenant["small"].completed, 3);
    assert!(m.queued >= 500, "{m:?}");
    let report = host
        .drain(claude_agent::host::DrainOptions::new(SOON))
        .await;
    assert!(report.cancelled_queued >= 500);
    assert_eq!(report.unresolved, 0);
    for h in big.iter().rev().take(5) {
        assert!(matches!(h.outcome().await.failure, Some(Failure::Drained)));
    }
}

#[tokio::test]
async fn global_and_per_tenant_limits_hold() {
    let f = fake(quiet());
    let host = Host::start(HostConfig::new().max_sessions(3).max_per_tenant(2))
        .await
        .unwrap();
    let mut a = Vec::new();
    for _ in 0..4 {
        a.push(host.spawn("a", f.builder()).await.unwrap());
    }
    let b1 = host.spawn("b", f.builder()).await.unwrap();
    let b2 = host.spawn("b", f.builder()).await.unwrap();
    // Two of a (its limit), then one of b (the global limit).
    a[0].client().await.unwrap();
    a[1].client().await.unwrap();
    b1.client().await.unwrap();
    let m = host.metrics().await.unwrap();
    assert_eq!((m.running, m.queued), (3, 3), "{m:?}");
    assert_eq!(m.by_tenant["a"].running, 2);
    assert_eq!(m.by_tenant["a"].queued, 2);
    assert!(matches!(a[2].status(), SessionStatus::Queued));
    // Ending one of a's sessions frees a slot; tenants take turns, and
    // a is at its limit again after one, so b's second goes next... unless
    // a's turn comes first: either way the limits hold.
    let mut events = host.events();
    let c = a[0].client().await.unwrap();
    let pid = c.pid().unwrap();
    c.shutdown().await;
    drop(c);
    assert!(a[0].outcome().await.is_success());
    f.assert_gone(pid).await;
    // The freed slot is refilled at once.
    next_event(&mut events, |e| {
        matches!(e, HostEvent::Admitted { .. }).then_some(())
    })
    .await;
    let m = host.metrics().await.unwrap();
    assert_eq!(m.running, 3, "{m:?}");
    assert!(m.by_tenant["a"].running <= 2, "{m:?}");
    assert_eq!(m.queued, 2, "{m:?}");
    let _ = b2;
    let report = host
        .drain(claude_agent::host::DrainOptions::new(SOON))
        .await;
    assert_eq!(report.running, 3);
    assert_eq!(report.cancelled_queued, 2);
    assert_eq!(report.killed_at_deadline, 0);
}

#[tokio::test]
async fn queue_bounds_lookup_and_cancel() {
    let f = fake(quiet());
    let host = Host::start(
        HostConfig::new()
            .max_sessions(1)
            .max_queued(3)
            .max_queued_per_tenant(2),
    )
    .await
    .unwrap();
    let running = host.spawn("a", f.builder()).await.unwrap();
    running.client().await.unwrap();
    let q1 = host.spawn("a", f.builder()).await.unwrap();
    let _q2 = host.spawn("a", f.builder()).await.unwrap();
    let err = host.spawn("a", f.builder()).await.unwrap_err();
    assert!(
        matches!(err, HostError::TenantQueueFull { limit: 2, .. }),
        "{err}"
    );
    let _q3 = host.spawn("b", f.builder()).await.unwrap();
    let err = host.spawn("c", f.builder()).await.unwrap_err();
    assert!(matches!(err, HostError::QueueFull { limit: 3 }), "{err}");

    // Lookup by id.
    let found = host.get(q1.id()).await.expect("queued session found");
    assert_eq!(found.tenant(), "a");
    assert_eq!(host.sessions().await.unwrap().len(), 4);

    // A queued session cancelled leaves the queue without ever starting.
    q1.cancel();
    let out = q1.outcome().await;
    assert!(matches!(out.failure, Some(Failure::Cancelled)));
    assert!(out.report.is_none());
    assert!(host.get(q1.id()).await.is_none());
    let err = q1.client().await.unwrap_err();
    assert!(matches!(err, HostError::Ended { .. }), "{err}");

    // A running session cancelled gets an ordered shutdown.
    let pid = running.client().await.unwrap().pid().unwrap();
    running.cancel();
    let out = running.outcome().await;
    assert!(
        matches!(out.failure, Some(Failure::Cancelled)),
        "{:?}",
        out.failure
    );
    assert_eq!(
        out.report.as_ref().unwrap().escalation,
        claude_agent::runtime::Escalation::None
    );
    f.assert_gone(pid).await;
    let m = host.metrics().await.unwrap();
    assert_eq!(m.rejected, 2);
    assert_eq!(m.failed_by_cause["cancelled"], 2);
    host.drain(claude_agent::host::DrainOptions::new(SOON))
        .await;
    let err = host.spawn("a", f.builder()).await.unwrap_err();
    assert!(matches!(err, HostError::Draining));
}

#[tokio::test]
async fn a_session_that_cannot_start_fails_alone() {
    let f = fake(quiet());
    let host = Host::start(HostConfig::new()).await.unwrap();
    let missing =
        ClientBuilder::new(claude_agent::options::Options::new().cli_path("/nonexistent/claude"));
    let bad = host.submit("a", missing, "hi").await.unwrap();
    let good = host.submit("a", f.builder(), "hi").await.unwrap();
    let out = bad.outcome().await;
    assert!(
        // The cause survives as a typed error, not a string.
        matches!(&out.failure, Some(Failure::Connect(e)) if e.is_cli_not_found()),
        "{:?}",
        out.failure
    );
    let out = good.outcome().await;
    assert!(out.is_success(), "{:?}", out.failure);
    assert_eq!(out.result.as_ref().unwrap().result.as_deref(), Some("done"));
    assert!(out.turn_latency.is_some());
    let mut events = host.events();
    host.drain(claude_agent::host::DrainOptions::new(SOON))
        .await;
    let report = next_event(&mut events, |e| match e {
        HostEvent::Drained(r) => Some(r.clone()),
        _ => None,
    })
    .await;
    assert_eq!(report.running, 0);
}

#[tokio::test]
async fn error_results_fail_their_job_by_cause() {
    // An API failure as the CLI reports it (subtype success, is_error true),
    // and an error subtype without is_error.
    let mut api_error = common::result("success", "API Error: 500");
    api_error["is_error"] = serde_json::json!(true);
    let mut max_turns = common::result("error_max_turns", "");
    max_turns.as_object_mut().unwrap().remove("is_error");
    let host = Host::start(HostConfig::new()).await.unwrap();
    let mut handles = Vec::new();
    let mut fakes = Vec::new();
    for frame in [api_error, max_turns] {
        let f = fake(
            Script::new()
                .expect_initialize()
                .expect("user", None)
                .emit(frame),
        );
        handles.push(host.submit("a", f.builder(), "go").await.unwrap());
        fakes.push(f);
    }
    let mut subtypes = Vec::new();
    for h in &handles {
        match h.outcome().await.failure.clone() {
            Some(Failure::ErrorResult { subtype }) => subtypes.push(subtype),
            other => panic!("expected an error result, got {other:?}"),
        }
    }
    assert_eq!(subtypes, ["success", "error_max_turns"]);
    let m = host.metrics().await.unwrap();
    assert_eq!(m.failed_by_cause["error_result"], 2);
}
