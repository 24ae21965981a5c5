//! The transcript mirror through the fake CLI: `transcript_mirror` frames
//! land in a store under the right keys, in order, off the message stream;
//! a failing store is retried and then reported; a slow one never stalls
//! the session; the shutdown flushes and counts.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "store_mirror/stores.rs"]
#[allow(dead_code)] // `Broken` is for the resume tests
mod stores;

use std::sync::Arc;
use std::time::Duration;

use claude_agent::protocol::{Message, SystemMessage};
use claude_agent::store::{MemoryStore, MirrorMode, SessionKey, SessionStore, StoreOverflow};
use claude_agent::{client::Client, client::ClientBuilder};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::{Value, json};
use stores::{Blocking, Flaky};

const SESSION: &str = "0b7c3f0e-5a51-4d1c-9d55-1f4f5e2f6a01";
const PROJECT: &str = "-work-proj";

/// A config dir for the fake CLI's frame paths and the SDK's key mapping.
struct World {
    fake: Fake,
    config: tempfile::TempDir,
}

fn main_path(config: &std::path::Path) -> String {
    format!("{}/projects/{PROJECT}/{SESSION}.jsonl", config.display())
}

fn agent_path(config: &std::path::Path) -> String {
    format!(
        "{}/projects/{PROJECT}/{SESSION}/subagents/agent-7.jsonl",
        config.display()
    )
}

fn entry(n: u32) -> Value {
    json!({"type": "user", "uuid": format!("u-{n}"), "sessionId": SESSION, "n": n})
}

fn mirror(path: &str, entries: &[Value]) -> Value {
    json!({"type": "transcript_mirror", "filePath": path, "entries": entries})
}

/// One turn: the frames of `script`, between the user frame and the result.
fn world(script: impl FnOnce(&std::path::Path, Script) -> Script) -> World {
    let config = tempfile::tempdir().unwrap();
    let fake = fake(script(config.path(), Script::new().expect_initialize()));
    World { fake, config }
}

impl World {
    fn builder(&self, store: Arc<dyn SessionStore>) -> ClientBuilder {
        let options = self
            .fake
            .options()
            .env("CLAUDE_CONFIG_DIR", self.config.path());
        ClientBuilder::new(options)
            .grace(Duration::from_millis(300))
            .term_grace(Duration::from_millis(300))
            .initialize_timeout(SOON)
            .session_store(store)
    }
}

/// The messages of one turn, each within `SOON`.
async fn turn(client: &Client) -> Vec<Message> {
    let mut out = Vec::new();
    let mut stream = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, stream.next())
        .await
        .expect("turn hung")
    {
        out.push(m.unwrap());
    }
    out
}

fn main_key() -> SessionKey {
    SessionKey::new(PROJECT, SESSION)
}

#[tokio::test]
async fn frames_land_under_main_and_subagent_keys_in_order_and_skip_the_stream() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1), entry(2)]))
            .emit(assistant("hi"))
            .emit(mirror(&agent_path(cfg), &[entry(10)]))
            .emit(mirror(&main_path(cfg), &[entry(3)]))
            .emit(result("success", "hi"))
            .expect_eof()
    });
    let store = Arc::new(MemoryStore::new());
    let client = w.builder(store.clone()).connect().await.unwrap();
    client.send("go").await.unwrap();
    let messages = turn(&client).await;
    let kinds: Vec<String> = messages.iter().map(Message::kind).collect();
    assert_eq!(
        kinds,
        ["assistant", "result/success"],
        "mirror frames are not messages"
    );
    let report = client.shutdown().await;
    assert_eq!(report.mirror_persisted, Some(4));
    assert_eq!(report.mirror_unpersisted, Some(0));

    let main = store.load(&main_key()).await.unwrap().unwrap();
    assert_eq!(main, [entry(1), entry(2), entry(3)]);
    let agent = main_key().with_subpath("subagents/agent-7");
    assert_eq!(store.load(&agent).await.unwrap().unwrap(), [entry(10)]);
}

#[tokio::test]
async fn batched_mode_appends_once_per_file_per_turn_and_eager_once_per_frame() {
    for (mode, appends) in [(MirrorMode::Batched, 2), (MirrorMode::Eager, 4)] {
        let w = world(|cfg, s| {
            s.expect("user", None)
                .emit(mirror(&main_path(cfg), &[entry(1)]))
                .emit(mirror(&main_path(cfg), &[entry(2)]))
                .emit(mirror(&agent_path(cfg), &[entry(10)]))
                .emit(mirror(&main_path(cfg), &[entry(3)]))
                .emit(result("success", "ok"))
                .expect_eof()
        });
        let store = Arc::new(Flaky::new(0));
        let client = w
            .builder(store.clone())
            .mirror_mode(mode)
            .connect()
            .await
            .unwrap();
        client.send("go").await.unwrap();
        turn(&client).await;
        let report = client.shutdown().await;
        assert_eq!(report.mirror_persisted, Some(4), "{mode:?}");
        assert_eq!(store.calls(), appends, "{mode:?}");
        let main = store.inner.load(&main_key()).await.unwrap().unwrap();
        assert_eq!(main, [entry(1), entry(2), entry(3)], "{mode:?}");
    }
}

#[tokio::test]
async fn store_project_key_replaces_the_project_of_the_path() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1)]))
            .emit(result("success", "ok"))
            .expect_eof()
    });
    let store = Arc::new(MemoryStore::new());
    let client = w
        .builder(store.clone())
        .store_project_key("tenant-42")
        .connect()
        .await
        .unwrap();
    client.send("go").await.unwrap();
    turn(&client).await;
    client.shutdown().await;
    let key = SessionKey::new("tenant-42", SESSION);
    assert_eq!(store.load(&key).await.unwrap().unwrap(), [entry(1)]);
    assert_eq!(store.load(&main_key()).await.unwrap(), None);
}

#[tokio::test]
async fn a_store_failing_twice_is_retried_and_persists() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1)]))
            .emit(result("success", "ok"))
            .expect_eof()
    });
    let store = Arc::new(Flaky::new(2));
    let client = w.builder(store.clone()).connect().await.unwrap();
    client.send("go").await.unwrap();
    turn(&client).await;
    let report = client.shutdown().await;
    assert_eq!(store.calls(), 3);
    assert_eq!(report.mirror_persisted, Some(1));
    assert_eq!(report.mirror_unpersisted, Some(0));
    assert_eq!(
        store.inner.load(&main_key()).await.unwrap().unwrap(),
        [entry(1)]
    );
}

#[tokio::test]
async fn a_store_failing_every_attempt_gives_a_mirror_error_and_the_session_goes_on() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1), entry(2)]))
            .emit(result("success", "one"))
            .expect("user", None)
            .emit(result("success", "two"))
            .expect_eof()
    });
    let store = Arc::new(Flaky::new(u32::MAX));
    // Drop-oldest: under the spill policy (the default) a failing store is
    // waited for instead (store_mirror_spill_errors.rs).
    let client = w
        .builder(store.clone())
        .store_overflow(StoreOverflow::DropOldest)
        .connect()
        .await
        .unwrap();
    client.send("first").await.unwrap();
    let first = turn(&client).await;
    assert_eq!(first.last().unwrap().kind(), "result/success");

    // The error comes once the retries are spent, while the session is idle.
    let mut stream = client.receive_messages();
    let message = tokio::time::timeout(SOON, stream.next())
        .await
        .expect("no mirror_error")
        .unwrap()
        .unwrap();
    drop(stream);
    let Message::System(SystemMessage::MirrorError(error)) = &message else {
        panic!("expected a mirror_error, got {}", message.kind());
    };
    assert_eq!(error.session_id.as_deref(), Some(SESSION));
    let key = error.key.as_ref().unwrap();
    assert_eq!(key.project_key.as_deref(), Some(PROJECT));
    assert!(
        error.error.as_deref().unwrap().contains("3 attempts"),
        "{error:?}"
    );
    assert_eq!(store.calls(), 3);

    client.send("second").await.unwrap();
    let second = turn(&client).await;
    assert_eq!(second.last().unwrap().kind(), "result/success");
    let report = client.shutdown().await;
    assert_eq!(report.mirror_persisted, Some(0));
    assert_eq!(report.mirror_unpersisted, Some(2));
}

#[tokio::test]
async fn a_blocked_store_does_not_stall_turns_and_is_flushed_at_shutdown() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1)]))
            .emit(result("success", "one"))
            .expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(2)]))
            .emit(result("success", "two"))
            .expect_eof()
    });
    let store = Arc::new(Blocking::new());
    let client = w
        .builder(store.clone())
        .mirror_mode(MirrorMode::Eager)
        .connect()
        .await
        .unwrap();
    client.send("first").await.unwrap();
    turn(&client).await;
    // The first append is in the store and cannot finish yet.
    tokio::time::timeout(SOON, store.entered())
        .await
        .expect("no append");
    client.send("second").await.unwrap();
    let second = turn(&client).await;
    assert_eq!(second.last().unwrap().kind(), "result/success");

    store.release();
    let report = client.shutdown().await;
    assert_eq!(report.mirror_persisted, Some(2));
    assert_eq!(report.mirror_unpersisted, Some(0));
    let main = store.inner.load(&main_key()).await.unwrap().unwrap();
    assert_eq!(main, [entry(1), entry(2)]);
}

#[tokio::test]
async fn shutdown_flushes_entries_of_an_unfinished_turn() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1), entry(2)]))
            .emit(assistant("working"))
            .expect_eof()
    });
    let store = Arc::new(MemoryStore::new());
    let client = w.builder(store.clone()).connect().await.unwrap();
    client.send("go").await.unwrap();
    let mut stream = client.receive_messages();
    let first = tokio::time::timeout(SOON, stream.next())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.unwrap().kind(), "assistant");
    drop(stream);
    let report = client.shutdown().await;
    assert_eq!(report.mirror_persisted, Some(2));
    assert_eq!(report.mirror_unpersisted, Some(0));
    let main = store.load(&main_key()).await.unwrap().unwrap();
    assert_eq!(main, [entry(1), entry(2)]);
}

#[tokio::test]
async fn shutdown_gives_up_at_the_flush_deadline_and_counts_what_was_lost() {
    let w = world(|cfg, s| {
        s.expect("user", None)
            .emit(mirror(&main_path(cfg), &[entry(1)]))
            .emit(result("success", "one"))
            .emit(mirror(&main_path(cfg), &[entry(2), entry(3)]))
            .expect_eof()
    });
    let store = Arc::new(Blocking::new());
    let deadline = Duration::from_millis(300);
    let client = w
        .builder(store.clone())
        .mirror_flush_deadline(deadline)
        .connect()
        .await
        .unwrap();
    client.send("go").await.unwrap();
    turn(&client).await;
    tokio::time::timeout(SOON, store.entered())
        .await
        .expect("no append");
    let started = std::time::Instant::now();
    let report = tokio::time::timeout(SOON, client.shutdown())
        .await
        .expect("shutdown hung");
    assert!(started.elapsed() >= deadline, "waited for the deadline");
    assert_eq!(report.mirror_persisted, Some(0));
    assert_eq!(report.mirror_unpersisted, Some(3));
}
