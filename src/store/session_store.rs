//! The [`SessionStore`] trait: where session transcripts are mirrored so a
//! session can outlive its process and machine.

use std::sync::Arc;

use futures::future::BoxFuture;

use super::entry::{SessionListEntry, SessionSummary, StoreEntry};
use super::error::StoreError;
use super::key::SessionKey;

/// A result of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// Durable storage for session transcripts (the CLI's JSONL entries),
/// shared by every session of a process and, for the file, PostgreSQL and
/// Redis stores, by every process using the same backend.
///
/// Object safe (the runtime holds an `Arc<dyn SessionStore>`): every method
/// returns a boxed `Send` future borrowing its arguments, which keeps
/// callers free to retry a batch without cloning it. Implement one with
/// `Box::pin(async move { ... })`.
///
/// Entries travel as [`StoreEntry`]: each the JSON text the CLI wrote, so
/// a store passes it through (a file line, a `jsonb` cast on the server, a
/// Redis string) and reads only the members it needs (the `uuid`, the
/// summary's fields) without building a `serde_json::Value` per entry.
///
/// # The contract
///
/// - [`append`](Self::append) persists a batch in order, after everything
///   appended to the same key before it returned; across processes, order
///   is by commit. Every entry must be a JSON object: a batch holding
///   anything else is rejected whole with [`StoreError::NotAnObject`].
///   An entry whose (non-empty, string) [`uuid`](StoreEntry::uuid) is
///   already stored under the same key (including earlier in the same
///   batch) is skipped, so retries and replays never duplicate; entries
///   without one are always appended. An empty batch changes nothing. For a main key the store folds the
///   appended entries into the session's summary
///   ([`fold_session_summary`](super::fold_session_summary)) atomically with
///   the append; subpath keys never touch the summary.
/// - [`load`](Self::load) returns the entries deep-equal (the JSON values
///   equal, as `StoreEntry`'s `==` compares them; key order and spacing
///   may change) and in order, or `None` for a key never written (or
///   deleted).
/// - Keys are isolated: a project key, a session and each subpath of it
///   are separate transcripts.
/// - The optional methods return [`StoreError::Unsupported`] unless the
///   store implements them; callers probe for that.
/// - Listed `mtime`s are Unix epoch milliseconds of the store's own write
///   clock; a summary's `mtime` is on the same clock and not older than the
///   session's listed `mtime`.
///
/// `claude_agent_testkit::store_conformance` checks all of this for any
/// implementation.
pub trait SessionStore: Send + Sync {
    /// Append a batch of entries to `key` (see the contract above).
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>>;

    /// Every entry of `key`, in append order; `None` if it was never
    /// written.
    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>>;

    /// The sessions of `project_key` with their main transcripts' mtimes,
    /// in no particular order; subpaths are not listed.
    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        let _ = project_key;
        Box::pin(async { Err(StoreError::unsupported("list_sessions")) })
    }

    /// The summary of every session of `project_key`, in no particular
    /// order.
    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        let _ = project_key;
        Box::pin(async { Err(StoreError::unsupported("list_session_summaries")) })
    }

    /// Delete `key`'s transcript. For a main key this also deletes every
    /// subpath of the session and its summary; for a subpath key only that
    /// transcript. Deleting what does not exist succeeds.
    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        let _ = key;
        Box::pin(async { Err(StoreError::unsupported("delete")) })
    }

    /// The subpaths stored under a session (e.g. `subagents/agent-1`), in
    /// no particular order; the main transcript is not one.
    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        let _ = (project_key, session_id);
        Box::pin(async { Err(StoreError::unsupported("list_subkeys")) })
    }
}

/// A shared store is a store, so generic code takes `Arc<dyn SessionStore>`
/// as readily as a concrete one.
impl<S: SessionStore + ?Sized> SessionStore for Arc<S> {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        (**self).append(key, entries)
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        (**self).load(key)
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        (**self).list_sessions(project_key)
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        (**self).list_session_summaries(project_key)
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        (**self).delete(key)
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        (**self).list_subkeys(project_key, session_id)
    }
}

/// Reject a key no store can hold, and a batch with an entry that is not a
/// JSON object: the checks every store makes before touching its backend.
pub(crate) fn check_append(key: &SessionKey, entries: &[StoreEntry]) -> StoreResult<()> {
    check_key(key)?;
    match entries.iter().position(|e| !e.is_object()) {
        Some(index) => Err(StoreError::NotAnObject {
            key: key.to_string(),
            index,
        }),
        None => Ok(()),
    }
}

/// Reject a key no store can hold (an empty part).
pub(crate) fn check_key(key: &SessionKey) -> StoreResult<()> {
    match key.problem() {
        Some(reason) => Err(StoreError::invalid_key(key, reason)),
        None => Ok(()),
    }
}
