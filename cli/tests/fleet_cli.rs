//! `claude-agent submit` and `worker` on the machine's NATS and PostgreSQL:
//! bad job lines publish nothing, a job whose CLI always crashes lands in
//! the dead-letter subject with its exit code and stderr tail, a worker
//! refuses an incompatible existing stream, and a new job's session is
//! resumed only when a local session file (or the store) has it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;

use std::process::Command;

use claude_agent::fleet::async_nats;
use claude_agent::fleet::async_nats::jetstream::stream::{Config, RetentionPolicy};
use claude_agent::fleet::{Fleet, JobId, JobOutcome, JobSpec, StreamLayout};
use claude_agent::store::project_key_for;
use claude_agent_testkit::Script;
use common::{assistant, fake, result};
use fleet_common::*;
use serde_json::json;

fn one_turn() -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(assistant("done"))
        .emit(result("success", "done"))
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn bad_job_lines_get_one_error_each_and_nothing_is_published() {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("fleet-bad");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jobs.ndjson");
    std::fs::write(
        &path,
        [
            r#"{"tenant": "t", "prompt": "fine", "id": "a"}"#,
            r#"{"prompt": "no tenant"}"#,
            "not json",
            r#"{"tenant": "t", "prompt": "p", "permission_mode": "sideways"}"#,
            r#"{"tenant": "t", "prompt": "again", "id": "a"}"#,
        ]
        .join("\n"),
    )
    .unwrap();
    let out = submit(&nats, &prefix, &path, &["--wait", "--timeout", "5"]);
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let errors: Vec<&str> = stderr.lines().filter(|l| l.contains(": line ")).collect();
    assert_eq!(errors.len(), 4, "{stderr}");
    assert!(
        errors[0].ends_with("line 2: missing \"tenant\""),
        "{stderr}"
    );
    assert!(errors[1].contains("line 3: not a JSON object"), "{stderr}");
    assert!(
        errors[2].ends_with("line 4: unknown permission_mode \"sideways\""),
        "{stderr}"
    );
    assert!(
        errors[3].ends_with("line 5: the id \"a\" is also on line 1"),
        "{stderr}"
    );
    assert!(stderr.contains("nothing was published"), "{stderr}");
    // Validation came first: the queue was never even created.
    let js = async_nats::jetstream::new(async_nats::connect(&nats).await.unwrap());
    let layout = StreamLayout::with_prefix(&prefix);
    assert!(js.get_stream(&layout.jobs_stream).await.is_err());
}

#[tokio::test]
#[ignore = "needs NATS and PostgreSQL"]
async fn a_job_whose_cli_always_crashes_is_dead_lettered_with_exit_code_and_stderr_tail() {
    let (Some(nats), Some(store)) = (shared_nats(), postgres_url()) else {
        return;
    };
    let prefix = unique("fleet-dead");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let ok = fake(one_turn());
    let crash = Script::new()
        .expect_initialize()
        .expect("user", None)
        .stderr("fatal: the disk is on fire")
        .exit(7)
        .install(ok.dir.path())
        .unwrap();
    let crash_script = crash
        .env
        .iter()
        .find(|(k, _)| k == "FAKE_CLAUDE_SCRIPT")
        .unwrap()
        .1
        .clone();
    let tenant = unique("tenant");
    let jobs = write_jobs(
        ok.dir.path(),
        &[
            json!({"tenant": tenant, "prompt": "boom", "id": "boom", "env": {"FAKE_CLAUDE_SCRIPT": crash_script}}),
            json!({"tenant": tenant, "prompt": "fine", "id": "fine"}),
        ],
    );
    let worker = Worker::spawn(
        &nats,
        &prefix,
        &store,
        &ok.cli.program,
        &ok.cli.env,
        &["--max-deliveries", "2"],
    );
    let out = submit(
        &nats,
        &prefix,
        &jobs,
        &["--wait", "--timeout", "60", "--max-deliveries", "2"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}\n{}", worker.stderr());
    let lines = json_lines(&out);
    let summary = lines.last().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(
        (
            summary["jobs"].as_u64(),
            summary["completed"].as_u64(),
            summary["failed"].as_u64()
        ),
        (Some(2), Some(1), Some(1)),
        "{summary}"
    );
    assert_eq!(
        summary["failed_by_cause"],
        json!({"crashed": 1}),
        "{summary}"
    );
    assert_eq!(summary["duplicates"], 0);
    let failure = &summary["failures"][0];
    assert_eq!(
        (
            failure["job_id"].as_str(),
            failure["dead_lettered"].as_bool()
        ),
        (Some("boom"), Some(true)),
        "{failure}"
    );
    assert_eq!(failure["exit"]["code"], 7, "{failure}");

    let fleet = Fleet::connect(&nats, StreamLayout::with_prefix(&prefix))
        .await
        .unwrap();
    let letters = fleet.dead_letters().await.unwrap();
    assert_eq!(letters.len(), 1, "{letters:?}");
    let letter = &letters[0];
    assert_eq!(letter.job_id.as_str(), "boom");
    assert_eq!(
        (letter.cause.as_str(), letter.deliveries, letter.exit_code),
        ("crashed", 2, Some(7)),
        "{letter:?}"
    );
    assert!(
        letter
            .stderr_tail
            .iter()
            .any(|l| l.contains("fatal: the disk is on fire")),
        "{letter:?}"
    );
    assert_eq!(letter.job["prompt"], "boom");
    // The first delivery was retried, not recorded.
    let events = worker.events();
    assert!(
        events
            .iter()
            .any(|e| e["kind"] == "job_retry" && e["job_id"] == "boom" && e["delivery"] == 1),
        "{events:?}"
    );
}

#[tokio::test]
#[ignore = "needs NATS and PostgreSQL"]
async fn a_worker_refuses_an_existing_jobs_stream_that_is_not_a_work_queue() {
    let (Some(nats), Some(store)) = (shared_nats(), postgres_url()) else {
        return;
    };
    let prefix = unique("fleet-incompat");
    let layout = StreamLayout::with_prefix(&prefix);
    let js = async_nats::jetstream::new(async_nats::connect(&nats).await.unwrap());
    js.create_stream(Config {
        name: layout.jobs_stream.clone(),
        subjects: vec![layout.jobs_subject.clone()],
        retention: RetentionPolicy::Limits,
        ..Default::default()
    })
    .await
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args([
            "worker", "--queue", &nats, "--store", &store, "--prefix", &prefix,
        ])
        .output()
        .unwrap();
    js.delete_stream(&layout.jobs_stream).await.unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("the existing stream {} is incompatible: retention is limits, this layout needs workqueue", layout.jobs_stream)),
        "{stderr}"
    );
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn a_redelivered_jobs_session_is_resumed_from_the_session_file_its_dead_attempt_left_and_a_new_job_starts_fresh()
 {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("fleet-local");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let ok = fake(one_turn());
    let store_dir = ok.dir.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    let store = format!("file://{}", store_dir.display());
    let tenant = unique("tenant");
    // A worker on this machine took "crashed-here" and died after its CLI
    // wrote the session file, before anything reached the store: the job
    // is delivered, never acked, and its session file is left behind.
    let layout = StreamLayout::with_prefix(&prefix).ack_wait(std::time::Duration::from_secs(1));
    let fleet = Fleet::connect(&nats, layout).await.unwrap();
    for (id, prompt) in [("crashed-here", "again"), ("never-ran", "new")] {
        let job =
            JobSpec::parse(&json!({"tenant": tenant, "prompt": prompt, "id": id}).to_string());
        fleet.submit(job.unwrap()).await.unwrap();
    }
    let consumer = fleet.consumer().await.unwrap();
    let mut first = consumer.fetch().max_messages(1).messages().await.unwrap();
    let taken = futures::StreamExt::next(&mut first).await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&taken.payload).contains("crashed-here"));
    let home = tempfile::tempdir().unwrap();
    let cwd = home.path().join("work");
    std::fs::create_dir_all(&cwd).unwrap();
    let project = home
        .path()
        .join(".claude")
        .join("projects")
        .join(project_key_for(&cwd.canonicalize().unwrap()));
    std::fs::create_dir_all(&project).unwrap();
    let local = JobId::new("crashed-here").unwrap().session_uuid();
    std::fs::write(project.join(format!("{local}.jsonl")), "{}\n").unwrap();
    let worker = Worker::spawn_in(
        home,
        &nats,
        &prefix,
        &store,
        &ok.cli.program,
        &ok.cli.env,
        &["--ack-wait", "1"],
    );
    // Redelivered after the ack wait: starting it with `--session-id`
    // would be refused as a session in use, so it resumes.
    let both =
        |e: &[serde_json::Value]| e.iter().filter(|v| v["kind"] == "job_recorded").count() == 2;
    assert!(worker.wait_for(PATIENCE, both), "{}", worker.stderr());
    let started: Vec<(String, bool, String, u64)> = worker
        .events()
        .iter()
        .filter(|e| e["kind"] == "job_started")
        .map(|e| {
            (
                e["job_id"].as_str().unwrap().to_owned(),
                e["resume"].as_bool().unwrap(),
                e["session_id"].as_str().unwrap().to_owned(),
                e["delivery"].as_u64().unwrap(),
            )
        })
        .collect();
    let fresh = JobId::new("never-ran").unwrap().session_uuid();
    assert!(
        started.contains(&("crashed-here".into(), true, local, 2)),
        "{started:?}"
    );
    assert!(
        started.contains(&("never-ran".into(), false, fresh, 1)),
        "{started:?}"
    );
    worker.signal(libc::SIGTERM);
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn an_outcome_already_recorded_for_a_job_id_stays_the_only_one_when_the_job_runs_again() {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("fleet-once");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let fleet = Fleet::connect(&nats, StreamLayout::with_prefix(&prefix))
        .await
        .unwrap();
    // The outcome of an earlier run of job "again", recorded once, then
    // refused a second time by the server (no look-up on our side).
    let tenant = unique("tenant");
    let id = JobId::new("again").unwrap();
    let earlier = JobOutcome::failed(
        id.clone(),
        &tenant,
        "earlier",
        "the first run",
        1,
        "w-earlier",
    );
    assert!(fleet.record(&earlier).await.unwrap());
    assert!(!fleet.record(&earlier).await.unwrap());
    // The same id submitted again after the jobs stream forgot it (here:
    // never saw it) is delivered once, runs, and records nothing new.
    let ok = fake(one_turn());
    let store_dir = ok.dir.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    let store = format!("file://{}", store_dir.display());
    let worker = Worker::spawn(&nats, &prefix, &store, &ok.cli.program, &ok.cli.env, &[]);
    let job = JobSpec::parse(&json!({"tenant": tenant, "prompt": "p", "id": "again"}).to_string());
    fleet.submit(job.unwrap()).await.unwrap();
    let recorded = |e: &[serde_json::Value]| e.iter().any(|v| v["kind"] == "job_recorded");
    assert!(worker.wait_for(PATIENCE, recorded), "{}", worker.stderr());
    let event = worker
        .events()
        .into_iter()
        .find(|v| v["kind"] == "job_recorded")
        .unwrap();
    assert_eq!(event["completed"], true, "{event}");
    assert_eq!(event["already_recorded"], true, "{event}");
    let outcome = fleet.outcome(&id, PATIENCE).await.unwrap();
    assert_eq!(outcome.worker, "w-earlier");
    let js = async_nats::jetstream::new(async_nats::connect(&nats).await.unwrap());
    let mut results = js
        .get_stream(&StreamLayout::with_prefix(&prefix).results_stream)
        .await
        .unwrap();
    assert_eq!(results.info().await.unwrap().state.messages, 1);
    worker.signal(libc::SIGTERM);
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn a_job_whose_cli_exits_before_initialize_has_its_exit_code_in_the_outcome() {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("fleet-noinit");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let broken = fake(Script::new().stderr("fatal: no config").exit(5));
    let store = format!("file://{}", broken.dir.path().join("store").display());
    let jobs = write_jobs(
        broken.dir.path(),
        &[json!({"tenant": unique("tenant"), "prompt": "p", "id": "noinit"})],
    );
    let worker = Worker::spawn(
        &nats,
        &prefix,
        &store,
        &broken.cli.program,
        &broken.cli.env,
        &["--max-deliveries", "1"],
    );
    let out = submit(
        &nats,
        &prefix,
        &jobs,
        &["--wait", "--timeout", "60", "--max-deliveries", "1"],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}\n{}", worker.stderr());
    let lines = json_lines(&out);
    let outcome = lines.iter().find(|l| l["kind"] == "outcome").unwrap();
    assert_eq!(outcome["cause"], "connect", "{outcome}");
    assert!(
        outcome["message"].as_str().unwrap().contains("exit code 5"),
        "{outcome}"
    );
    assert_eq!(outcome["exit_code"], 5, "{outcome}");
    assert_eq!(outcome["stderr_tail"][0], "fatal: no config", "{outcome}");
    let failure = &lines.last().unwrap()["failures"][0];
    assert_eq!(failure["exit"]["code"], 5, "{failure}");
}
