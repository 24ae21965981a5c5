//! The transcript mirror into real PostgreSQL (and Redis) servers through
//! the fake CLI: 50 concurrent sessions with every entry stored once, and a
//! server going away mid-session giving `mirror_error` while the session
//! completes. Servers from `CLAUDE_AGENT_TEST_POSTGRES_URL` /
//! `CLAUDE_AGENT_TEST_REDIS_URL`; each test in its own schema or key prefix,
//! removed afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "store_mirror/proxy.rs"]
mod proxy;
mod store_services;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::protocol::{Message, SystemMessage};
use claude_agent::store::{
    PostgresOptions, PostgresStore, RedisOptions, RedisStore, SessionKey, SessionStore,
    StoreOverflow,
};
use claude_agent::{client::Client, client::ClientBuilder};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::{Value, json};
use store_services::{io_in_chain, skip_unreachable, unique, url, with_cleanup};

const PROJECT: &str = "-mirror-services";
const SESSIONS: usize = 50;
const FRAMES: u32 = 4;
const PER_FRAME: u32 = 5;

fn postgres_url() -> String {
    url(
        "CLAUDE_AGENT_TEST_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    )
}

fn redis_url() -> String {
    url("CLAUDE_AGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379")
}

fn session_id(n: usize) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

fn entry(session: &str, n: u32) -> Value {
    json!({"type": "user", "uuid": format!("{session}-u{n}"), "sessionId": session, "n": n})
}

fn mirror(path: &str, entries: Vec<Value>) -> Value {
    json!({"type": "transcript_mirror", "filePath": path, "entries": entries})
}

fn main_path(config: &Path, session: &str) -> String {
    format!("{}/projects/{PROJECT}/{session}.jsonl", config.display())
}

fn builder(fake: &Fake, config: &Path, store: Arc<dyn SessionStore>) -> ClientBuilder {
    let options = fake.options().env("CLAUDE_CONFIG_DIR", config);
    ClientBuilder::new(options)
        .grace(Duration::from_millis(500))
        .term_grace(Duration::from_millis(500))
        .initialize_timeout(SOON)
        .session_store(store)
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

/// One session: a turn mirroring `FRAMES` batches of `PER_FRAME` entries
/// to the main file and one entry to a subagent's.
async fn mirrored_session(n: usize, config: &Path, store: Arc<dyn SessionStore>) {
    let session = session_id(n);
    let main = main_path(config, &session);
    let agent = format!(
        "{}/projects/{PROJECT}/{session}/subagents/agent-1.jsonl",
        config.display()
    );
    let mut script = Script::new().expect_initialize().expect("user", None);
    for f in 0..FRAMES {
        let batch = (0..PER_FRAME).map(|i| entry(&session, f * PER_FRAME + i));
        script = script.emit(mirror(&main, batch.collect()));
    }
    let script = script
        .emit(mirror(&agent, vec![entry(&session, 1000)]))
        .emit(assistant("done"))
        .emit(result("success", "done"))
        .expect_eof();
    let fake = fake(script);
    let client = builder(&fake, config, store).connect().await.unwrap();
    client.send("go").await.unwrap();
    turn(&client).await;
    let report = tokio::time::timeout(SOON, client.shutdown()).await.unwrap();
    assert_eq!(
        report.mirror_unpersisted,
        Some(0),
        "session {n}: {report:?}"
    );
    assert_eq!(
        report.mirror_persisted,
        Some(u64::from(FRAMES * PER_FRAME + 1)),
        "session {n}: {report:?}"
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn fifty_concurrent_sessions_mirror_every_entry_into_postgres_once() {
    let server = postgres_url();
    let options = PostgresOptions::default().schema(unique("claude_agent_test"));
    let store = match PostgresStore::connect(&server, options).await {
        Ok(store) => store,
        Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let shared: Arc<dyn SessionStore> = Arc::new(store.clone());
    let body = async move {
        let config = tempfile::tempdir().unwrap();
        let sessions = (0..SESSIONS).map(|n| mirrored_session(n, config.path(), shared.clone()));
        futures::future::join_all(sessions).await;
        for n in 0..SESSIONS {
            let session = session_id(n);
            let key = SessionKey::new(PROJECT, session.clone());
            let stored = shared.load(&key).await.unwrap().expect("the session");
            let expected: Vec<Value> = (0..FRAMES * PER_FRAME)
                .map(|i| entry(&session, i))
                .collect();
            assert_eq!(stored, expected, "session {n}: every entry once, in order");
            let agent = key.with_subpath("subagents/agent-1");
            let stored = shared.load(&agent).await.unwrap().expect("the subagent");
            assert_eq!(stored, [entry(&session, 1000)], "session {n}'s subagent");
        }
        assert_eq!(shared.list_sessions(PROJECT).await.unwrap().len(), SESSIONS);
    };
    with_cleanup(body, async move {
        store.drop_schema().await.expect("drop the test schema");
    })
    .await;
}

/// Two turns through a store whose server connection the test cuts after
/// the first: the second turn's batch comes back as `mirror_error`, the
/// session completes, and the report counts the lost entries.
async fn store_goes_away_mid_session(store: Arc<dyn SessionStore>, proxy: proxy::Proxy) {
    let config = tempfile::tempdir().unwrap();
    let session = session_id(9999);
    let main = main_path(config.path(), &session);
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(mirror(&main, vec![entry(&session, 1), entry(&session, 2)]))
            .emit(assistant("first"))
            .emit(result("success", "first"))
            .expect("user", None)
            .emit(mirror(&main, vec![entry(&session, 3), entry(&session, 4)]))
            .emit(assistant("second"))
            .emit(result("success", "second"))
            .expect_eof(),
    );
    // Drop-oldest: under the spill policy (the default) a store that
    // fails is waited for instead (store_mirror_spill_errors.rs).
    let client = builder(&fake, config.path(), store)
        .store_overflow(StoreOverflow::DropOldest)
        .connect()
        .await
        .unwrap();
    client.send("one").await.unwrap();
    turn(&client).await;
    proxy.cut().await;
    client.send("two").await.unwrap();
    let mut seen = turn(&client).await;
    let result = seen.iter().find_map(|m| match m {
        Message::Result(r) => Some(r.result.clone()),
        _ => None,
    });
    assert_eq!(
        result,
        Some(Some("second".to_owned())),
        "the session went on"
    );
    let is_mirror_error = |m: &Message| matches!(m, Message::System(SystemMessage::MirrorError(_)));
    if !seen.iter().any(is_mirror_error) {
        // Reported once its retries are spent, which may be after the result.
        let mut rest = client.receive_messages();
        while let Some(m) = tokio::time::timeout(SOON, rest.next())
            .await
            .expect("no mirror_error came")
        {
            let m = m.unwrap();
            let done = is_mirror_error(&m);
            seen.push(m);
            if done {
                break;
            }
        }
    }
    let error = seen.iter().find_map(|m| match m {
        Message::System(SystemMessage::MirrorError(e)) => Some(e.clone()),
        _ => None,
    });
    let error = error.expect("a mirror_error message");
    assert_eq!(error.session_id.as_deref(), Some(session.as_str()));
    let report = tokio::time::timeout(SOON, client.shutdown()).await.unwrap();
    assert!(
        report.mirror_unpersisted >= Some(2),
        "the second turn's entries are lost: {report:?}"
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn postgres_going_away_mid_session_gives_mirror_error_and_the_session_completes() {
    let server = postgres_url();
    let schema = unique("claude_agent_test");
    // The schema is made and dropped directly; the session's store goes
    // through the proxy.
    let direct =
        match PostgresStore::connect(&server, PostgresOptions::default().schema(&schema)).await {
            Ok(store) => store,
            Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
            Err(e) => panic!("{e}"),
        };
    let body = async move {
        let proxy = proxy::Proxy::start(proxy::host_port(&server)).await;
        let via = proxy::through(&server, proxy.addr);
        let store = PostgresStore::connect(&via, PostgresOptions::default().schema(&schema))
            .await
            .unwrap();
        store_goes_away_mid_session(Arc::new(store), proxy).await;
    };
    with_cleanup(body, async move {
        direct.drop_schema().await.expect("drop the test schema");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Redis; run with --include-ignored"]
async fn redis_going_away_mid_session_gives_mirror_error_and_the_session_completes() {
    let server = redis_url();
    let prefix = unique("claude-agent-test");
    let direct = match RedisStore::connect(&server, RedisOptions::default().prefix(&prefix)).await {
        Ok(store) => store,
        Err(e) if io_in_chain(&e) => return skip_unreachable("Redis", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let body = async move {
        let proxy = proxy::Proxy::start(proxy::host_port(&server)).await;
        let via = proxy::through(&server, proxy.addr);
        let store = RedisStore::connect(&via, RedisOptions::default().prefix(&prefix))
            .await
            .unwrap();
        store_goes_away_mid_session(Arc::new(store), proxy).await;
    };
    with_cleanup(body, async move {
        direct.clear().await.expect("delete the test keys");
    })
    .await;
}
