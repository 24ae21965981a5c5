//! A worker's drain cut short: a second SIGTERM during the drain sends the
//! running CLIs SIGTERM at once (instead of waiting out the grace and the
//! drain deadline), releases their jobs to other workers and exits with
//! the first signal's code.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;

use claude_agent::fleet::{Fleet, JobId, StreamLayout};
use fleet_common::*;
use serde_json::{Value, json};

fn has(kind: &'static str) -> impl Fn(&[Value]) -> bool {
    move |e: &[Value]| e.iter().any(|v| v["kind"] == kind)
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn a_second_sigterm_cuts_the_drain_short_and_releases_the_running_job() {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("fleet-drain");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    let store = format!("file://{}", store_dir.display());
    // A turn far longer than the test's patience, and a drain that would
    // wait for it: only the second signal can end this worker in time.
    let endless = turn_after(dir.path(), 3_600_000);
    let endless_script = endless
        .env
        .iter()
        .find(|(k, _)| k == "FAKE_CLAUDE_SCRIPT")
        .unwrap()
        .1
        .clone();
    let patient = [
        "--concurrency",
        "1",
        "--drain-deadline",
        "3600",
        "--grace",
        "3600",
        "--term-grace",
        "3600",
    ];
    let mut worker = Worker::spawn(
        &nats,
        &prefix,
        &store,
        &endless.program,
        &endless.env,
        &patient,
    );
    let path = write_jobs(
        dir.path(),
        &[json!({"tenant": "t", "prompt": "p", "id": "slow"})],
    );
    let out = submit(&nats, &prefix, &path, &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        worker.wait_for(PATIENCE, has("job_started")),
        "{}",
        worker.stderr()
    );
    assert!(
        wait_until(PATIENCE, || !processes_with_env(
            "FAKE_CLAUDE_SCRIPT",
            &endless_script
        )
        .is_empty()),
        "the CLI never ran"
    );

    worker.signal(libc::SIGTERM);
    assert!(
        worker.wait_for(PATIENCE, has("worker_draining")),
        "{}",
        worker.stderr()
    );
    worker.signal(libc::SIGTERM);
    assert_eq!(
        worker.wait_exit(PATIENCE).code(),
        Some(143),
        "{}",
        worker.stderr()
    );
    let events = worker.events();
    assert!(has("worker_hurried")(&events), "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| e["kind"] == "job_released" && e["job_id"] == "slow"),
        "{events:?}"
    );
    assert!(
        wait_until(PATIENCE, || processes_with_env(
            "FAKE_CLAUDE_SCRIPT",
            &endless_script
        )
        .is_empty()),
        "the CLI outlived its worker"
    );

    // Released, not lost: another worker runs it (its second delivery).
    let quick = turn_after(dir.path(), 0);
    let rescuer = Worker::spawn(&nats, &prefix, &store, &quick.program, &quick.env, &[]);
    let fleet = Fleet::connect(&nats, StreamLayout::with_prefix(&prefix))
        .await
        .unwrap();
    let outcome = fleet
        .outcome(&JobId::new("slow").unwrap(), PATIENCE)
        .await
        .unwrap();
    assert!(outcome.completed, "{outcome:?}");
    assert_eq!(outcome.deliveries, 2, "{outcome:?}");
    assert_eq!(outcome.worker, rescuer.name, "{outcome:?}");
    rescuer.signal(libc::SIGTERM);
}
