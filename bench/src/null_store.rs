//! [`NullStore`]: a session store that keeps nothing, the mirror benchmarks'
//! side that pays for the frames and the mirror task but no backend.

use claude_agent::store::{
    SessionKey, SessionListEntry, SessionStore, SessionSummary, StoreEntry, StoreResult,
};
use futures::future::BoxFuture;

/// A store that keeps nothing: what the mirror's frames and task cost
/// apart from any backend.
#[derive(Debug, Clone, Copy)]
pub struct NullStore;

impl SessionStore for NullStore {
    fn append<'a>(
        &'a self,
        _: &'a SessionKey,
        _: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async { Ok(()) })
    }
    fn load<'a>(
        &'a self,
        _: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(async { Ok(None) })
    }
    fn list_sessions<'a>(
        &'a self,
        _: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        Box::pin(async { Ok(Vec::new()) })
    }
    fn list_session_summaries<'a>(
        &'a self,
        _: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        Box::pin(async { Ok(Vec::new()) })
    }
}
