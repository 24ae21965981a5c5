//! A store that returns errors (not a stall) under the `Spill` policy:
//! PostgreSQL with a trigger that fails every INSERT into the store's
//! entries table (counting each refusal), dropped once the store has
//! refused more attempts than a batch gets under the other policies. The
//! failed batch is kept and retried rather than dropped, the frames that
//! arrive meanwhile go to the spill file, and once the trigger is gone
//! everything is in the store, in order, exactly once: no `mirror_error`,
//! every entry counted persisted, the spill file removed. Server from
//! `CLAUDE_AGENT_TEST_POSTGRES_URL`; the test's schema is dropped
//! afterwards.
#![cfg(feature = "postgres")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod store_services;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent::protocol::{Message, SystemMessage};
use claude_agent::store::mirror::APPEND_ATTEMPTS;
use claude_agent::store::{
    PostgresOptions, PostgresStore, SessionKey, SessionStore, StoreOverflow,
};
use claude_agent_testkit::Script;
use common::mirror_flood::finish;
use common::*;
use futures::StreamExt;
use serde_json::{Value, json};
use store_services::{io_in_chain, skip_unreachable, unique, url, with_cleanup};

const POSTGRES: &str = "postgres://postgres@127.0.0.1:5432/test";
const PROJECT: &str = "-mirror-spill-errors";
const SESSION: &str = "00000000-0000-4000-8000-0000000005e1";
/// Entries of the first turn (appended while the privilege is revoked),
/// then of the second (arriving while that append keeps failing).
const FIRST: u32 = 3;
const SECOND: u32 = 8;

fn entry(n: u32) -> Value {
    json!({"type": "user", "uuid": format!("{SESSION}-{n}"), "sessionId": SESSION, "n": n})
}

/// Two turns, one mirror frame (one entry) each of `range`.
fn two_turns(config: &Path) -> Script {
    let path = format!("{}/projects/{PROJECT}/{SESSION}.jsonl", config.display());
    let mut script = Script::new().expect_initialize();
    for range in [0..FIRST, FIRST..FIRST + SECOND] {
        script = script.expect("user", None);
        for n in range {
            script = script.emit(
                json!({"type": "transcript_mirror", "filePath": path, "entries": [entry(n)]}),
            );
        }
        script = script.emit(result("success", "ok"));
    }
    script.expect_eof()
}

/// Files in `dir` (none when it does not exist).
fn files_in(dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Polls `ready` (bounded by `SOON`): a condition wait.
async fn until<F: std::future::Future<Output = bool>>(what: &str, mut ready: impl FnMut() -> F) {
    let start = Instant::now();
    while !ready().await {
        assert!(start.elapsed() < SOON, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The `n` of every stored entry, in store order.
async fn stored(store: &dyn SessionStore) -> Vec<u64> {
    let entries = store
        .load(&SessionKey::new(PROJECT, SESSION))
        .await
        .unwrap()
        .unwrap_or_default();
    entries
        .iter()
        .map(|e| e.to_value().unwrap()["n"].as_u64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL"]
async fn a_store_refusing_appends_under_spill_loses_nothing_and_replays_in_order_once_it_takes_them()
 {
    let server = url("CLAUDE_AGENT_TEST_POSTGRES_URL", POSTGRES);
    let (admin, connection) = match tokio_postgres::connect(&server, tokio_postgres::NoTls).await {
        Ok(c) => c,
        Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let connection = tokio::spawn(connection);
    let schema = unique("claude_agent_spill_err");
    let options = PostgresOptions::default().schema(schema.clone());
    let store = Arc::new(PostgresStore::connect(&server, options).await.unwrap());
    // Every INSERT into the entries table fails, and counts itself in a
    // sequence first (a sequence is not rolled back with the statement).
    admin
        .batch_execute(&format!(
            "CREATE SEQUENCE {schema}.refused;
             CREATE FUNCTION {schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                 BEGIN PERFORM nextval('{schema}.refused'); RAISE EXCEPTION 'appends refused by the test'; END $$;
             CREATE TRIGGER refuse BEFORE INSERT ON {schema}.entries
                 FOR EACH STATEMENT EXECUTE FUNCTION {schema}.refuse();"
        ))
        .await
        .unwrap();
    let admin = Arc::new(admin);
    let body = {
        let (admin, store) = (admin.clone(), store.clone());
        run(store, admin, schema.clone())
    };
    with_cleanup(body, async move {
        store.drop_schema().await.expect("drop the test schema");
        connection.abort();
    })
    .await;
}

/// Appends the store refused so far.
async fn refused(admin: &tokio_postgres::Client, schema: &str) -> i64 {
    let row = admin
        .query_one(
            &format!("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {schema}.refused"),
            &[],
        )
        .await
        .unwrap();
    row.get(0)
}

async fn run(store: Arc<PostgresStore>, admin: Arc<tokio_postgres::Client>, schema: String) {
    let config = tempfile::tempdir().unwrap();
    let spill = tempfile::tempdir().unwrap();
    let spill_dir = spill.path().join("spill");
    let fake = fake(two_turns(config.path()));
    let options = fake.options().env("CLAUDE_CONFIG_DIR", config.path());
    let client = claude_agent::client::ClientBuilder::new(options)
        .initialize_timeout(SOON)
        .session_store(store.clone())
        .store_overflow(StoreOverflow::Spill {
            dir: Some(spill_dir.clone()),
        })
        // One frame fills the queue: the second turn's frames, arriving
        // while the first turn's append fails, overflow into the file.
        .mirror_queue_bytes(1)
        .mirror_flush_deadline(SOON)
        .connect()
        .await
        .unwrap();
    let mut seen = Vec::new();
    for prompt in ["one", "two"] {
        client.send(prompt).await.unwrap();
        let mut turn = client.receive_response();
        while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
            seen.push(m.unwrap());
        }
    }
    // The store refuses: the second turn's overflow is in the spill file,
    // nothing is in the store, and the session went on.
    until("the overflow in the spill file", || {
        let files = files_in(&spill_dir);
        async move {
            files
                .iter()
                .any(|f| std::fs::metadata(f).is_ok_and(|m| m.len() > 0))
        }
    })
    .await;
    // Past the attempts after which other policies drop the batch.
    let beyond = APPEND_ATTEMPTS as i64 + 1;
    until(
        "the store to refuse more appends than a batch gets elsewhere",
        || {
            let (admin, schema) = (admin.clone(), schema.clone());
            async move { refused(&admin, &schema).await >= beyond }
        },
    )
    .await;
    assert_eq!(stored(store.as_ref()).await, Vec::<u64>::new());

    admin
        .batch_execute(&format!("DROP TRIGGER refuse ON {schema}.entries"))
        .await
        .unwrap();
    let all: Vec<u64> = (0..u64::from(FIRST + SECOND)).collect();
    until("every entry in the store", || {
        let store = store.clone();
        let want = all.len();
        async move { stored(store.as_ref()).await.len() >= want }
    })
    .await;

    let (seen, report) = finish(client, seen).await;
    let errors: Vec<_> = seen
        .iter()
        .filter_map(|m| match m {
            Message::System(SystemMessage::MirrorError(e)) => e.error.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(errors, Vec::<String>::new(), "nothing was lost");
    assert_eq!(stored(store.as_ref()).await, all, "in order, exactly once");
    assert_eq!(report.mirror_persisted, Some(u64::from(FIRST + SECOND)));
    assert_eq!(report.mirror_unpersisted, Some(0));
    assert_eq!(
        files_in(&spill_dir),
        Vec::<std::path::PathBuf>::new(),
        "replayed and removed"
    );
}
