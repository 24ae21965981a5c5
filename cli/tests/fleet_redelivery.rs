//! A worker SIGKILLed mid-turn, through the binaries: its CLI has mirrored
//! part of the turn into the file store and holds the turn open when the
//! worker dies; the job is redelivered to a second worker with its own
//! HOME and CLI config dir (none of the first's local files). By default
//! (`"on_redelivery": "resume"`) the second worker restores the session
//! from the store and starts its CLI with `--resume`; a job that asks for
//! `"start_over"` runs in a fresh session and nothing is restored.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent::store::{SessionKey, SessionStore, open_store, project_key_for};
use claude_agent_testkit::{FakeCli, Script};
use common::{mirrored_entry, result, resume_reading};
use fleet_common::*;
use serde_json::{Value, json};

/// Stands for the session id in the first CLI's script: the wrapper puts
/// in the id the worker started it with.
const SESSION: &str = "@SESSION@";

/// The first attempt's CLI: mirrors two entries of its turn, then holds
/// the turn open (waits for a file nobody creates) until it is killed.
fn held_turn(projects: &Path, cue: &Path) -> Script {
    let file = projects.join("p").join(format!("{SESSION}.jsonl"));
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(json!({"type": "transcript_mirror", "filePath": file,
            "entries": [mirrored_entry(SESSION, 1, "step one"), mirrored_entry(SESSION, 2, "step two")]}))
        .step(json!({"op": "wait_file", "path": cue, "timeout_ms": PATIENCE.as_millis() as u64}))
}

/// A wrapper that runs `fake` with its script's session placeholder
/// replaced by the id in `--session-id=` or `--resume=`.
fn with_session_id(dir: &Path, fake: &FakeCli) -> PathBuf {
    let script = env_of(fake, "FAKE_CLAUDE_SCRIPT");
    let wrapper = dir.join("claude-session-wrapper.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --session-id=*) sid=\"${{a#--session-id=}}\";; \
             --resume=*) sid=\"${{a#--resume=}}\";; esac; done\n\
             sed \"s/{SESSION}/$sid/g\" '{script}' > '{script}.$$'\n\
             FAKE_CLAUDE_SCRIPT='{script}.$$' exec '{}' \"$@\"\n",
            fake.program.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}

fn env_of(fake: &FakeCli, key: &str) -> String {
    fake.env.iter().find(|(k, _)| k == key).unwrap().1.clone()
}

/// The first `kind` event of job `id`.
fn event(worker: &Worker, kind: &str, id: &str) -> Value {
    worker
        .events()
        .into_iter()
        .find(|e| e["kind"] == kind && e["job_id"] == id)
        .unwrap_or_else(|| panic!("no {kind} for {id}: {:?}", worker.events()))
}

/// Polls the store until `key` holds `n` entries (the mirror persists
/// within 1 s, mid-turn); returns them.
async fn stored(store: &dyn SessionStore, key: &SessionKey, n: usize) -> Vec<Value> {
    let end = Instant::now() + PATIENCE;
    loop {
        let entries = store.load(key).await.unwrap().unwrap_or_default();
        if entries.len() >= n || Instant::now() >= end {
            return entries.iter().map(|e| e.to_value().unwrap()).collect();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// What one run leaves for its assertions.
struct Redelivered {
    first_session: String,
    second: Worker,
    second_cli: FakeCli,
    second_projects: PathBuf,
    store: Arc<dyn SessionStore>,
    tenant: String,
    _scratch: tempfile::TempDir,
    _streams: StreamsGuard,
}

/// Submits job `id` (`extra` merged into it) through `claude-agent
/// submit`, SIGKILLs the worker that took it once its CLI is mid-turn with
/// two entries in the store, then lets a second worker with a fresh HOME
/// take the redelivery with `second` as its CLI's script (given the path
/// of the session file a resume restores) and waits for the outcome.
async fn kill_mid_turn_then_redeliver(
    nats: &str,
    id: &str,
    extra: Value,
    second: impl FnOnce(&Path) -> Script,
) -> Redelivered {
    let prefix = unique("fleet-redeliver");
    let streams = StreamsGuard {
        nats: nats.to_owned(),
        prefix: prefix.clone(),
    };
    let scratch = tempfile::tempdir().unwrap();
    let store_dir = scratch.path().join("store");
    std::fs::create_dir_all(&store_dir).unwrap();
    let store_url = format!("file://{}", store_dir.display());
    let store = open_store(&store_url).await.unwrap();
    let tenant = unique("tenant");
    let args = ["--ack-wait", "1", "--concurrency", "1"];

    let home1 = tempfile::tempdir().unwrap();
    let cue = scratch.path().join("never");
    let first_cli = held_turn(&home1.path().join(".claude").join("projects"), &cue)
        .install(scratch.path())
        .unwrap();
    let wrapper = with_session_id(scratch.path(), &first_cli);
    let mut first = Worker::spawn_in(
        home1,
        nats,
        &prefix,
        &store_url,
        &wrapper,
        &first_cli.env,
        &args,
    );

    let mut job = json!({"tenant": tenant, "prompt": "work", "id": id});
    job.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    let out = submit(nats, &prefix, &write_jobs(scratch.path(), &[job]), &[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        first.wait_for(PATIENCE, |e| in_flight(e).contains(&id.to_owned())),
        "{}",
        first.stderr()
    );
    let first_session = event(&first, "job_started", id)["session_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let key = SessionKey::new(tenant.clone(), first_session.clone());
    let kept = stored(store.as_ref(), &key, 2).await;
    assert_eq!(
        kept,
        [
            mirrored_entry(&first_session, 1, "step one"),
            mirrored_entry(&first_session, 2, "step two")
        ],
        "the first attempt mirrored its entries mid-turn"
    );
    // Mid-turn: its CLI still holds the turn open.
    assert!(in_flight(&first.events()).contains(&id.to_owned()));
    first.signal(libc::SIGKILL);
    first.wait_exit(PATIENCE);
    let record = env_of(&first_cli, "FAKE_CLAUDE_RECORD");
    assert!(
        wait_until(PATIENCE, || processes_with_env(
            "FAKE_CLAUDE_RECORD",
            &record
        )
        .is_empty()),
        "the dead worker's CLI was left running"
    );

    let home2 = tempfile::tempdir().unwrap();
    let cwd2 = home2.path().join("work");
    std::fs::create_dir_all(&cwd2).unwrap();
    let second_projects = home2
        .path()
        .join(".claude")
        .join("projects")
        .join(project_key_for(&cwd2.canonicalize().unwrap()));
    let second_cli = second(&second_projects.join(format!("{first_session}.jsonl")))
        .install(scratch.path())
        .unwrap();
    let second = Worker::spawn_in(
        home2,
        nats,
        &prefix,
        &store_url,
        &second_cli.program,
        &second_cli.env,
        &args,
    );
    let recorded = |e: &[Value]| e.iter().any(|v| v["kind"] == "job_recorded");
    assert!(second.wait_for(PATIENCE, recorded), "{}", second.stderr());
    Redelivered {
        first_session,
        second,
        second_cli,
        second_projects,
        store,
        tenant,
        _scratch: scratch,
        _streams: streams,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs NATS"]
async fn a_job_redelivered_after_its_worker_was_sigkilled_mid_turn_resumes_from_the_store_on_a_machine_without_its_files()
 {
    let Some(nats) = shared_nats() else { return };
    let id = "killed-resumes";
    let answer = |file: &Path| resume_reading(file);
    let run = kill_mid_turn_then_redeliver(&nats, id, json!({}), answer).await;
    let derived = claude_agent::fleet::JobId::new(id).unwrap().session_uuid();
    assert_eq!(
        run.first_session, derived,
        "a new job runs under its derived id"
    );
    let started = event(&run.second, "job_started", id);
    assert_eq!(
        (
            &started["delivery"],
            &started["resume"],
            &started["session_id"]
        ),
        (&json!(2), &json!(true), &json!(derived)),
        "{started}"
    );
    let argv = run.second_cli.recorded_argv().expect("the second CLI ran");
    assert!(argv.contains(&format!("--resume={derived}")), "{argv:?}");
    // The session file restored from the store holds what the first
    // attempt mirrored (and its CLI, replaying it, found it there).
    let restored = std::fs::read_to_string(run.second_projects.join(format!("{derived}.jsonl")))
        .expect("the session file was restored");
    let lines: Vec<Value> = restored
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mirrored = [
        mirrored_entry(&derived, 1, "step one"),
        mirrored_entry(&derived, 2, "step two"),
    ];
    assert_eq!(lines, mirrored);
    let done = event(&run.second, "job_recorded", id);
    assert_eq!(done["completed"], true, "{done}");
    let out = run.second_cli.recorded_lines();
    assert!(out.iter().any(|l| l["type"] == "user"), "{out:?}");
    run.second.signal(libc::SIGTERM);
    let _ = run
        .store
        .delete(&SessionKey::new(run.tenant, derived))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs NATS"]
async fn a_job_that_asks_to_start_over_runs_its_redelivery_in_a_fresh_session_and_restores_nothing()
{
    let Some(nats) = shared_nats() else { return };
    let id = "killed-starts-over";
    let plain = |_: &Path| {
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "from scratch"))
    };
    let extra = json!({"on_redelivery": "start_over"});
    let run = kill_mid_turn_then_redeliver(&nats, id, extra, plain).await;
    let derived = claude_agent::fleet::JobId::new(id).unwrap().session_uuid();
    assert_ne!(run.first_session, derived, "each delivery has a fresh id");
    let started = event(&run.second, "job_started", id);
    let second_session = started["session_id"].as_str().unwrap().to_owned();
    assert_eq!(
        (&started["delivery"], &started["resume"]),
        (&json!(2), &json!(false)),
        "{started}"
    );
    assert_ne!(second_session, run.first_session);
    let argv = run.second_cli.recorded_argv().expect("the second CLI ran");
    assert!(
        argv.contains(&format!("--session-id={second_session}")),
        "{argv:?}"
    );
    assert!(!argv.iter().any(|a| a.starts_with("--resume")), "{argv:?}");
    assert!(
        !run.second_projects
            .join(format!("{}.jsonl", run.first_session))
            .exists(),
        "nothing of the first attempt was restored"
    );
    let done = event(&run.second, "job_recorded", id);
    assert_eq!(done["completed"], true, "{done}");
    // The first attempt's entries stay in the store under its own id.
    let key = SessionKey::new(run.tenant.clone(), run.first_session.clone());
    assert_eq!(run.store.load(&key).await.unwrap().unwrap().len(), 2);
    run.second.signal(libc::SIGTERM);
    let _ = run.store.delete(&key).await;
}
