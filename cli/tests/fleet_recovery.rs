//! The fleet survives its parts dying: three worker processes and 200 jobs
//! with one worker SIGKILLed and one SIGTERMed mid-run, and a NATS server
//! stopped and restarted mid-run. Every job ends with exactly one recorded
//! outcome, and no CLI process is left.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;

use std::collections::HashMap;
use std::process::{Command, Stdio};

use claude_agent::fleet::{Fleet, StreamLayout};
use claude_agent_testkit::FakeCli;
use fleet_common::*;
use futures::StreamExt;
use serde_json::{Value, json};

fn script_of(cli: &FakeCli) -> String {
    cli.env
        .iter()
        .find(|(k, _)| k == "FAKE_CLAUDE_SCRIPT")
        .unwrap()
        .1
        .clone()
}

/// `submit --wait` started in the background.
fn submit_waiting(nats: &str, prefix: &str, jobs: &std::path::Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args([
            "submit",
            "--json",
            "--wait",
            "--timeout",
            "150",
            "--queue",
            nats,
            "--prefix",
            prefix,
        ])
        .arg("--jobs")
        .arg(jobs)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// How many outcomes the results stream holds per job id (read to its end).
async fn recorded_per_job(nats: &str, prefix: &str) -> HashMap<String, usize> {
    let fleet = Fleet::connect(nats, StreamLayout::with_prefix(prefix))
        .await
        .unwrap();
    let mut results = fleet.results().await.unwrap();
    let mut counts = HashMap::new();
    let read = async {
        while let Some(r) = results.next().await {
            let r = r.unwrap();
            *counts.entry(r.outcome.job_id.to_string()).or_default() += 1;
            if r.pending == 0 {
                break;
            }
        }
    };
    tokio::time::timeout(PATIENCE, read).await.unwrap();
    counts
}

fn summary_of(out: &std::process::Output) -> Value {
    let lines = json_lines(out);
    let summary = lines.last().cloned().unwrap_or_default();
    assert_eq!(summary["kind"], "summary", "{out:?}");
    summary
}

#[tokio::test]
#[ignore = "needs NATS and PostgreSQL"]
async fn two_hundred_jobs_on_three_workers_one_killed_one_terminated_each_job_one_outcome() {
    let (Some(nats), Some(store)) = (shared_nats(), postgres_url()) else {
        return;
    };
    let prefix = unique("fleet-kill");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let fast = turn_after(dir.path(), 20);
    let slow = turn_after(dir.path(), 2000);
    let (fast_script, slow_script) = (script_of(&fast), script_of(&slow));
    let tenant = unique("tenant");
    // Twelve slow jobs first: they fill every slot of the three workers,
    // so each worker is mid-turn when the test strikes.
    let jobs: Vec<Value> = (0..200)
        .map(|i| {
            if i < 12 {
                json!({"tenant": tenant, "prompt": "slow", "id": format!("slow-{i}"), "env": {"FAKE_CLAUDE_SCRIPT": slow_script}})
            } else {
                json!({"tenant": tenant, "prompt": "fast", "id": format!("fast-{i}")})
            }
        })
        .collect();
    let path = write_jobs(dir.path(), &jobs);
    let args = [
        "--concurrency",
        "4",
        "--ack-wait",
        "2",
        "--drain-deadline",
        "0.5",
    ];
    let spawn = || Worker::spawn(&nats, &prefix, &store, &fast.program, &fast.env, &args);
    let (mut killed, mut terminated, survivor) = (spawn(), spawn(), spawn());
    let submitter = submit_waiting(&nats, &prefix, &path);

    let slow_in_flight = |e: &[Value]| in_flight(e).iter().any(|id| id.starts_with("slow-"));
    assert!(
        killed.wait_for(PATIENCE, slow_in_flight),
        "{:?}",
        killed.events()
    );
    assert!(
        terminated.wait_for(PATIENCE, slow_in_flight),
        "{:?}",
        terminated.events()
    );
    killed.signal(libc::SIGKILL);
    let lost = in_flight(&killed.events());
    terminated.signal(libc::SIGTERM);
    assert_eq!(
        terminated.wait_exit(PATIENCE).code(),
        Some(143),
        "{}",
        terminated.stderr()
    );
    killed.wait_exit(PATIENCE);
    let released: Vec<String> = terminated
        .events()
        .iter()
        .filter(|e| e["kind"] == "job_released")
        .map(|e| e["job_id"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        released.iter().any(|id| id.starts_with("slow-")),
        "{:?}",
        terminated.events()
    );

    let out = tokio::task::spawn_blocking(move || submitter.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        survivor.stderr()
    );
    let summary = summary_of(&out);
    assert_eq!(
        (
            summary["jobs"].as_u64(),
            summary["completed"].as_u64(),
            summary["failed"].as_u64(),
            summary["duplicates"].as_u64()
        ),
        (Some(200), Some(200), Some(0), Some(0)),
        "{summary}"
    );
    let outcomes: HashMap<String, Value> = json_lines(&out)
        .into_iter()
        .filter(|l| l["kind"] == "outcome")
        .map(|l| (l["job_id"].as_str().unwrap().to_owned(), l))
        .collect();
    assert_eq!(outcomes.len(), 200);
    // What the dead worker had, and what the draining one gave back, ran
    // again elsewhere.
    for id in lost.iter().chain(&released) {
        let o = &outcomes[id];
        assert!(o["deliveries"].as_u64() >= Some(2), "{o}");
        assert_ne!(o["worker"], json!(killed.name), "{o}");
        assert_ne!(o["worker"], json!(terminated.name), "{o}");
    }
    // A slow job the survivor took first ran once: its turn (2 s)
    // outlasted the ack wait (2 s), and the progress marks kept it from
    // being delivered again.
    let started: Vec<Value> = [&killed, &terminated, &survivor]
        .iter()
        .flat_map(|w| w.events())
        .filter(|e| e["kind"] == "job_started")
        .collect();
    let firsts: Vec<&Value> = started
        .iter()
        .filter(|e| e["delivery"] == 1 && e["job_id"].as_str().unwrap().starts_with("slow-"))
        .filter(|e| survivor.events().contains(e))
        .collect();
    for first in firsts {
        let again = started
            .iter()
            .filter(|e| e["job_id"] == first["job_id"])
            .count();
        assert_eq!(again, 1, "{first} was delivered again");
    }
    // Exactly one recorded outcome per job id in the stream itself.
    let counts = recorded_per_job(&nats, &prefix).await;
    assert_eq!(counts.len(), 200);
    assert!(counts.values().all(|n| *n == 1), "{counts:?}");

    survivor.signal(libc::SIGTERM);
    let mut survivor = survivor;
    assert_eq!(survivor.wait_exit(PATIENCE).code(), Some(143));
    let leftovers = |script: &str| processes_with_env("FAKE_CLAUDE_SCRIPT", script);
    assert!(
        wait_until(PATIENCE, || leftovers(&fast_script).is_empty()
            && leftovers(&slow_script).is_empty()),
        "CLIs left: {:?} {:?}",
        leftovers(&fast_script),
        leftovers(&slow_script)
    );
}

#[tokio::test]
#[ignore = "needs nats-server and PostgreSQL"]
async fn nats_restarted_mid_run_workers_reconnect_and_every_job_completes() {
    let Some(store) = postgres_url() else { return };
    let Some(mut server) = NatsServer::start() else {
        return;
    };
    let nats = server.url();
    let prefix = unique("fleet-restart");
    let dir = tempfile::tempdir().unwrap();
    let fake = turn_after(dir.path(), 100);
    let tenant = unique("tenant");
    let jobs: Vec<Value> = (0..60)
        .map(|i| json!({"tenant": tenant, "prompt": "p", "id": format!("job-{i}")}))
        .collect();
    let path = write_jobs(dir.path(), &jobs);
    let args = ["--concurrency", "3", "--ack-wait", "2"];
    let workers = [
        Worker::spawn(&nats, &prefix, &store, &fake.program, &fake.env, &args),
        Worker::spawn(&nats, &prefix, &store, &fake.program, &fake.env, &args),
    ];
    let submitter = submit_waiting(&nats, &prefix, &path);
    let recorded = |e: &[Value]| e.iter().filter(|v| v["kind"] == "job_recorded").count();
    assert!(
        workers[0].wait_for(PATIENCE, |e| recorded(e) >= 5),
        "{:?}",
        workers[0].events()
    );
    let before: usize = workers.iter().map(|w| recorded(&w.events())).sum();
    assert!(before < 60, "the run ended before the restart");
    server.restart();

    let out = tokio::task::spawn_blocking(move || submitter.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}\n{}",
        String::from_utf8_lossy(&out.stderr),
        workers[0].stderr()
    );
    let summary = summary_of(&out);
    assert_eq!(
        (
            summary["jobs"].as_u64(),
            summary["completed"].as_u64(),
            summary["duplicates"].as_u64()
        ),
        (Some(60), Some(60), Some(0)),
        "{summary}"
    );
    // Both workers went on working after the restart.
    let after: usize = workers.iter().map(|w| recorded(&w.events())).sum();
    assert!(after > before, "{before} -> {after}");
    let counts = recorded_per_job(&nats, &prefix).await;
    assert_eq!(counts.len(), 60);
    assert!(counts.values().all(|n| *n == 1), "{counts:?}");
    for mut w in workers {
        w.signal(libc::SIGTERM);
        assert_eq!(w.wait_exit(PATIENCE).code(), Some(143), "{}", w.stderr());
    }
}
