//! The session helpers over a `PostgresStore` on a real PostgreSQL server
//! (`CLAUDE_AGENT_TEST_POSTGRES_URL`, default
//! `postgres://postgres@127.0.0.1:5432/test`), in a schema of its own,
//! dropped afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sessions_common;
mod store_services;

use std::sync::Arc;

use claude_agent::sessions::{LocalSessions, SessionSource, import_session};
use claude_agent::store::{PostgresOptions, PostgresStore, SessionStore};
use sessions_common::{PROJECT, SESSION, projects_dir, scenario};
use store_services::{io_in_chain, skip_unreachable, unique, url, with_cleanup};

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn a_session_imported_into_postgres_reads_and_mutates_the_same() {
    let server = url(
        "CLAUDE_AGENT_TEST_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    );
    let store = match PostgresStore::connect(
        &server,
        PostgresOptions::default().schema(unique("claude_agent_sessions")),
    )
    .await
    {
        Ok(store) => Arc::new(store),
        Err(e) if io_in_chain(&e) => return skip_unreachable("PostgreSQL", &server, &e),
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
        store.drop_schema().await.expect("drop the test schema");
    })
    .await;
}
