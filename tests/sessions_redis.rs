//! The session helpers over a `RedisStore` on a real Redis server
//! (`CLAUDE_AGENT_TEST_REDIS_URL`, default `redis://127.0.0.1:6379`),
//! under a key prefix of its own, deleted afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sessions_common;
mod store_services;

use std::sync::Arc;

use claude_agent::sessions::{LocalSessions, SessionSource, import_session};
use claude_agent::store::{RedisOptions, RedisStore, SessionStore, StoreError};
use sessions_common::{PROJECT, SESSION, projects_dir, scenario};
use store_services::{skip_unreachable, unique, url, with_cleanup};

/// Whether connecting failed because the server could not be reached.
fn unreachable(error: &StoreError) -> bool {
    let cause =
        std::error::Error::source(error).and_then(|c| c.downcast_ref::<redis::RedisError>());
    cause.is_some_and(|e| e.is_io_error() || e.is_connection_refusal() || e.is_timeout())
}

#[tokio::test]
#[ignore = "needs Redis; run with --include-ignored"]
async fn a_session_imported_into_redis_reads_and_mutates_the_same() {
    let server = url("CLAUDE_AGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379");
    let store = match RedisStore::connect(
        &server,
        RedisOptions::default().prefix(unique("claude-agent-sessions")),
    )
    .await
    {
        Ok(store) => Arc::new(store),
        Err(e) if unreachable(&e) => return skip_unreachable("Redis", &server, &e),
        Err(e) => panic!("{e}"),
    };
    let body = {
        let store = Arc::clone(&store);
        async move {
            let root = tempfile::tempdir().unwrap();
            let local = LocalSessions::new(projects_dir(root.path()));
            let shared: Arc<dyn SessionStore> = store;
            assert_eq!(
                import_session(&local, &shared, PROJECT, SESSION)
                    .await
                    .unwrap(),
                2
            );
            scenario(&SessionSource::Store(shared), false).await;
        }
    };
    with_cleanup(body, async move {
        store.clear().await.expect("delete the test keys");
    })
    .await;
}
