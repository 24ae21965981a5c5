//! `PostgresStore` against a real PostgreSQL server
//! (`CLAUDE_AGENT_TEST_POSTGRES_URL`, default
//! `postgres://postgres@127.0.0.1:5432/test`): the conformance suite and 50
//! concurrent writers, each test in schemas of its own, dropped afterwards.

mod store_services;

use std::sync::Arc;

use claude_agent::store::{PostgresOptions, PostgresStore, SessionStore};
use store_services::{
    concurrent_writers, conformance_with_cleanup, io_in_chain, skip_unreachable, unique, url,
    with_cleanup,
};

fn server() -> String {
    url(
        "CLAUDE_AGENT_TEST_POSTGRES_URL",
        "postgres://postgres@127.0.0.1:5432/test",
    )
}

/// A store in a fresh schema, or `None` (after saying why) when the server
/// is unreachable.
async fn store_in_new_schema() -> Option<PostgresStore> {
    let url = server();
    match PostgresStore::connect(
        &url,
        PostgresOptions::default().schema(unique("claude_agent_test")),
    )
    .await
    {
        Ok(store) => Some(store),
        Err(e) if io_in_chain(&e) => {
            skip_unreachable("PostgreSQL", &url, &e);
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn postgres_store_passes_every_contract() {
    let Some(probe) = store_in_new_schema().await else {
        return;
    };
    conformance_with_cleanup(
        probe,
        || async {
            PostgresStore::connect(
                &server(),
                PostgresOptions::default().schema(unique("claude_agent_test")),
            )
            .await
        },
        |store: PostgresStore| async move {
            store.drop_schema().await.expect("drop the test schema");
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn fifty_concurrent_postgres_writers_store_every_entry_once_in_order() {
    let Some(store) = store_in_new_schema().await else {
        return;
    };
    let shared: Arc<dyn SessionStore> = Arc::new(store.clone());
    with_cleanup(concurrent_writers(shared), async move {
        store.drop_schema().await.expect("drop the test schema");
    })
    .await;
}

#[tokio::test]
#[ignore = "needs PostgreSQL; run with --include-ignored"]
async fn two_postgres_stores_migrating_one_schema_at_once_both_work() {
    let Some(first) = store_in_new_schema().await else {
        return;
    };
    first.drop_schema().await.expect("start from no schema");
    let schema = unique("claude_agent_test");
    let url = server();
    let connect =
        || PostgresStore::connect(&url, PostgresOptions::default().schema(schema.clone()));
    let (a, b) = tokio::join!(connect(), connect());
    let (a, b) = (a.expect("first migration"), b.expect("second migration"));
    let key = claude_agent::store::SessionKey::new("p", "s");
    let body = {
        let (a, b, key) = (a.clone(), b.clone(), key.clone());
        async move {
            a.append(
                &key,
                &[serde_json::json!({"type": "x", "uuid": "1"}).into()],
            )
            .await
            .expect("append");
            assert_eq!(b.load(&key).await.expect("load").map(|v| v.len()), Some(1));
        }
    };
    with_cleanup(body, async move { a.drop_schema().await.expect("drop") }).await;
}
