//! [`import_session`]: copy a local session, with its subagent
//! transcripts, into a session store.

use std::sync::Arc;

use super::error::{SessionsError, check_session_id};
use super::local::LocalSessions;
use crate::store::{SessionKey, SessionStore};

/// Entries appended per store call: bounds each request's size.
const BATCH: usize = 500;

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
    check_session_id(session_id)?;
    let main = SessionKey::new(project_key, session_id);
    let entries = local
        .load(&main)
        .await?
        .ok_or_else(|| SessionsError::not_found(project_key, session_id))?;
    for batch in entries.chunks(BATCH) {
        store.append(&main, batch).await?;
    }
    let mut copied = 1;
    for subpath in local.subkeys(project_key, session_id).await? {
        let key = main.clone().with_subpath(subpath);
        let Some(entries) = local.load(&key).await? else {
            continue;
        };
        for batch in entries.chunks(BATCH) {
            store.append(&key, batch).await?;
        }
        copied += 1;
    }
    Ok(copied)
}
