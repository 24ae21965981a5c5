//! Mirroring a session's transcript into a [`SessionStore`]: the builder's
//! settings and the wiring of the mirror task into a starting session.

use std::sync::Arc;
use std::time::Duration;

use claude_agent_actors::SessionConfig;
use tokio::sync::mpsc;

use super::ClientBuilder;
use crate::Result;
use crate::protocol::Message;
use crate::store::materialize::materialize_loaded;
use crate::store::mirror::{self, MirrorHandle, MirrorMode};
use crate::store::{
    SessionKey, SessionStore, is_session_id, latest_session, materialize_session, project_key_for,
};

impl ClientBuilder {
    /// Mirrors the session's transcript into `store`: the CLI is started
    /// with `--session-mirror` and its `transcript_mirror` frames are
    /// appended to the store off the read loop (see
    /// [`store::mirror`](crate::store::mirror) for batching, retries, the
    /// overflow policy and shutdown). The frames do not appear in the
    /// message stream; a batch the store could not keep does, as a
    /// `system/mirror_error` message.
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.runtime.session_store = Some(store);
        self
    }

    /// The project key of every mirrored transcript, instead of the one in
    /// the CLI's file path (the sanitized working directory): e.g. a
    /// tenant id on a multi-tenant host.
    pub fn store_project_key(mut self, project_key: impl Into<String>) -> Self {
        self.runtime.mirror.project_key = Some(project_key.into());
        self
    }

    /// When mirrored entries are appended (default
    /// [`MirrorMode::Batched`]: once per turn).
    pub fn mirror_mode(mut self, mode: MirrorMode) -> Self {
        self.runtime.mirror.mode = mode;
        self
    }

    /// How long the shutdown waits for pending appends once the CLI has
    /// exited (default 10 s); what is still pending then counts as
    /// unpersisted in the report.
    pub fn mirror_flush_deadline(mut self, deadline: Duration) -> Self {
        self.runtime.mirror.flush_deadline = deadline;
        self
    }

    /// With a store and [`Options::resume`](crate::Options::resume): writes
    /// the session's transcripts from the store where the CLI reads them
    /// (`<config>/projects/<sanitized cwd>/<id>.jsonl` and `<id>/<subpath>.jsonl`),
    /// unless they are there already, so the resume works on a machine or
    /// config directory that never ran the session. A resume id that is not
    /// a UUID, or a session the store does not have, is passed on as is.
    ///
    /// With [`Options::continue_conversation`](crate::Options::continue_conversation)
    /// instead, the store's newest non-sidechain session of the project
    /// (see [`latest_session`]) is materialized and the CLI gets
    /// `--resume <id>` in place of `--continue`, as the official SDKs do:
    /// the store, not the local disk, says which conversation is the last.
    /// A project with no stored session leaves `--continue` as it is.
    /// `fork_session` and `resume_session_at` apply to the resumed session
    /// either way.
    pub(crate) async fn restore_from_store(&mut self) -> Result<()> {
        let Some(store) = self.runtime.session_store.clone() else {
            return Ok(());
        };
        let resume = self.options.resume.clone();
        if resume.as_deref().is_some_and(|id| !is_session_id(id))
            || (resume.is_none() && !self.options.continue_conversation)
        {
            return Ok(());
        }
        let cwd = self.options.cwd.clone();
        // Resolving symlinks touches the filesystem: off the async workers.
        let local = tokio::task::spawn_blocking(move || {
            let cwd = cwd
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_default();
            project_key_for(&cwd)
        })
        .await
        .map_err(|e| crate::Error::InvalidConfig(format!("resolving the cwd failed: {e}")))?;
        let project = self.runtime.mirror.project_key.clone();
        let project = project.unwrap_or_else(|| local.clone());
        let dir = mirror::projects_dir(&self.options.env).join(local);
        let done = match resume {
            Some(id) => materialize_session(&*store, &SessionKey::new(project, id), &dir).await?,
            None => match latest_session(&*store, &project).await? {
                Some((id, main)) => {
                    let key = SessionKey::new(project, id.clone());
                    let done = materialize_loaded(&*store, &key, main, &dir).await?;
                    tracing::debug!(%key, "continue: resuming the store's newest session");
                    self.options.resume = Some(id);
                    Some(done)
                }
                None => None,
            },
        };
        if let Some(done) = done {
            // Resolved to one session: `--continue` next to `--resume`
            // would be the CLI's to arbitrate.
            self.options.continue_conversation = false;
            tracing::debug!(
                files = done.files,
                entries = done.entries,
                "resume: restored from the session store"
            );
        }
        Ok(())
    }

    /// With a store set: starts this session's mirror task and diverts the
    /// session's `transcript_mirror` frames to it.
    pub(crate) fn attach_mirror(
        &self,
        config: SessionConfig,
    ) -> (SessionConfig, Option<MirrorParts>) {
        let Some(store) = &self.runtime.session_store else {
            return (config, None);
        };
        let projects = mirror::projects_dir(&self.options.env);
        let (divert, handle, errors) = mirror::start(store.clone(), &self.runtime.mirror, projects);
        (config.divert(divert), Some(MirrorParts { handle, errors }))
    }
}

/// A running mirror, as the client holds it.
pub(crate) struct MirrorParts {
    pub(crate) handle: MirrorHandle,
    /// `mirror_error` messages for the session's stream.
    pub(crate) errors: mpsc::Receiver<Message>,
}
