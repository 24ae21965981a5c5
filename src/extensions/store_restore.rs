//! The session-store restore: with a store and
//! [`Options::resume`](crate::options::Options::resume) (or
//! [`continue_conversation`](crate::options::Options::continue_conversation)), the
//! stored session is written back where the CLI reads it, before the CLI
//! starts.

use std::sync::Arc;

use super::{Extension, PreStart};
use crate::Result;
use crate::store::materialize::materialize_loaded;
use crate::store::mirror;
use crate::store::{
    LOAD_TIMEOUT, SessionKey, SessionStore, is_session_id, latest_session, materialize_session,
    project_key_for,
};

/// Restores a resumed session from the store.
pub(crate) struct StoreRestoreExtension {
    store: Arc<dyn SessionStore>,
    /// The mirror's project key, when the builder set one.
    project_key: Option<String>,
}

impl StoreRestoreExtension {
    pub(crate) fn new(store: Arc<dyn SessionStore>, project_key: Option<String>) -> Self {
        Self { store, project_key }
    }
}

impl Extension for StoreRestoreExtension {
    fn name(&self) -> &str {
        "store_restore"
    }

    /// Writes the session's transcripts from the store where the CLI reads
    /// them (`<config>/projects/<sanitized cwd>/<id>.jsonl` and
    /// `<id>/<subpath>.jsonl`), unless they are there already. A resume id
    /// that is not a UUID, or a session the store does not have, is passed
    /// on as is. With `continue_conversation` instead, the store's newest
    /// non-sidechain session of the project is materialized and the CLI
    /// gets `--resume <id>` in place of `--continue`.
    async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        let options = start.options_mut();
        let resume = options.resume.clone();
        if resume.as_deref().is_some_and(|id| !is_session_id(id))
            || (resume.is_none() && !options.continue_conversation)
        {
            return Ok(());
        }
        let cwd = options.cwd.clone();
        // Resolving symlinks touches the filesystem: off the async workers.
        let local = tokio::task::spawn_blocking(move || {
            let cwd = cwd
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_default();
            project_key_for(&cwd)
        })
        .await
        .map_err(|e| crate::Error::InvalidConfig(format!("resolving the cwd failed: {e}")))?;
        let project = self.project_key.clone().unwrap_or_else(|| local.clone());
        let dir = mirror::projects_dir(&options.env).join(local);
        let store = &*self.store;
        let within = options.load_timeout.unwrap_or(LOAD_TIMEOUT);
        let done = match resume {
            Some(id) => {
                let key = SessionKey::new(project, id);
                materialize_session(store, &key, &dir, within).await?
            }
            None => match latest_session(store, &project, within).await? {
                Some((id, main)) => {
                    let key = SessionKey::new(project, id.clone());
                    let done = materialize_loaded(store, &key, main, &dir, within).await?;
                    tracing::debug!(%key, "continue: resuming the store's newest session");
                    options.resume = Some(id);
                    Some(done)
                }
                None => None,
            },
        };
        if let Some(done) = done {
            // Resolved to one session: `--continue` next to `--resume`
            // would be the CLI's to arbitrate.
            options.continue_conversation = false;
            tracing::debug!(
                files = done.files,
                entries = done.entries,
                "resume: restored from the session store"
            );
        }
        Ok(())
    }
}
