//! A session whose model started a subagent, restored from a session store
//! with the real CLI on a clean config dir: the subagent's transcript comes
//! back under its subpath, as the CLI wrote it, and the resumed session goes
//! on with the main conversation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use claude_agent::store::{FileStore, SessionStore, project_key_for};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, TURN, turn};
use serde_json::{Value, json};

/// The subagent transcripts under `session_dir`, relative to it, with
/// their parsed lines (the CLI's request-cache lines, which it does not
/// mirror, left out).
fn subagent_files(session_dir: &Path) -> Vec<(PathBuf, Vec<Value>)> {
    let dir = session_dir.join("subagents");
    let Ok(read) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<_> = read
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| {
            let lines = std::fs::read_to_string(&p)
                .unwrap()
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .filter(|e| !e["type"].as_str().unwrap_or("").starts_with("api-request"))
                .collect();
            (p.strip_prefix(session_dir).unwrap().to_path_buf(), lines)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// The `.meta.json` sidecars beside the subagent transcripts, parsed.
fn sidecars(session_dir: &Path) -> Vec<(PathBuf, Value)> {
    let Ok(read) = std::fs::read_dir(session_dir.join("subagents")) else {
        return Vec::new();
    };
    let mut files: Vec<_> = read
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(".meta.json"))
        .map(|p| {
            let meta = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (p.strip_prefix(session_dir).unwrap().to_path_buf(), meta)
        })
        .collect();
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_session_with_a_subagent_restores_from_the_store_subagent_included() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "say hello", "subagent_type": "general-purpose",
                   "prompt": "SUBAGENT-9: say hello"}),
        ))
        .reply(Reply::text("The agent said hello."))
        .reply_for_prompt("SUBAGENT-9", Reply::text("Hello from the subagent."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(FileStore::new(dir.path()));
    let connect = |options| {
        let builder = rig.builder(options).session_store(store.clone());
        async move {
            tokio::time::timeout(TURN, builder.connect())
                .await
                .unwrap()
                .unwrap()
        }
    };

    let first = connect(rig.options()).await;
    first.send("start an agent").await.unwrap();
    let (_, r1) = turn(&first).await;
    assert_eq!(
        r1.result.as_deref(),
        Some("The agent said hello."),
        "{r1:?}"
    );
    let id = r1.session_id.clone().unwrap();
    let report = tokio::time::timeout(TURN, first.shutdown()).await.unwrap();
    assert_eq!(report.mirror_unpersisted, Some(0), "{report:?}");

    let project = project_key_for(rig.cwd.path());
    let config = rig.home.path().join(".claude");
    let session_dir = config.join("projects").join(&project).join(&id);
    let written = subagent_files(&session_dir);
    assert!(!written.is_empty(), "the CLI wrote a subagent transcript");
    assert!(
        written[0]
            .1
            .iter()
            .any(|e| e.to_string().contains("Hello from the subagent.")),
        "{written:?}"
    );
    let metas = sidecars(&session_dir);
    assert_eq!(
        metas.len(),
        written.len(),
        "the CLI wrote each agent's .meta.json"
    );
    let subkeys = store.list_subkeys(&project, &id).await.unwrap();
    assert_eq!(subkeys.len(), written.len(), "{subkeys:?}");

    std::fs::remove_dir_all(&config).unwrap();
    let second = connect(rig.options().resume(&id)).await;
    // Materialized before the spawn: the files are there once connected.
    assert_eq!(
        subagent_files(&session_dir),
        written,
        "the subagent transcripts come back as the CLI wrote them"
    );
    assert_eq!(
        sidecars(&session_dir),
        metas,
        "each agent's .meta.json comes back from its mirrored agent_metadata entry"
    );
    second.send("go on").await.unwrap();
    turn(&second).await;
    tokio::time::timeout(TURN, second.shutdown()).await.unwrap();
    // The CLI may send other tool-bearing requests of its own; the one
    // that answers "go on" carries the history.
    let history = rig
        .server
        .main_requests()
        .iter()
        .map(|r| r.body["messages"].to_string())
        .find(|m| m.contains("go on"))
        .expect("a model request for the resumed turn");
    for part in ["start an agent", "The agent said hello.", "go on"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
}
