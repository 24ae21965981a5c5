//! Host warm spares: CLIs started ahead of demand serve matching sessions
//! (no new start), a builder that does not match starts its own CLI,
//! spares count against `max_sessions`, and a drain shuts them down.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use claude_agent::host::Host;
use claude_agent::host::{DrainOptions, HostConfig, HostEvent, HostMetrics};
use claude_agent_actors::live_sessions;
use claude_agent_testkit::{Script, wait_until_gone};
use common::{SOON, fake};
use tokio::sync::broadcast;

/// Pids of this process's live CLIs labelled `label` (the template's
/// label, one per test: tests of one binary may share a process).
fn spare_pids(label: &str) -> Vec<u32> {
    live_sessions()
        .into_iter()
        .filter(|s| s.label.as_deref() == Some(label) && !s.closing)
        .filter_map(|s| s.pid)
        .collect()
}

/// Waits (bounded) until the host's counters satisfy `ok`.
async fn metrics_until(host: &Host, ok: impl Fn(&HostMetrics) -> bool) -> HostMetrics {
    let deadline = Instant::now() + SOON;
    loop {
        let m = host.metrics().await.unwrap();
        if ok(&m) {
            return m;
        }
        assert!(Instant::now() < deadline, "metrics never got there: {m:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

async fn started_pid(events: &mut broadcast::Receiver<HostEvent>) -> (Option<u32>, bool) {
    let mut spare = false;
    loop {
        match tokio::time::timeout(SOON, events.recv())
            .await
            .unwrap()
            .unwrap()
        {
            HostEvent::SpareTaken { .. } => spare = true,
            HostEvent::Started { pid, .. } => return (pid, spare),
            _ => {}
        }
    }
}

async fn assert_gone(pid: u32) {
    let gone = tokio::task::spawn_blocking(move || wait_until_gone(pid, SOON))
        .await
        .unwrap();
    assert!(gone, "CLI {pid} still running");
}

#[tokio::test]
async fn a_matching_session_gets_a_warm_spare_and_the_pool_refills() {
    let cli = fake(Script::new().expect_initialize().loop_turns("warm"));
    let host = Host::start(HostConfig::new().warm_spares(1, cli.builder().label("spare-refill")))
        .await
        .unwrap();
    let mut events = host.events();
    metrics_until(&host, |m| m.spares == 1).await;
    let spare = spare_pids("spare-refill");
    assert_eq!(spare.len(), 1);

    let h = host.spawn("t", cli.builder()).await.unwrap();
    let (pid, via_spare) = started_pid(&mut events).await;
    assert!(via_spare, "the session did not take the spare");
    assert_eq!(pid, Some(spare[0]), "the session runs on the spare's CLI");
    let client = h.client().await.unwrap();
    assert_eq!(client.pid(), Some(spare[0]));
    client.send("hi").await.unwrap();
    let m = metrics_until(&host, |m| m.spares == 1).await;
    assert_eq!((m.spares_used, m.running, m.live), (1, 1, 2), "{m:?}");
    // The refilled spare is another CLI.
    assert!(spare_pids("spare-refill").iter().any(|p| *p != spare[0]));
    let report = host.drain(DrainOptions::new(SOON)).await;
    assert_eq!((report.spares, report.spares_ended), (1, 1), "{report:?}");
    for pid in spare_pids("spare-refill") {
        assert_gone(pid).await;
    }
    assert_gone(spare[0]).await;
}

#[tokio::test]
async fn a_builder_that_does_not_match_cold_starts() {
    let cli = fake(Script::new().expect_initialize().loop_turns("x"));
    let host = Host::start(HostConfig::new().warm_spares(1, cli.builder().label("spare-nomatch")))
        .await
        .unwrap();
    let mut events = host.events();
    metrics_until(&host, |m| m.spares == 1).await;
    let spare = spare_pids("spare-nomatch");
    // Other options (a model), a callback, an extension (its hooks never
    // ran on the spare's connect): none can use the spare.
    struct Noop;
    impl claude_agent::extensions::Extension for Noop {
        fn name(&self) -> &str {
            "noop"
        }
    }
    let other_options = cli
        .builder()
        .grace(Duration::from_millis(301))
        .label("other");
    let with_callback = cli.builder().can_use_tool(
        |_req: claude_agent::protocol::PermissionRequest, _ctx| async {
            Ok(claude_agent::callbacks::allow())
        },
    );
    let with_extension = cli.builder().extension(Noop);
    for b in [other_options, with_callback, with_extension] {
        let h = host.spawn("t", b).await.unwrap();
        let (pid, via_spare) = started_pid(&mut events).await;
        assert!(!via_spare);
        assert_ne!(pid, Some(spare[0]));
        assert_eq!(h.client().await.unwrap().pid(), pid);
    }
    let m = host.metrics().await.unwrap();
    assert_eq!((m.spares_used, m.spares), (0, 1), "{m:?}");
    assert_eq!(spare_pids("spare-nomatch"), spare, "the spare is untouched");
    host.drain(DrainOptions::new(SOON)).await;
    assert_gone(spare[0]).await;
}

#[tokio::test]
async fn spares_count_against_max_sessions_and_give_way_to_sessions() {
    let cli = fake(Script::new().expect_initialize().loop_turns("x"));
    let host = Host::start(
        HostConfig::new()
            .max_sessions(2)
            .warm_spares(2, cli.builder().label("spare-quota")),
    )
    .await
    .unwrap();
    let mut events = host.events();
    let m = metrics_until(&host, |m| m.spares == 2).await;
    assert_eq!((m.live, m.running), (2, 0), "{m:?}");
    let spares = spare_pids("spare-quota");
    assert_eq!(spares.len(), 2);
    // Both slots are spares': a session they cannot serve takes one's
    // slot, and that spare is shut down before the session's CLI starts.
    let h = host
        .spawn("t", cli.builder().grace(Duration::from_millis(301)))
        .await
        .unwrap();
    let (pid, via_spare) = started_pid(&mut events).await;
    assert!(!via_spare);
    let left = spare_pids("spare-quota");
    assert_eq!(left.len(), 1, "one spare gave way: {left:?}");
    let evicted = *spares.iter().find(|p| !left.contains(p)).unwrap();
    assert_gone(evicted).await;
    let m = host.metrics().await.unwrap();
    assert_eq!((m.running, m.spares, m.live), (1, 1, 2), "{m:?}");
    // A matching session takes the other spare; no refill fits.
    let g = host.spawn("t", cli.builder()).await.unwrap();
    let (pid2, via_spare) = started_pid(&mut events).await;
    assert!(via_spare);
    assert_eq!(pid2, Some(left[0]));
    let m = host.metrics().await.unwrap();
    assert_eq!((m.running, m.spares, m.live), (2, 0, 2), "{m:?}");
    drop((h, g));
    let report = host.drain(DrainOptions::new(SOON)).await;
    assert_eq!(report.running, 2, "{report:?}");
    assert_eq!(report.spares, 0, "{report:?}");
    assert_gone(pid.unwrap()).await;
    assert_gone(left[0]).await;
}
