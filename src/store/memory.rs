//! [`MemoryStore`]: a session store in this process's memory.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

use futures::future::BoxFuture;

use super::entry::{SessionListEntry, SessionSummary, StoreEntry, fresh_entries, now_ms};
use super::key::SessionKey;
use super::session_store::{SessionStore, StoreResult, check_append, check_key};
use super::summary::fold_entries;

/// A [`SessionStore`] in memory: for tests, development, and sessions that
/// only need to survive a CLI restart within one process. Implements every
/// optional method. Everything is lost when the store is dropped.
#[derive(Debug, Default)]
pub struct MemoryStore {
    // A plain mutex: no operation awaits while holding it.
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    transcripts: BTreeMap<SessionKey, Transcript>,
    summaries: HashMap<(String, String), SessionSummary>,
    last_mtime: i64,
}

#[derive(Debug, Default)]
struct Transcript {
    entries: Vec<StoreEntry>,
    uuids: HashSet<String>,
    mtime: i64,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave `State` half-updated
        // in a way later calls would misread, so a poisoned lock is used.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl State {
    /// A write time strictly after every earlier one, so back-to-back
    /// appends get distinct mtimes.
    fn next_mtime(&mut self) -> i64 {
        self.last_mtime = now_ms().max(self.last_mtime + 1);
        self.last_mtime
    }

    fn append(&mut self, key: &SessionKey, entries: &[StoreEntry]) {
        let stored = self.transcripts.get(key).map(|t| &t.uuids);
        let fresh = fresh_entries(entries, |u| stored.is_some_and(|s| s.contains(u)));
        if fresh.is_empty() {
            // Every entry was known: change nothing, not even the mtime.
            return;
        }
        let mtime = self.next_mtime();
        let transcript = self.transcripts.entry(key.clone()).or_default();
        for (entry, uuid) in &fresh {
            if let Some(uuid) = uuid {
                transcript.uuids.insert(uuid.to_string());
            }
            transcript.entries.push((*entry).clone());
        }
        transcript.mtime = mtime;
        if key.is_main() {
            let id = (key.project_key.clone(), key.session_id.clone());
            let mut folded =
                fold_entries(self.summaries.get(&id), key, fresh.iter().map(|(e, _)| *e));
            folded.mtime = mtime;
            self.summaries.insert(id, folded);
        }
    }

    fn sessions_of<'s>(
        &'s self,
        project_key: &'s str,
    ) -> impl Iterator<Item = (&'s SessionKey, &'s Transcript)> + 's {
        self.transcripts
            .range(SessionKey::new(project_key, "")..)
            .take_while(move |(k, _)| k.project_key == project_key)
    }

    fn subkeys_of<'s>(
        &'s self,
        project_key: &'s str,
        session_id: &'s str,
    ) -> impl Iterator<Item = &'s SessionKey> + 's {
        self.sessions_of(project_key)
            .map(|(k, _)| k)
            .filter(move |k| k.session_id == session_id && !k.is_main())
    }
}

impl SessionStore for MemoryStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_append(key, entries)?;
            if !entries.is_empty() {
                self.state().append(key, entries);
            }
            Ok(())
        })
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(async move {
            check_key(key)?;
            Ok(self.state().transcripts.get(key).map(|t| t.entries.clone()))
        })
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        Box::pin(async move {
            let state = self.state();
            Ok(state
                .sessions_of(project_key)
                .filter(|(k, _)| k.is_main())
                .map(|(k, t)| SessionListEntry {
                    session_id: k.session_id.clone(),
                    mtime: t.mtime,
                })
                .collect())
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        Box::pin(async move {
            let state = self.state();
            Ok(state
                .summaries
                .iter()
                .filter(|((p, _), _)| p == project_key)
                .map(|(_, s)| s.clone())
                .collect())
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_key(key)?;
            let mut state = self.state();
            if key.is_main() {
                let doomed: Vec<SessionKey> = state
                    .subkeys_of(&key.project_key, &key.session_id)
                    .cloned()
                    .collect();
                for sub in doomed {
                    state.transcripts.remove(&sub);
                }
                state
                    .summaries
                    .remove(&(key.project_key.clone(), key.session_id.clone()));
            }
            state.transcripts.remove(key);
            Ok(())
        })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        Box::pin(async move {
            let state = self.state();
            Ok(state
                .subkeys_of(project_key, session_id)
                .filter_map(|k| k.subpath.clone())
                .collect())
        })
    }
}
