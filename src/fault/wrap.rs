//! The callbacks and the session store, wrapped so the plan's faults reach
//! them: a callback that hangs or panics, appends that stall or fail.

use std::sync::Arc;

use claude_agent_actors::{CancellationToken, HandlerError, InboundHandler, InboundRequest};
use futures::future::BoxFuture;
use serde_json::Value;

use super::action::Action;
use super::engine::StoreGate;
use super::pipes::EngineSlot;
use crate::store::{
    SessionKey, SessionListEntry, SessionStore, SessionSummary, StoreEntry, StoreError, StoreResult,
};

fn engine(slot: &EngineSlot) -> Option<Arc<super::engine::Engine>> {
    crate::extensions::lock(slot).clone()
}

/// The session's callbacks, with `hang-callback` and `panic-callback`.
pub(crate) struct FaultInbound {
    pub(crate) inner: Arc<dyn InboundHandler>,
    pub(crate) slot: EngineSlot,
}

impl InboundHandler for FaultInbound {
    fn handle(
        &self,
        request: InboundRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let fault = engine(&self.slot).and_then(|e| e.callback_fault(&request.request_id));
        match fault {
            // Hangs as a stuck callback would: until the runtime cancels it
            // (its callback timeout, the shutdown).
            Some(Action::HangCallback) => Box::pin(async move {
                cancel.cancelled().await;
                Err(HandlerError::new(
                    "the callback hung (fault injected) and was cancelled",
                ))
            }),
            Some(Action::PanicCallback) => Box::pin(async move {
                panic!("the callback panicked (fault injected)");
            }),
            _ => self.inner.handle(request, cancel),
        }
    }
}

/// The session store, with `stall-store` and `fail-store` on appends.
pub(crate) struct FaultStore {
    pub(crate) inner: Arc<dyn SessionStore>,
    pub(crate) slot: EngineSlot,
}

impl SessionStore for FaultStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            let gate = engine(&self.slot)
                .map(|e| e.store_gate())
                .unwrap_or_default();
            let StoreGate { stall, fail } = gate;
            if let Some(d) = stall {
                tokio::time::sleep(d).await;
            }
            if let Some(fault) = fail {
                return Err(StoreError::backend(
                    "append",
                    format!("the append failed (fault injected: {fault})"),
                ));
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

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        self.inner.list_sessions(project_key)
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        self.inner.list_session_summaries(project_key)
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        self.inner.delete(key)
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        self.inner.list_subkeys(project_key, session_id)
    }
}
