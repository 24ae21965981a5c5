//! `MemoryStore` against the session store conformance suite, directly and
//! through `open_store("memory:")`.

use std::sync::Arc;

use claude_agent::store::{MemoryStore, SessionStore, StoreError, open_store};
use claude_agent_testkit::store_conformance::{ConformanceOptions, run_store_conformance};

#[tokio::test]
async fn memory_store_passes_every_contract() {
    let report = run_store_conformance(
        || async { Ok::<_, StoreError>(MemoryStore::new()) },
        ConformanceOptions::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: {:?}", e.source));
    assert_eq!(report.passed.len(), 16, "{report:?}");
    assert!(report.skipped.is_empty(), "{report:?}");
}

#[tokio::test]
async fn memory_url_opens_a_shared_store_that_passes_every_contract() {
    let report = run_store_conformance(
        || async {
            open_store("memory:")
                .await
                .map(|s: Arc<dyn SessionStore>| s)
        },
        ConformanceOptions::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}: {:?}", e.source));
    assert_eq!(report.passed.len(), 16, "{report:?}");
}

/// A store implementing only the required methods: the optional contracts
/// are skipped, not failed.
#[derive(Debug, Default)]
struct Minimal(MemoryStore);

impl SessionStore for Minimal {
    fn append<'a>(
        &'a self,
        key: &'a claude_agent::store::SessionKey,
        entries: &'a [claude_agent::store::StoreEntry],
    ) -> futures::future::BoxFuture<'a, claude_agent::store::StoreResult<()>> {
        self.0.append(key, entries)
    }

    fn load<'a>(
        &'a self,
        key: &'a claude_agent::store::SessionKey,
    ) -> futures::future::BoxFuture<
        'a,
        claude_agent::store::StoreResult<Option<Vec<claude_agent::store::StoreEntry>>>,
    > {
        self.0.load(key)
    }
}

#[tokio::test]
async fn a_store_without_optional_methods_has_those_contracts_skipped() {
    let report = run_store_conformance(
        || async { Ok::<_, StoreError>(Minimal::default()) },
        ConformanceOptions::default(),
    )
    .await
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(report.passed.len(), 8, "{report:?}");
    assert_eq!(report.skipped.len(), 8, "{report:?}");
    let unsupported = Minimal::default().list_sessions("p").await;
    assert!(matches!(
        unsupported,
        Err(StoreError::Unsupported {
            operation: "list_sessions"
        })
    ));
}

/// A store that forgets the order of appends fails, naming the contract.
#[derive(Debug, Default)]
struct Reversed(MemoryStore);

impl SessionStore for Reversed {
    fn append<'a>(
        &'a self,
        key: &'a claude_agent::store::SessionKey,
        entries: &'a [claude_agent::store::StoreEntry],
    ) -> futures::future::BoxFuture<'a, claude_agent::store::StoreResult<()>> {
        self.0.append(key, entries)
    }

    fn load<'a>(
        &'a self,
        key: &'a claude_agent::store::SessionKey,
    ) -> futures::future::BoxFuture<
        'a,
        claude_agent::store::StoreResult<Option<Vec<claude_agent::store::StoreEntry>>>,
    > {
        Box::pin(async move {
            Ok(self.0.load(key).await?.map(|mut v| {
                v.reverse();
                v
            }))
        })
    }
}

#[tokio::test]
async fn a_broken_store_fails_with_the_contracts_name() {
    let err = run_store_conformance(
        || async { Ok::<_, StoreError>(Reversed::default()) },
        ConformanceOptions::default(),
    )
    .await
    .expect_err("a store that reverses entries must fail");
    assert_eq!(err.contract, "append_then_load_round_trips");
    assert!(
        err.to_string().contains("append_then_load_round_trips"),
        "{err}"
    );
}

#[tokio::test]
async fn a_batch_of_known_uuids_changes_nothing_not_even_the_mtime() {
    let store = MemoryStore::new();
    let key = claude_agent::store::SessionKey::new("p", "s");
    let entry = [serde_json::json!({"type": "x", "uuid": "u"}).into()];
    store.append(&key, &entry).await.expect("append");
    let before = (
        store.list_sessions("p").await.expect("list"),
        store.list_session_summaries("p").await.expect("summaries"),
    );
    store.append(&key, &entry).await.expect("append again");
    let after = (
        store.list_sessions("p").await.expect("list"),
        store.list_session_summaries("p").await.expect("summaries"),
    );
    assert_eq!(before, after);
    assert_eq!(
        store.load(&key).await.expect("load").map(|v| v.len()),
        Some(1)
    );
}
