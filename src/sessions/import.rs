//! [`import_session`]: copy a local session, with its subagent
//! transcripts and their metadata, into a session store.

use std::sync::Arc;

use serde_json::Value;

use super::error::{SessionsError, check_session_id};
use super::local::LocalSessions;
use crate::store::{SessionKey, SessionStore, StoreEntry};

/// Entries appended per store call by default (the official SDKs' 500).
const BATCH: usize = 500;

/// How [`import_session_with`] copies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportOptions {
    /// Also copy the subagent transcripts (and their `.meta.json`
    /// metadata, as `agent_metadata` entries). Default `true`.
    pub include_subagents: bool,
    /// Entries per `append` call, bounding each request (default 500; 0
    /// means the default).
    pub batch_size: usize,
}

impl Default for ImportOptions {
    fn default() -> Self {
        Self {
            include_subagents: true,
            batch_size: BATCH,
        }
    }
}

/// Copy session `session_id` of `project_key` from the CLI's local
/// transcripts into `store` under the same key: the main transcript and
/// every subagent transcript. Appends are idempotent by entry uuid, so
/// importing again adds only what is new. Returns how many transcripts
/// were copied.
pub async fn import_session(
    local: &LocalSessions,
    store: &Arc<dyn SessionStore>,
    project_key: &str,
    session_id: &str,
) -> Result<usize, SessionsError> {
    import_session_with(
        local,
        store,
        project_key,
        session_id,
        &ImportOptions::default(),
    )
    .await
}

/// [`import_session`] with options (the official SDKs'
/// `include_subagents` and `batch_size`). A subagent's `.meta.json` goes
/// in as one `agent_metadata` entry, as the live mirror sends it and as
/// the Python SDK imports it, so a resume from the store restores it;
/// importing again does not repeat an unchanged one.
pub async fn import_session_with(
    local: &LocalSessions,
    store: &Arc<dyn SessionStore>,
    project_key: &str,
    session_id: &str,
    options: &ImportOptions,
) -> Result<usize, SessionsError> {
    check_session_id(session_id)?;
    let batch = if options.batch_size == 0 {
        BATCH
    } else {
        options.batch_size
    };
    let main = SessionKey::new(project_key, session_id);
    let entries = local
        .load(&main)
        .await?
        .ok_or_else(|| SessionsError::not_found(project_key, session_id))?;
    for chunk in entries.chunks(batch) {
        store.append(&main, chunk).await?;
    }
    let mut copied = 1;
    if !options.include_subagents {
        return Ok(copied);
    }
    for subpath in local.subkeys(project_key, session_id).await? {
        let key = main.clone().with_subpath(subpath);
        let Some(entries) = local.load(&key).await? else {
            continue;
        };
        for chunk in entries.chunks(batch) {
            store.append(&key, chunk).await?;
        }
        if let Some(Value::Object(mut meta)) = local.sidecar(&key).await? {
            // The synthetic type last, so a stray `type` in the sidecar
            // cannot shadow it.
            meta.insert("type".into(), "agent_metadata".into());
            let meta = Value::Object(meta);
            if last_metadata(store, &key).await?.as_ref() != Some(&meta) {
                store.append(&key, &[StoreEntry::from_value(&meta)]).await?;
            }
        }
        copied += 1;
    }
    Ok(copied)
}

/// The last `agent_metadata` entry stored under a subagent's key.
async fn last_metadata(
    store: &Arc<dyn SessionStore>,
    key: &SessionKey,
) -> Result<Option<Value>, SessionsError> {
    Ok(store
        .load(key)
        .await?
        .unwrap_or_default()
        .iter()
        .rev()
        .find(|e| e.str_field("type").as_deref() == Some("agent_metadata"))
        .and_then(|e| e.to_value().ok()))
}
