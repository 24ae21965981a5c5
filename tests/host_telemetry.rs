//! A host with telemetry: its sessions' spans and active-session metric
//! carry their tenant; restarts and admission waits are recorded.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod telemetry_common;

use std::time::Duration;

use claude_agent::host::Host;
use claude_agent::host::{Backoff, HostConfig, RestartPolicy};
use claude_agent::telemetry::{ADMISSION_WAIT, RESTARTS, SESSION_SPAN, SESSIONS_ACTIVE};
use claude_agent_testkit::Script;
use common::{SOON, fake};
use serde_json::json;
use telemetry_common::{attr_str, histogram, in_memory, named, sum};

#[tokio::test]
async fn hosted_sessions_are_traced_and_counted_by_tenant() {
    let mem = in_memory();
    let ok = fake(Script::new().expect_initialize().loop_turns("fine"));
    let crashing = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(
                json!({"type": "system", "subtype": "init", "session_id": "sess-T",
                         "cwd": "/", "tools": [], "model": "fake", "permissionMode": "default",
                         "apiKeySource": "none", "uuid": "u"}),
            )
            .crash("SEGV"),
    );
    let host = Host::start(
        HostConfig::new().telemetry(mem.telemetry()).restart(
            RestartPolicy::on_crash(1, Duration::from_secs(60))
                .with_backoff(Backoff::fixed(Duration::from_millis(1))),
        ),
    )
    .await
    .unwrap();
    let a = host.submit("acme", ok.builder(), "one").await.unwrap();
    let b = host
        .submit("zeta", crashing.builder(), "two")
        .await
        .unwrap();
    assert!(
        tokio::time::timeout(SOON, a.outcome())
            .await
            .unwrap()
            .is_success()
    );
    let out = tokio::time::timeout(SOON, b.outcome()).await.unwrap();
    assert_eq!(out.restarts, 1);

    assert_eq!(sum(&mem, RESTARTS, &[("tenant", "zeta")]), Some(1));
    assert_eq!(sum(&mem, SESSIONS_ACTIVE, &[("tenant", "acme")]), Some(0));
    assert_eq!(sum(&mem, SESSIONS_ACTIVE, &[("tenant", "zeta")]), Some(0));
    let (waits, _) = histogram(&mem, ADMISSION_WAIT, &[("tenant", "acme")]).unwrap();
    assert_eq!(waits, 1);
    let spans = mem.finished_spans();
    let sessions = named(&spans, SESSION_SPAN);
    // One for acme, two for zeta (the crash and the restart).
    let tenants: Vec<String> = sessions
        .iter()
        .filter_map(|s| attr_str(s, "tenant"))
        .collect();
    assert_eq!(
        tenants.iter().filter(|t| *t == "acme").count(),
        1,
        "{tenants:?}"
    );
    assert_eq!(
        tenants.iter().filter(|t| *t == "zeta").count(),
        2,
        "{tenants:?}"
    );
    mem.shutdown();
}
