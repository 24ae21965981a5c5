//! `continue_conversation`, `fork_session` and `resume_session_at` with a
//! session store, through the fake CLI: what is materialized before the
//! spawn and which flags the CLI gets.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::store::{MemoryStore, SessionKey, SessionStore, StoreEntry, project_key_for};
use claude_agent::{client::ClientBuilder, options::Options};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

const OLD: &str = "00000000-0000-4000-8000-00000000000a";
const NEW: &str = "00000000-0000-4000-8000-00000000000b";
const SIDECHAIN: &str = "00000000-0000-4000-8000-00000000000c";

fn entry(session: &str, n: u32, sidechain: bool) -> Value {
    json!({"type": "user", "uuid": format!("{session}-{n}"), "sessionId": session,
           "isSidechain": sidechain})
}

/// A fake CLI that only initializes, its config dir and cwd, and a store
/// holding `sessions` (appended in order, so the last is the newest) under
/// the cwd's project key.
struct World {
    fake: Fake,
    config: tempfile::TempDir,
    cwd: tempfile::TempDir,
    store: Arc<MemoryStore>,
}

impl World {
    async fn new(sessions: &[(&str, bool)]) -> World {
        let w = World {
            fake: fake(Script::new().expect_initialize().expect_eof()),
            config: tempfile::tempdir().unwrap(),
            cwd: tempfile::tempdir().unwrap(),
            store: Arc::new(MemoryStore::new()),
        };
        for &(id, sidechain) in sessions {
            let key = SessionKey::new(w.project(), id);
            let entries = [
                entry(id, 1, sidechain).into(),
                entry(id, 2, sidechain).into(),
            ];
            w.store.append(&key, &entries).await.unwrap();
        }
        w
    }

    fn project(&self) -> String {
        project_key_for(self.cwd.path())
    }

    fn options(&self) -> Options {
        self.fake
            .options()
            .env("CLAUDE_CONFIG_DIR", self.config.path())
            .cwd(self.cwd.path())
    }

    fn session_file(&self, id: &str) -> PathBuf {
        let dir = self.config.path().join("projects").join(self.project());
        dir.join(format!("{id}.jsonl"))
    }

    /// Connects with `options` and the store, shuts down, and returns the
    /// CLI's argv.
    async fn run(&self, options: Options) -> Vec<String> {
        let client = builder(options)
            .session_store(self.store.clone())
            .connect()
            .await
            .unwrap();
        let pid = client.pid().unwrap();
        client.shutdown().await;
        self.fake.assert_gone(pid).await;
        self.fake.cli.recorded_argv().unwrap()
    }
}

/// A builder with short grace periods, as the fake's.
fn builder(options: Options) -> ClientBuilder {
    ClientBuilder::new(options)
        .grace(Duration::from_millis(300))
        .term_grace(Duration::from_millis(300))
        .initialize_timeout(SOON)
        .control_timeout(SOON)
}

fn has(argv: &[String], arg: &str) -> bool {
    argv.iter().any(|a| a == arg)
}

#[tokio::test]
async fn continue_with_a_store_resumes_its_newest_non_sidechain_session_by_id() {
    let w = World::new(&[(OLD, false), (NEW, false), (SIDECHAIN, true)]).await;
    let argv = w.run(w.options().continue_conversation(true)).await;
    assert!(has(&argv, &format!("--resume={NEW}")), "{argv:?}");
    assert!(!has(&argv, "--continue"), "{argv:?}");
    let text = std::fs::read_to_string(w.session_file(NEW)).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines, [entry(NEW, 1, false), entry(NEW, 2, false)]);
    assert!(!w.session_file(OLD).exists(), "only the continued session");
    assert!(!w.session_file(SIDECHAIN).exists());
}

#[tokio::test]
async fn continue_with_a_store_of_no_sessions_passes_continue_on() {
    let w = World::new(&[(SIDECHAIN, true)]).await;
    let argv = w.run(w.options().continue_conversation(true)).await;
    assert!(has(&argv, "--continue"), "{argv:?}");
    assert!(!argv.iter().any(|a| a.starts_with("--resume")), "{argv:?}");
    assert!(!w.config.path().join("projects").exists());
}

#[tokio::test]
async fn continue_with_a_store_that_cannot_list_fails_before_the_spawn() {
    let w = World::new(&[]).await;
    let err = builder(w.options().continue_conversation(true))
        .session_store(Arc::new(LoadOnly))
        .connect()
        .await
        .unwrap_err();
    assert!(
        format!("{err:?}").contains("could not list the sessions"),
        "{err:?}"
    );
    assert!(
        w.fake.cli.recorded_argv().is_none(),
        "the CLI never started"
    );
}

#[tokio::test]
async fn fork_and_resume_at_of_a_store_only_session_are_materialized_and_passed_on() {
    let w = World::new(&[(OLD, false)]).await;
    let argv = w
        .run(
            w.options()
                .resume(OLD)
                .fork_session(true)
                .resume_session_at(format!("{OLD}-1")),
        )
        .await;
    for arg in [
        format!("--resume={OLD}"),
        "--fork-session".to_owned(),
        format!("--resume-session-at={OLD}-1"),
    ] {
        assert!(has(&argv, &arg), "{arg} missing: {argv:?}");
    }
    assert!(w.session_file(OLD).exists());
}

/// A store that can append and load but not list.
struct LoadOnly;

impl SessionStore for LoadOnly {
    fn append<'a>(
        &'a self,
        _key: &'a SessionKey,
        _entries: &'a [StoreEntry],
    ) -> futures::future::BoxFuture<'a, claude_agent::store::StoreResult<()>> {
        Box::pin(async { Ok(()) })
    }

    fn load<'a>(
        &'a self,
        _key: &'a SessionKey,
    ) -> futures::future::BoxFuture<'a, claude_agent::store::StoreResult<Option<Vec<StoreEntry>>>>
    {
        Box::pin(async { Ok(None) })
    }
}
