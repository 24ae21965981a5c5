//! [`SessionSource`]: where the session helpers read and write.

use std::sync::Arc;

use super::error::SessionsError;
use super::local::LocalSessions;
use crate::store::SessionSummary;
use crate::store::{SessionKey, SessionStore, StoreEntry, fold_session_summary};

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

/// A session as a source lists it: its summary and, for local files, the
/// transcript's size in bytes.
#[derive(Debug, Clone)]
pub(crate) struct Listed {
    pub(crate) summary: SessionSummary,
    pub(crate) size: Option<u64>,
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

    /// Every session of `project_key` with its summary, in no order.
    pub(crate) async fn list(&self, project_key: &str) -> Result<Vec<Listed>, SessionsError> {
        match self {
            Self::Local(local) => {
                let mut listed = Vec::new();
                for file in local.list(project_key).await? {
                    let key = SessionKey::new(project_key, &file.session_id);
                    // Deleted since it was listed: not listed.
                    let Some(entries) = local.load(&key).await? else {
                        continue;
                    };
                    let mut summary = fold_session_summary(None, &key, &entries);
                    summary.mtime = file.mtime;
                    listed.push(Listed {
                        summary,
                        size: Some(file.size),
                    });
                }
                Ok(listed)
            }
            Self::Store(store) => match store.list_session_summaries(project_key).await {
                Ok(summaries) => Ok(summaries
                    .into_iter()
                    .map(|summary| Listed {
                        summary,
                        size: None,
                    })
                    .collect()),
                // No summaries: fold each listed session's entries.
                Err(e) if e.is_unsupported() => {
                    let mut listed = Vec::new();
                    for session in store.list_sessions(project_key).await? {
                        let key = SessionKey::new(project_key, &session.session_id);
                        let Some(entries) = store.load(&key).await? else {
                            continue;
                        };
                        let mut summary = fold_session_summary(None, &key, &entries);
                        summary.mtime = session.mtime;
                        listed.push(Listed {
                            summary,
                            size: None,
                        });
                    }
                    Ok(listed)
                }
                Err(e) => Err(e.into()),
            },
        }
    }

    /// One session's listing, or `NotFound`.
    pub(crate) async fn listed(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<Listed, SessionsError> {
        let key = SessionKey::new(project_key, session_id);
        let missing = || SessionsError::not_found(project_key, session_id);
        match self {
            Self::Local(local) => {
                let (entries, mtime, size) =
                    local.load_with_meta(&key).await?.ok_or_else(missing)?;
                let mut summary = fold_session_summary(None, &key, &entries);
                summary.mtime = mtime;
                Ok(Listed {
                    summary,
                    size: Some(size),
                })
            }
            Self::Store(store) => match store.list_session_summaries(project_key).await {
                Ok(summaries) => summaries
                    .into_iter()
                    .find(|s| s.session_id == session_id)
                    .map(|summary| Listed {
                        summary,
                        size: None,
                    })
                    .ok_or_else(missing),
                Err(e) if e.is_unsupported() => {
                    let entries = store.load(&key).await?.ok_or_else(missing)?;
                    let mtime = match store.list_sessions(project_key).await {
                        Ok(listed) => listed
                            .into_iter()
                            .find(|l| l.session_id == session_id)
                            .map_or(0, |l| l.mtime),
                        Err(e) if e.is_unsupported() => 0,
                        Err(e) => return Err(e.into()),
                    };
                    let mut summary = fold_session_summary(None, &key, &entries);
                    summary.mtime = mtime;
                    Ok(Listed {
                        summary,
                        size: None,
                    })
                }
                Err(e) => Err(e.into()),
            },
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
