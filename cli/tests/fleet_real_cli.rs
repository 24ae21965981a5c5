//! A conversation through the fleet with the real CLI against the offline
//! scripted model: its first turn runs on one worker process, its second
//! (a job naming the first's `session_id`) on another with its own HOME,
//! which resumes from the PostgreSQL store, so the second model request
//! carries the first turn. And a job whose worker is SIGKILLed mid-turn
//! resumes on another worker from what the store kept of the dead attempt.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;
#[path = "../../tests/real_cli/mod.rs"]
mod real_cli;

use claude_agent::store::{SessionKey, open_store};
use claude_agent_testkit::model::{ModelScript, ModelServer, Reply};
use fleet_common::*;
use serde_json::{Value, json};

fn only_outcome(out: &std::process::Output, worker: &Worker) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{out:?}\n{:?}\n{}",
        worker.events(),
        worker.stderr()
    );
    let lines = json_lines(out);
    let outcomes: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "outcome").collect();
    assert_eq!(outcomes.len(), 1, "{lines:?}");
    assert_eq!(lines.last().unwrap()["duplicates"], 0);
    outcomes[0].clone()
}

// Multi-threaded: the model server answers while this thread waits on
// the worker and submit processes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI, NATS and PostgreSQL"]
async fn a_second_turn_on_another_worker_resumes_from_the_store_and_sees_the_first() {
    let Some(cli) = real_cli::real_cli() else {
        return;
    };
    let (Some(nats), Some(store)) = (shared_nats(), postgres_url()) else {
        return;
    };
    let prefix = unique("fleet-conv");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::text("Noted: pineapple."))
            .reply(Reply::text("It was pineapple.")),
    )
    .await
    .unwrap();
    let env = server.env();
    let tenant = unique("tenant");
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let args = ["--concurrency", "1"];

    let mut first_worker = Worker::spawn(&nats, &prefix, &store, &cli, &env, &args);
    let jobs = write_jobs(
        one.path(),
        &[json!({"tenant": tenant, "prompt": "remember pineapple", "id": "turn-1"})],
    );
    let first = only_outcome(
        &submit(&nats, &prefix, &jobs, &["--wait", "--timeout", "90"]),
        &first_worker,
    );
    assert_eq!(
        first["completed"],
        true,
        "{first}\n{}",
        first_worker.stderr()
    );
    assert_eq!(first["worker"], json!(first_worker.name));
    assert!(first["mirror_persisted"].as_u64() > Some(0), "{first}");
    let session = first["session_id"].as_str().unwrap().to_owned();
    first_worker.signal(libc::SIGTERM);
    assert_eq!(first_worker.wait_exit(PATIENCE).code(), Some(143));

    let mut second_worker = Worker::spawn(&nats, &prefix, &store, &cli, &env, &args);
    let jobs = write_jobs(
        two.path(),
        &[
            json!({"tenant": tenant, "prompt": "what was it?", "id": "turn-2", "session_id": session}),
        ],
    );
    let second = only_outcome(
        &submit(&nats, &prefix, &jobs, &["--wait", "--timeout", "90"]),
        &second_worker,
    );
    assert_eq!(
        second["completed"],
        true,
        "{second}\n{}",
        second_worker.stderr()
    );
    assert_eq!(second["worker"], json!(second_worker.name));
    assert_eq!(second["result"], "It was pineapple.");
    second_worker.signal(libc::SIGTERM);
    assert_eq!(second_worker.wait_exit(PATIENCE).code(), Some(143));

    let main = server.main_requests();
    assert_eq!(main.len(), 2, "{main:?}");
    let history = main[1].body["messages"].to_string();
    for part in ["remember pineapple", "Noted: pineapple.", "what was it?"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
    let store = open_store(&store).await.unwrap();
    store
        .delete(&SessionKey::new(tenant, session))
        .await
        .unwrap();
}

// Multi-threaded: the model server answers while this thread waits on
// the worker processes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI, NATS and PostgreSQL"]
async fn a_job_whose_worker_was_sigkilled_mid_turn_resumes_on_another_worker_and_the_model_sees_the_dead_attempt()
 {
    let Some(cli) = real_cli::real_cli() else {
        return;
    };
    let (Some(nats), Some(store_url)) = (shared_nats(), postgres_url()) else {
        return;
    };
    let prefix = unique("fleet-killed");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    // The first attempt's model call never answers: its turn is held open
    // until the worker dies.
    let server = ModelServer::start(
        ModelScript::new()
            .reply(Reply::Hang {
                blocks_before: Vec::new(),
            })
            .reply(Reply::text("Noted, again.")),
    )
    .await
    .unwrap();
    let env = server.env();
    let tenant = unique("tenant");
    let id = "killed-mid-turn";
    let session = claude_agent::fleet::JobId::new(id).unwrap().session_uuid();
    let key = SessionKey::new(tenant.clone(), session.clone());
    let store = open_store(&store_url).await.unwrap();
    let args = ["--concurrency", "1", "--ack-wait", "1"];
    let dir = tempfile::tempdir().unwrap();

    let mut first = Worker::spawn(&nats, &prefix, &store_url, &cli, &env, &args);
    let jobs = write_jobs(
        dir.path(),
        &[json!({"tenant": tenant, "prompt": "remember pineapple", "id": id})],
    );
    let out = submit(&nats, &prefix, &jobs, &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Mid-turn: the model was asked, and the store holds the prompt (the
    // mirror persists within 1 s, turn or no turn).
    let asked = || !server.main_requests().is_empty();
    assert!(wait_until(PATIENCE, asked), "{}", first.stderr());
    let start = std::time::Instant::now();
    loop {
        let kept = store.load(&key).await.unwrap().unwrap_or_default();
        let text: String = kept
            .iter()
            .map(|e| e.to_value().unwrap().to_string())
            .collect();
        if text.contains("remember pineapple") {
            break;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "the prompt never reached the store"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(in_flight(&first.events()).contains(&id.to_owned()));
    first.signal(libc::SIGKILL);
    first.wait_exit(PATIENCE);
    let home = first.home.path().to_string_lossy().into_owned();
    assert!(
        wait_until(PATIENCE, || processes_with_env("HOME", &home).is_empty()),
        "the dead worker's CLI was left running"
    );

    // Another worker, its own HOME: nothing of the first attempt on disk.
    let mut second = Worker::spawn(&nats, &prefix, &store_url, &cli, &env, &args);
    let recorded = |e: &[Value]| e.iter().any(|v| v["kind"] == "job_recorded");
    assert!(second.wait_for(PATIENCE, recorded), "{}", second.stderr());
    let events = second.events();
    let started = events.iter().find(|e| e["kind"] == "job_started").unwrap();
    assert_eq!(
        (
            &started["delivery"],
            &started["resume"],
            &started["session_id"]
        ),
        (&json!(2), &json!(true), &json!(session)),
        "{started}"
    );
    let done = events.iter().find(|e| e["kind"] == "job_recorded").unwrap();
    assert_eq!(done["completed"], true, "{done}\n{}", second.stderr());
    second.signal(libc::SIGTERM);
    assert_eq!(second.wait_exit(PATIENCE).code(), Some(143));

    // The rerun's request holds the dead attempt's prompt and its own.
    let main = server.main_requests();
    assert_eq!(main.len(), 2, "{main:?}");
    let history = main[1].body["messages"].to_string();
    assert_eq!(
        history.matches("remember pineapple").count(),
        2,
        "{history:.1500}"
    );
    store.delete(&key).await.unwrap();
}
