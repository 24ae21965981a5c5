//! `continue_conversation` with a store: which stored session the CLI
//! resumes, as the official SDKs choose it.

use std::time::Duration;

use super::materialize::{ResumeError, is_session_id, load};
use super::{SessionKey, SessionStore, StoreEntry};

/// The session `continue_conversation` resumes from `store`: the most
/// recently written session of `project_key` whose transcript does not
/// start as a sidechain, with its main transcript. `None` when the project
/// has none (the CLI then starts a fresh session, as `--continue` does with
/// no history).
///
/// Candidates are loaded newest first: subagent transcripts written as
/// top-level sessions often carry the highest mtime, and only their first
/// entry (`"isSidechain": true`) tells them apart. Ids that are not UUIDs
/// are skipped: they would not be safe as file names. Each store call is
/// bounded by `within`.
pub async fn latest_session(
    store: &dyn SessionStore,
    project_key: &str,
    within: Duration,
) -> Result<Option<(String, Vec<StoreEntry>)>, ResumeError> {
    let listed = match tokio::time::timeout(within, store.list_sessions(project_key)).await {
        Ok(Ok(listed)) => listed,
        Ok(Err(source)) => {
            return Err(ResumeError::List {
                project_key: project_key.to_owned(),
                source,
            });
        }
        Err(_) => {
            return Err(ResumeError::Timeout {
                key: project_key.to_owned(),
                after: within,
            });
        }
    };
    let mut candidates: Vec<_> = listed
        .into_iter()
        .filter(|s| is_session_id(&s.session_id))
        .collect();
    // Newest first; equal mtimes in a stable order so the choice is
    // reproducible.
    candidates.sort_by(|a, b| b.mtime.cmp(&a.mtime).then(a.session_id.cmp(&b.session_id)));
    for candidate in candidates {
        let key = SessionKey::new(project_key, candidate.session_id);
        let Some(entries) = load(store, &key, within).await?.filter(|e| !e.is_empty()) else {
            continue;
        };
        let sidechain = super::store_entry::raw_is_true(entries[0].field("isSidechain"));
        if !sidechain {
            return Ok(Some((key.session_id, entries)));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use serde_json::json;

    const OLD: &str = "00000000-0000-4000-8000-000000000001";
    const NEW: &str = "00000000-0000-4000-8000-000000000002";
    const SIDE: &str = "00000000-0000-4000-8000-000000000003";

    async fn put(store: &MemoryStore, id: &str, first: serde_json::Value) {
        let key = SessionKey::new("p", id);
        store.append(&key, &[first.into()]).await.unwrap();
    }

    // The memory store gives every append a strictly newer mtime.
    #[tokio::test]
    async fn the_newest_session_that_is_not_a_sidechain_is_chosen() {
        let store = MemoryStore::new();
        put(&store, OLD, json!({"uuid": "a", "type": "user"})).await;
        put(&store, NEW, json!({"uuid": "b", "type": "user"})).await;
        put(&store, SIDE, json!({"uuid": "c", "isSidechain": true})).await;
        put(&store, "not-a-uuid", json!({"uuid": "d"})).await;
        let (id, entries) = latest_session(&store, "p", crate::store::LOAD_TIMEOUT)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(id, NEW);
        assert_eq!(entries, [json!({"uuid": "b", "type": "user"})]);
    }

    #[tokio::test]
    async fn a_project_without_sessions_continues_nothing() {
        let store = MemoryStore::new();
        put(&store, SIDE, json!({"uuid": "c", "isSidechain": true})).await;
        assert_eq!(
            latest_session(&store, "p", crate::store::LOAD_TIMEOUT)
                .await
                .unwrap(),
            None
        );
        assert_eq!(
            latest_session(&store, "other", crate::store::LOAD_TIMEOUT)
                .await
                .unwrap(),
            None
        );
    }
}
