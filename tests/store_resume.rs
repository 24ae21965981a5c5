//! Resuming with a session store through the fake CLI: the session's
//! transcripts are written where the CLI reads them before it starts, and a
//! store that cannot load fails the connect before anything is spawned.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "store_mirror/stores.rs"]
#[allow(dead_code)] // the mirror tests' stores; only `Broken` is used here
mod stores;

use std::sync::Arc;
use std::time::Duration;

use claude_agent::client::ClientBuilder;
use claude_agent::store::{MemoryStore, SessionKey, SessionStore};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

const SESSION: &str = "0b7c3f0e-5a51-4d1c-9d55-1f4f5e2f6a01";

fn entry(n: u32) -> Value {
    json!({"type": "user", "uuid": format!("u-{n}"), "sessionId": SESSION, "n": n})
}

/// A fake CLI that only initializes, and a config dir for it.
struct World {
    fake: Fake,
    config: tempfile::TempDir,
}

fn world() -> World {
    World {
        fake: fake(Script::new().expect_initialize().expect_eof()),
        config: tempfile::tempdir().unwrap(),
    }
}

#[tokio::test]
async fn resume_with_a_store_writes_the_session_where_the_cli_reads_it_before_the_spawn() {
    let w = world();
    let store = Arc::new(MemoryStore::new());
    let cwd = tempfile::tempdir().unwrap();
    let project = claude_agent::store::project_key_for(cwd.path());
    let key = SessionKey::new(project.clone(), SESSION);
    store
        .append(&key, &[entry(1).into(), entry(2).into()])
        .await
        .unwrap();
    store
        .append(
            &key.clone().with_subpath("subagents/agent-7"),
            &[entry(10).into()],
        )
        .await
        .unwrap();
    let options = w
        .fake
        .options()
        .env("CLAUDE_CONFIG_DIR", w.config.path())
        .cwd(cwd.path())
        .resume(SESSION);
    let client = ClientBuilder::new(options)
        .grace(Duration::from_millis(300))
        .session_store(store.clone())
        .connect()
        .await
        .unwrap();
    let dir = w.config.path().join("projects").join(&project);
    let main = std::fs::read_to_string(dir.join(format!("{SESSION}.jsonl"))).unwrap();
    let lines: Vec<Value> = main
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, [entry(1), entry(2)]);
    let agent = dir.join(SESSION).join("subagents/agent-7.jsonl");
    assert!(std::fs::read_to_string(agent).unwrap().contains("u-10"));
    client.shutdown().await;
}

#[tokio::test]
async fn resume_fails_before_the_spawn_when_the_store_cannot_load() {
    let w = world();
    let options = w
        .fake
        .options()
        .env("CLAUDE_CONFIG_DIR", w.config.path())
        .resume(SESSION);
    let err = ClientBuilder::new(options)
        .session_store(Arc::new(stores::Broken))
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(err, claude_agent::Error::Resume(_)), "{err}");
    assert!(w.fake.received().is_empty(), "the CLI was never started");
}
