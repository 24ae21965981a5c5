//! `RedisStore` against a real Redis server (`CLAUDE_AGENT_TEST_REDIS_URL`,
//! default `redis://127.0.0.1:6379`): the conformance suite and 50
//! concurrent writers, each test under key prefixes of its own, deleted
//! afterwards.

mod store_services;

use std::sync::{Arc, Mutex};

use claude_agent::store::{RedisOptions, RedisStore, SessionStore, StoreError};
use claude_agent_testkit::store_conformance::{ConformanceOptions, run_store_conformance};
use store_services::{concurrent_writers, skip_unreachable, unique, url, with_cleanup};

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
    let made = Arc::new(Mutex::new(vec![probe]));
    let body = {
        let made = Arc::clone(&made);
        async move {
            let report = run_store_conformance(
                || {
                    let made = Arc::clone(&made);
                    async move {
                        let store = RedisStore::connect(
                            &server(),
                            RedisOptions::default().prefix(unique("claude-agent-test")),
                        )
                        .await?;
                        made.lock().unwrap().push(store.clone());
                        Ok::<_, StoreError>(store)
                    }
                },
                ConformanceOptions::default(),
            )
            .await
            .unwrap_or_else(|e| panic!("{e}: {:?}", e.source));
            assert_eq!(report.passed.len(), 15, "{report:?}");
        }
    };
    with_cleanup(body, async move {
        let stores: Vec<RedisStore> = made.lock().unwrap().drain(..).collect();
        for store in stores {
            store.clear().await.expect("delete the test keys");
        }
    })
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
