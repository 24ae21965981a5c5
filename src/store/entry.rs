//! What a store lists: session listings and summaries (entries are
//! [`StoreEntry`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub(crate) use super::store_entry::StoreEntry;

/// One session of a project, as [`SessionStore::list_sessions`](super::SessionStore::list_sessions)
/// returns it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionListEntry {
    /// The session id.
    pub session_id: String,
    /// When the main transcript was last written, in Unix epoch
    /// milliseconds, by the store's own clock.
    pub mtime: i64,
}

/// A session's incrementally maintained summary, as
/// [`SessionStore::list_session_summaries`](super::SessionStore::list_session_summaries)
/// returns it. Stores produce it with [`fold_session_summary`](super::fold_session_summary)
/// inside `append` and persist it verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionSummary {
    /// The session id.
    pub session_id: String,
    /// When the store persisted this summary, in Unix epoch milliseconds,
    /// on the same clock as [`SessionListEntry::mtime`] (never derived from
    /// entry timestamps), so it is never older than the session's listed
    /// mtime after the same append.
    pub mtime: i64,
    /// The folded state; stores persist it without interpreting it.
    pub data: Map<String, Value>,
}

/// Milliseconds since the Unix epoch by the system clock (0 before 1970).
pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The entries of a batch to actually append, each with its uuid: those
/// without a uuid, and those whose uuid is neither `stored` already nor
/// seen earlier in the batch. Each entry's uuid is read once.
pub(crate) fn fresh_entries(
    entries: &[StoreEntry],
    mut stored: impl FnMut(&str) -> bool,
) -> Vec<(&StoreEntry, Option<std::borrow::Cow<'_, str>>)> {
    let mut seen = std::collections::HashSet::new();
    let mut fresh = Vec::with_capacity(entries.len());
    for entry in entries {
        let uuid = entry.uuid();
        let keep = match &uuid {
            Some(u) => !stored(u) && seen.insert(u.clone()),
            None => true,
        };
        if keep {
            fresh.push((entry, uuid));
        }
    }
    fresh
}
