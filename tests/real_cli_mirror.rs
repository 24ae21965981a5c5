//! The session store mirror with the real CLI: two turns mirrored into a
//! `FileStore` hold what the CLI wrote to its own session file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;
#[path = "real_cli_mirror/resume.rs"]
mod resume;

use std::sync::Arc;
use std::time::Duration;

use claude_agent::store::{FileStore, SessionKey, SessionStore, project_key_for};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, TURN, turn};
use serde_json::Value;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn two_turns_mirrored_into_a_file_store_match_the_cli_session_file() {
    let script = ModelScript::new()
        .reply(Reply::text("First answer."))
        .reply(Reply::text("Second answer."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(FileStore::new(dir.path()));
    let client = tokio::time::timeout(
        TURN,
        rig.builder(rig.options())
            .session_store(store.clone())
            .mirror_flush_deadline(Duration::from_secs(10))
            .connect(),
    )
    .await
    .unwrap()
    .unwrap();
    client.send("first question").await.unwrap();
    let (m1, r1) = turn(&client).await;
    assert!(
        !m1.iter().any(|m| m.kind().starts_with("transcript_mirror")),
        "mirror frames are not messages"
    );
    client.send("second question").await.unwrap();
    turn(&client).await;
    let session_id = r1.session_id.clone().unwrap();
    let pid = client.pid().unwrap();
    let report = tokio::time::timeout(TURN, client.shutdown()).await.unwrap();
    real_cli::assert_gone(pid).await;

    let project = project_key_for(rig.cwd.path());
    let path = rig
        .home
        .path()
        .join(".claude/projects")
        .join(&project)
        .join(format!("{session_id}.jsonl"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The CLI does not mirror its local request-cache lines
    // (`api-request`, `api-request-shape`, `api-request-blob`).
    let on_disk: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| !e["type"].as_str().unwrap_or("").starts_with("api-request"))
        .collect();
    let key = SessionKey::new(project, session_id);
    let stored = store
        .load(&key)
        .await
        .unwrap()
        .expect("the session in the store");
    let stored: Vec<Value> = stored.iter().map(|e| e.to_value().unwrap()).collect();
    let brief = |entries: &[Value]| -> Vec<String> {
        entries
            .iter()
            .map(|e| format!("{} {}", e["type"], e["uuid"]))
            .collect()
    };
    assert_eq!(
        brief(&stored),
        brief(&on_disk),
        "the store holds the CLI's session file, in order"
    );
    assert!(stored == on_disk, "every entry stored as the CLI wrote it");
    assert!(
        stored
            .iter()
            .any(|e| e.to_string().contains("Second answer.")),
        "both turns mirrored"
    );
    assert_eq!(report.mirror_unpersisted, Some(0), "{report:?}");
    assert!(
        report.mirror_persisted >= Some(stored.len() as u64),
        "{report:?}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn resume_from_the_store_after_the_config_dir_is_gone_sends_the_first_turns() {
    let dir = tempfile::tempdir().unwrap();
    resume::resume_after_config_loss(Arc::new(FileStore::new(dir.path()))).await;
}
