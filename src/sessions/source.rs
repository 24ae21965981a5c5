//! [`SessionSource`]: where the session helpers read and write.

use std::sync::Arc;

use super::error::SessionsError;
use super::local::LocalSessions;
use crate::store::{SessionKey, SessionStore, StoreEntry};

/// `entries` as JSON trees, for the helpers that walk or rewrite them
/// (an entry too deeply nested for a tree is left out).
pub(crate) fn values(entries: &[StoreEntry]) -> Vec<serde_json::Value> {
    entries.iter().filter_map(|e| e.to_value().ok()).collect()
}

/// The CLI's local transcripts or a session store.
#[derive(Clone)]
pub enum SessionSource {
    /// The CLI's transcripts on this machine.
    Local(LocalSessions),
    /// A session store (what a mirror writes to).
    Store(Arc<dyn SessionStore>),
}

impl std::fmt::Debug for SessionSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Local(local) => f.debug_tuple("Local").field(local).finish(),
            Self::Store(_) => f.write_str("Store"),
        }
    }
}

impl SessionSource {
    /// The CLI's default config folder ([`LocalSessions::from_env`]).
    pub fn local_default() -> Result<Self, SessionsError> {
        LocalSessions::from_env().map(Self::Local)
    }

    /// Every entry of `key`, in order; `None` if it does not exist.
    pub(crate) async fn load(
        &self,
        key: &SessionKey,
    ) -> Result<Option<Vec<StoreEntry>>, SessionsError> {
        match self {
            Self::Local(local) => local.load(key).await,
            Self::Store(store) => Ok(store.load(key).await?),
        }
    }

    /// Every entry of a session's main transcript, or `NotFound`.
    pub(crate) async fn load_session(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<Vec<StoreEntry>, SessionsError> {
        super::error::check_session_id(session_id)?;
        self.load(&SessionKey::new(project_key, session_id))
            .await?
            .ok_or_else(|| SessionsError::not_found(project_key, session_id))
    }

    /// Append to an existing session (`create` false) or a new one.
    pub(crate) async fn append(
        &self,
        key: &SessionKey,
        entries: &[StoreEntry],
        create: bool,
    ) -> Result<(), SessionsError> {
        match self {
            Self::Local(local) => local.append(key, entries, create).await,
            Self::Store(store) => {
                if !create && store.load(&key.main()).await?.is_none() {
                    return Err(SessionsError::not_found(&key.project_key, &key.session_id));
                }
                Ok(store.append(key, entries).await?)
            }
        }
    }

    /// Delete a session and its subagent transcripts.
    pub(crate) async fn delete(&self, key: &SessionKey) -> Result<(), SessionsError> {
        match self {
            Self::Local(local) => local.delete(key).await,
            Self::Store(store) => {
                if store.load(key).await?.is_none() {
                    return Err(SessionsError::not_found(&key.project_key, &key.session_id));
                }
                Ok(store.delete(key).await?)
            }
        }
    }

    /// The subpaths stored under a session, sorted; none when a store
    /// cannot list them.
    pub(crate) async fn subkeys(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<Vec<String>, SessionsError> {
        match self {
            Self::Local(local) => local.subkeys(project_key, session_id).await,
            Self::Store(store) => match store.list_subkeys(project_key, session_id).await {
                Ok(mut subkeys) => {
                    subkeys.sort();
                    Ok(subkeys)
                }
                Err(e) if e.is_unsupported() => Ok(Vec::new()),
                Err(e) => Err(e.into()),
            },
        }
    }
}
