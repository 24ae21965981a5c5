//! A Host restart with a session store: the crashed session's mirrored
//! transcript is flushed before the restart and written back where the CLI
//! reads it, so the restarted `--resume` finds its session even though the
//! crashed CLI left no local file. The store's first append fails, so the
//! entries land only on the retry: the restart must wait for the flush.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "store_mirror/stores.rs"]
#[allow(dead_code)] // only `Flaky` is used here
mod stores;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::host::Host;
use claude_agent::host::{Backoff, HostConfig, RestartPolicy};
use claude_agent::store::{SessionKey, SessionStore, project_key_for};
use claude_agent_testkit::Script;
use common::{SOON, init, mirrored_entry, quick_builder, resume_reading, resuming_cli};
use serde_json::{Value, json};
use stores::Flaky;

const SESSION: &str = "6c1f4a2e-93b0-4d57-8e21-5a0b7c9d3e44";

fn entry(n: u32, text: &str) -> Value {
    mirrored_entry(SESSION, n, text)
}

/// The first CLI: mirrors its first turn's entries, then crashes mid-turn
/// without keeping a local session file (as if its disk were lost).
fn crash_after_mirroring(session_file: &Path) -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(init(SESSION))
        .emit(
            json!({"type": "transcript_mirror", "filePath": session_file,
            "entries": [entry(1, "first answer"), entry(2, "more of it")]}),
        )
        .crash("SEGV")
}

#[tokio::test]
async fn a_restart_resumes_from_the_store_when_the_local_session_file_is_gone() {
    let dir = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let project = project_key_for(cwd.path());
    let session_file = config
        .path()
        .join("projects")
        .join(&project)
        .join(format!("{SESSION}.jsonl"));
    let (options, first, resumed) = resuming_cli(
        dir.path(),
        &crash_after_mirroring(&session_file),
        &resume_reading(&session_file),
    );
    let options = options
        .cwd(cwd.path())
        .env("CLAUDE_CONFIG_DIR", config.path());
    // The first append fails and lands on its retry, after the restart's
    // backoff: only a restart that waits for the crashed session's mirror
    // to flush finds the entries in the store.
    let store = Arc::new(Flaky::new(1));
    let host = Host::start(
        HostConfig::new().restart(
            RestartPolicy::on_crash(1, Duration::from_secs(60))
                .with_backoff(Backoff::fixed(Duration::from_millis(10))),
        ),
    )
    .await
    .unwrap();
    let builder = quick_builder(options).session_store(store.clone());
    let job = host.submit("t", builder, "go").await.unwrap();
    let out = tokio::time::timeout(SOON, job.outcome()).await.unwrap();

    assert!(
        out.is_success(),
        "{:?} (resumed CLI stderr: {:?})",
        out.failure,
        out.report.as_ref().map(|r| &r.stderr_tail)
    );
    assert_eq!(out.restarts, 1);
    assert!(first.recorded_lines().iter().any(|l| l["type"] == "user"));
    let argv = resumed.recorded_argv().expect("the CLI was restarted");
    assert!(
        argv.iter().any(|a| *a == format!("--resume={SESSION}")),
        "{argv:?}"
    );
    let expected = [entry(1, "first answer"), entry(2, "more of it")];
    let key = SessionKey::new(project, SESSION);
    assert_eq!(store.load(&key).await.unwrap().unwrap(), expected);
    assert_eq!(store.calls(), 2, "one failed append, one retried");
    let restored: Vec<Value> = std::fs::read_to_string(&session_file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        restored, expected,
        "the store's entries, where the CLI reads"
    );
}
