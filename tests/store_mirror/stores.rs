//! Stores that misbehave on purpose, around a `MemoryStore`: one failing
//! its first appends, one whose appends wait for the test.

use std::sync::atomic::{AtomicU32, Ordering};

use claude_agent::store::{
    MemoryStore, SessionKey, SessionStore, StoreEntry, StoreError, StoreResult,
};
use futures::future::BoxFuture;
use tokio::sync::{Notify, watch};

/// Fails its first `failures` appends with a backend error.
pub(crate) struct Flaky {
    pub(crate) inner: MemoryStore,
    failures: u32,
    calls: AtomicU32,
}

impl Flaky {
    pub(crate) fn new(failures: u32) -> Self {
        Self {
            inner: MemoryStore::new(),
            failures,
            calls: AtomicU32::new(0),
        }
    }

    /// Appends attempted so far.
    pub(crate) fn calls(&self) -> u32 {
        self.calls.load(Ordering::SeqCst)
    }
}

impl SessionStore for Flaky {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            if call < self.failures {
                return Err(StoreError::Backend {
                    action: format!("append to {key}"),
                    source: "the test store is down".into(),
                });
            }
            self.inner.append(key, entries).await
        })
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        self.inner.load(key)
    }
}

/// Every append waits until [`release`](Self::release).
pub(crate) struct Blocking {
    pub(crate) inner: MemoryStore,
    gate: watch::Sender<bool>,
    entered: Notify,
}

impl Blocking {
    pub(crate) fn new() -> Self {
        Self {
            inner: MemoryStore::new(),
            gate: watch::channel(false).0,
            entered: Notify::new(),
        }
    }

    /// Resolves once an append has started (and is waiting).
    pub(crate) async fn entered(&self) {
        self.entered.notified().await;
    }

    /// Lets every append through, now and later.
    pub(crate) fn release(&self) {
        self.gate.send_replace(true);
    }
}

impl SessionStore for Blocking {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let mut gate = self.gate.subscribe();
            self.entered.notify_one();
            let _ = gate.wait_for(|open| *open).await;
            self.inner.append(key, entries).await
        })
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        self.inner.load(key)
    }
}

/// Fails every call.
pub(crate) struct Broken;

impl SessionStore for Broken {
    fn append<'a>(
        &'a self,
        _key: &'a SessionKey,
        _entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async { Err(StoreError::unsupported("append")) })
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(async move {
            Err(StoreError::Backend {
                action: format!("load {key}"),
                source: "the test store is down".into(),
            })
        })
    }
}
