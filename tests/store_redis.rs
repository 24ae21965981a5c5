//! `RedisStore` against a real Redis server (`CLAUDE_AGENT_TEST_REDIS_URL`,
//! default `redis://127.0.0.1:6379`): the conformance suite and 50
//! concurrent writers, each test under key prefixes of its own, deleted
//! afterwards.

mod store_services;

use std::sync::Arc;

use claude_agent::store::{RedisOptions, RedisStore, SessionStore, StoreError};
use store_services::{
    concurrent_writers, conformance_with_cleanup, skip_unreachable, unique, url, with_cleanup,
};

fn server() -> String {
    url("CLAUDE_AGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379")
}

/// Whether connecting failed because the server could not be reached
/// (and not, say, because of a bug in the store).
fn unreachable(error: &StoreError) -> bool {
    let cause =
        std::error::Error::source(error).and_then(|c| c.downcast_ref::<redis::RedisError>());
    cause.is_some_and(|e| e.is_io_error() || e.is_connection_refusal() || e.is_timeout())
}

async fn store_with_new_prefix() -> Option<RedisStore> {
    let url = server();
    match RedisStore::connect(
        &url,
        RedisOptions::default().prefix(unique("claude-agent-test")),
    )
    .await
    {
        Ok(store) => Some(store),
        Err(e) if unreachable(&e) => {
            skip_unreachable("Redis", &url, &e);
            None
        }
        Err(e) => panic!("{e}"),
    }
}

#[tokio::test]
#[ignore = "needs Redis; run with --include-ignored"]
async fn redis_store_passes_every_contract() {
    let Some(probe) = store_with_new_prefix().await else {
        return;
    };
    conformance_with_cleanup(
        probe,
        || async {
            RedisStore::connect(
                &server(),
                RedisOptions::default().prefix(unique("claude-agent-test")),
            )
            .await
        },
        |store: RedisStore| async move {
            store.clear().await.expect("delete the test keys");
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Redis; run with --include-ignored"]
async fn fifty_concurrent_redis_writers_store_every_entry_once_in_order() {
    let Some(store) = store_with_new_prefix().await else {
        return;
    };
    let shared: Arc<dyn SessionStore> = Arc::new(store.clone());
    with_cleanup(concurrent_writers(shared), async move {
        store.clear().await.expect("delete the test keys");
    })
    .await;
}
