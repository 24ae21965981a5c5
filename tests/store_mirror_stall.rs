//! No silent loss when the store stalls: a turn mirrored into a store that
//! stops answering mid-session (a PostgreSQL session holding a lock on the
//! store's table, a Redis server behind a network that stops delivering, a
//! file store whose session lock another process holds) ends with a
//! `system/mirror_error` in the stream and the entries counted as
//! unpersisted in the report, once the flush deadline has passed (or,
//! hurried, within `HURRIED_FLUSH`). (A store cut outright is
//! `store_mirror_services.rs`.) Servers from
//! `CLAUDE_AGENT_TEST_POSTGRES_URL` / `CLAUDE_AGENT_TEST_REDIS_URL`; each
//! test in its own schema or key prefix, removed afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
#[path = "store_mirror/proxy.rs"]
mod proxy;
mod store_services;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::protocol::{Message, SystemMessage};
use claude_agent::store::mirror::HURRIED_FLUSH;
use claude_agent::store::{
    FileStore, PostgresOptions, PostgresStore, RedisOptions, RedisStore, SessionStore,
};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::{Value, json};
use store_services::{io_in_chain, skip_unreachable, unique, url, with_cleanup};

const PROJECT: &str = "-mirror-stall";
const SESSION: &str = "00000000-0000-4000-8000-000000005741";
/// Short, so the test does not wait the default 10 s.
const FLUSH_DEADLINE: Duration = Duration::from_secs(2);

fn entry(n: u32) -> Value {
    json!({"type": "user", "uuid": format!("{SESSION}-u{n}"), "sessionId": SESSION, "n": n})
}

fn mirror(config: &Path, entries: Vec<Value>) -> Value {
    let path = format!("{}/projects/{PROJECT}/{SESSION}.jsonl", config.display());
    json!({"type": "transcript_mirror", "filePath": path, "entries": entries})
}

/// One turn of two mirrored entries into `store`, which the caller has
/// stalled; then the shutdown, reading the stream to its end as `run`
/// does. Returns every `mirror_error` and the report's unpersisted count.
async fn turn_into_a_stalled_store(store: Arc<dyn SessionStore>) -> (Vec<String>, Option<u64>) {
    let config = tempfile::tempdir().unwrap();
    let (_fake, client, seen) = one_turn(config.path(), store, FLUSH_DEADLINE).await;
    let closing = {
        let c = client.clone();
        tokio::spawn(async move { c.shutdown().await })
    };
    let (errors, report) = to_the_end(&client, seen, closing).await;
    (errors, report.mirror_unpersisted)
}

/// A client mirroring into `store` with `flush_deadline`, after one turn
/// of two mirrored entries (the fake CLI then exits at EOF); the turn's
/// messages.
async fn one_turn(
    config: &Path,
    store: Arc<dyn SessionStore>,
    flush_deadline: Duration,
) -> (Fake, claude_agent::client::Client, Vec<Message>) {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(mirror(config, vec![entry(1), entry(2)]))
            .emit(assistant("answer"))
            .emit(result("success", "answer"))
            .expect_eof(),
    );
    let options = fake.options().env("CLAUDE_CONFIG_DIR", config);
    let client = claude_agent::client::ClientBuilder::new(options)
        .grace(Duration::from_millis(500))
        .term_grace(Duration::from_millis(500))
        .initialize_timeout(SOON)
        .session_store(store)
        .mirror_flush_deadline(flush_deadline)
        .connect()
        .await
        .unwrap();
    client.send("go").await.unwrap();
    let mut seen = Vec::new();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        seen.push(m.unwrap());
    }
    drop(turn);
    (fake, client, seen)
}

/// The stream read to its end after `seen`, and the shutdown's report:
/// every `mirror_error`'s text and the report.
async fn to_the_end(
    client: &claude_agent::client::Client,
    mut seen: Vec<Message>,
    closing: tokio::task::JoinHandle<claude_agent::extensions::SessionReport>,
) -> (Vec<String>, claude_agent::extensions::SessionReport) {
    let mut rest = client.receive_messages();
    while let Some(m) = tokio::time::timeout(SOON * 2, rest.next()).await.unwrap() {
        seen.push(m.unwrap());
    }
    let report = tokio::time::timeout(SOON, closing).await.unwrap().unwrap();
    let errors = seen
        .iter()
        .filter_map(|m| match m {
            Message::System(SystemMessage::MirrorError(e)) => {
                assert_eq!(e.session_id.as_deref(), Some(SESSION), "{e:?}");
                Some(e.error.clone().unwrap_or_default())
            }
            _ => None,
        })
        .collect();
    (errors, report)
}

fn assert_reported(errors: &[String], unpersisted: Option<u64>) {
    assert_eq!(unpersisted, Some(2), "both entries count as lost");
    assert_eq!(errors.len(), 1, "one mirror_error: {errors:?}");
    assert!(
        errors[0].contains("did not take 2 entries within the flush deadline"),
        "{errors:?}"
    );
}

#[tokio::test]
async fn a_file_store_whose_session_lock_is_held_gives_mirror_error_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    // Another writer holds the session's lock and does not let go.
    let lock = hold_session_lock(dir.path(), PROJECT, SESSION);
    let store = FileStore::new(dir.path()).lock_timeout(Duration::from_secs(60));
    let (errors, unpersisted) = turn_into_a_stalled_store(Arc::new(store)).await;
    assert_reported(&errors, unpersisted);
    lock.release();
}

#[tokio::test]
async fn hurry_cuts_the_flush_into_a_stalled_file_store_short_with_mirror_error_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let lock = hold_session_lock(dir.path(), PROJECT, SESSION);
    let store = FileStore::new(dir.path()).lock_timeout(Duration::from_secs(60));
    let config = tempfile::tempdir().unwrap();
    // A flush deadline far beyond the test's bounds: only the hurry ends it.
    let (_fake, client, seen) =
        one_turn(config.path(), Arc::new(store), Duration::from_secs(30)).await;
    let closing = {
        let c = client.clone();
        tokio::spawn(async move { c.shutdown().await })
    };
    // The CLI has exited (at EOF): what is left is the mirror's flush.
    tokio::time::timeout(SOON, client.session().closed())
        .await
        .unwrap();
    let hurried = {
        let c = client.clone();
        tokio::spawn(async move {
            c.hurry();
            std::time::Instant::now()
        })
    };
    let hurried = hurried.await.unwrap();
    let (errors, report) = to_the_end(&client, seen, closing).await;
    let took = hurried.elapsed();
    lock.release();
    assert!(
        took < HURRIED_FLUSH + Duration::from_secs(2),
        "the report came {took:?} after the hurry"
    );
    assert_eq!(
        report.mirror_unpersisted,
        Some(2),
        "both entries count as lost"
    );
    assert_eq!(report.mirror_persisted, Some(0));
    assert_eq!(errors.len(), 1, "one mirror_error: {errors:?}");
    assert!(
        errors[0].contains("did not take 2 entries before the shutdown was cut short"),
        "{errors:?}"
    );
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn postgres_with_its_table_locked_by_another_session_gives_mirror_error_and_counts() {
    let server = url(
        "CLAUDE_AGENT_TEST_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    );
    let schema = unique("claude_agent_stall");
    let store =
        match PostgresStore::connect(&server, PostgresOptions::default().schema(&schema)).await {
            Ok(store) => store,
            Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
            Err(e) => panic!("{e}"),
        };
    let cleanup = store.clone();
    let body = async move {
        // A second session takes the table and holds it in an open
        // transaction: every append waits for its lock.
        let (locker, connection) = tokio_postgres::connect(&server, tokio_postgres::NoTls)
            .await
            .unwrap();
        let connection = tokio::spawn(connection);
        locker
            .batch_execute(&format!(
                "BEGIN; LOCK TABLE \"{schema}\".transcripts IN ACCESS EXCLUSIVE MODE"
            ))
            .await
            .unwrap();
        let (errors, unpersisted) = turn_into_a_stalled_store(Arc::new(store)).await;
        locker.batch_execute("ROLLBACK").await.unwrap();
        drop(locker);
        let _ = connection.await;
        assert_reported(&errors, unpersisted);
    };
    with_cleanup(body, async move {
        cleanup.drop_schema().await.expect("drop the test schema");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Redis; run with --include-ignored"]
async fn redis_behind_a_network_that_stops_delivering_gives_mirror_error_and_counts() {
    let server = url("CLAUDE_AGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    let prefix = unique("claude-agent-stall");
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
        proxy.stall();
        let (errors, unpersisted) = turn_into_a_stalled_store(Arc::new(store)).await;
        proxy.cut().await;
        assert_reported(&errors, unpersisted);
    };
    with_cleanup(body, async move {
        direct.clear().await.expect("delete the test keys");
    })
    .await;
}
