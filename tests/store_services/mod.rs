//! Shared by the PostgreSQL and Redis store tests: where the server is,
//! what to do when it is not there, unique names for isolation, and a
//! shared workload of concurrent writers.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use claude_agent::store::{SessionKey, SessionStore, StoreEntry};
use serde_json::json;

/// Set to `1` (as CI does) to make a missing server a failure.
pub const ENV_REQUIRE: &str = "CLAUDE_AGENT_REQUIRE_SERVICES";

/// The server URL from `env`, or `default`.
pub fn url(env: &str, default: &str) -> String {
    std::env::var(env).unwrap_or_else(|_| default.to_owned())
}

/// Whether an I/O error is somewhere in `error`'s chain: the server could
/// not be reached.
pub fn io_in_chain(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.downcast_ref::<std::io::Error>().is_some() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// The server is unreachable: fail under `CLAUDE_AGENT_REQUIRE_SERVICES=1`,
/// else say the test is skipped.
pub fn skip_unreachable(service: &str, url: &str, error: &dyn std::error::Error) {
    let mut message = format!("{service} at {url} is unreachable: {error}");
    let mut source = error.source();
    while let Some(cause) = source {
        message.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    if std::env::var(ENV_REQUIRE).as_deref() == Ok("1") {
        panic!("{message} (and {ENV_REQUIRE}=1)");
    }
    eprintln!("skipped: {message}; set {ENV_REQUIRE}=1 to make this a failure");
}

/// A name no other test run uses: `prefix`, the process id, the time and a
/// counter.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!(
        "{prefix}_{}_{nanos}_{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// Run `body` as its own task, then `cleanup` whatever happened, then
/// re-raise the body's panic: isolation is torn down even on failure.
pub async fn with_cleanup<B, C>(body: B, cleanup: C)
where
    B: Future<Output = ()> + Send + 'static,
    C: Future<Output = ()>,
{
    let outcome = tokio::spawn(body).await;
    tokio::time::timeout(Duration::from_secs(60), cleanup)
        .await
        .expect("cleanup timed out");
    if let Err(error) = outcome {
        std::panic::resume_unwind(error.into_panic());
    }
}

pub const WRITERS: usize = 50;
pub const BATCHES: usize = 10;

/// `WRITERS` tasks append at once, each `BATCHES` batches to its own
/// session and to one shared session (every batch also repeating the
/// writer's previous entry, as a retrying mirror would); then every entry
/// must be stored exactly once, in each writer's order.
pub async fn concurrent_writers(store: Arc<dyn SessionStore>) {
    let shared = SessionKey::new("proj", "shared");
    let mut tasks = Vec::new();
    for writer in 0..WRITERS {
        let (store, shared) = (Arc::clone(&store), shared.clone());
        tasks.push(tokio::spawn(async move {
            let own = SessionKey::new("proj", format!("writer-{writer}"));
            let mut previous = None;
            for i in 0..BATCHES {
                let entry = StoreEntry::from(
                    json!({"type": "x", "uuid": format!("{writer}-{i}"), "writer": writer, "i": i}),
                );
                let mut batch = vec![entry.clone()];
                batch.extend(previous.take());
                store
                    .append(&own, &batch)
                    .await
                    .expect("append to the writer's session");
                store
                    .append(&shared, &batch)
                    .await
                    .expect("append to the shared session");
                previous = Some(entry);
            }
        }));
    }
    for task in tasks {
        tokio::time::timeout(Duration::from_secs(120), task)
            .await
            .expect("writers took over 120 s")
            .expect("writer");
    }
    for writer in 0..WRITERS {
        let own = SessionKey::new("proj", format!("writer-{writer}"));
        let entries = store
            .load(&own)
            .await
            .expect("load")
            .expect("the writer's session exists");
        let is: Vec<i64> = entries
            .iter()
            .map(|e| e.to_value().expect("a tree")["i"].as_i64().expect("i"))
            .collect();
        assert_eq!(
            is,
            (0..BATCHES as i64).collect::<Vec<_>>(),
            "writer {writer}'s session"
        );
    }
    let entries = store
        .load(&shared)
        .await
        .expect("load")
        .expect("the shared session exists");
    assert_eq!(
        entries.len(),
        WRITERS * BATCHES,
        "every entry of the shared session exactly once"
    );
    let mut last: HashMap<i64, i64> = HashMap::new();
    for entry in &entries {
        let entry = entry.to_value().expect("a tree");
        let (writer, i) = (
            entry["writer"].as_i64().expect("writer"),
            entry["i"].as_i64().expect("i"),
        );
        let before = last.insert(writer, i);
        assert!(
            before.is_none_or(|b| b + 1 == i),
            "writer {writer}: entry {i} after {before:?}"
        );
    }
    let listed = store.list_sessions("proj").await.expect("list");
    assert_eq!(listed.len(), WRITERS + 1);
    let summaries = store
        .list_session_summaries("proj")
        .await
        .expect("summaries");
    assert_eq!(summaries.len(), WRITERS + 1);
}

/// Runs the conformance suite on stores made by `make` (each isolated: its
/// own schema or key prefix), then removes every store it made with
/// `remove`, even when a contract fails. `first` is a store the caller
/// already made (to learn the server is there); it is removed too.
pub async fn conformance_with_cleanup<S, Make, MakeFut, Remove, RemoveFut>(
    first: S,
    make: Make,
    remove: Remove,
) where
    S: claude_agent::store::SessionStore + Clone + 'static,
    Make: Fn() -> MakeFut + Send + Sync + 'static,
    MakeFut: Future<Output = Result<S, claude_agent::store::StoreError>> + Send + 'static,
    Remove: Fn(S) -> RemoveFut,
    RemoveFut: Future<Output = ()>,
{
    use claude_agent_testkit::store_conformance::{ConformanceOptions, run_store_conformance};
    let made = Arc::new(std::sync::Mutex::new(vec![first]));
    let make = Arc::new(make);
    let body = {
        let made = Arc::clone(&made);
        async move {
            let report = run_store_conformance(
                || {
                    let (made, make) = (Arc::clone(&made), Arc::clone(&make));
                    async move {
                        let store = make().await?;
                        made.lock().unwrap().push(store.clone());
                        Ok::<_, claude_agent::store::StoreError>(store)
                    }
                },
                ConformanceOptions::default(),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}: {:?}", e.source));
            assert_eq!(report.passed.len(), 16, "{report:?}");
        }
    };
    with_cleanup(body, async move {
        let stores: Vec<S> = made.lock().unwrap().drain(..).collect();
        for store in stores {
            remove(store).await;
        }
    })
    .await;
}
