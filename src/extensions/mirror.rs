//! The session-store mirror
//! ([`ClientBuilder::session_store`](crate::client::ClientBuilder::session_store)):
//! the CLI prints `transcript_mirror` frames, the read loop diverts them to
//! the session's mirror task, the report counts what was persisted.

use std::sync::{Arc, Mutex};

use claude_agent_actors::SessionConfig;
use tokio::sync::mpsc;

use super::{Extension, PreStart, Stopped, lock};
use crate::Result;
use crate::protocol::Message;
use crate::store::SessionStore;
use crate::store::mirror::{self, MirrorHandle, MirrorSettings, ReadLoopHooks};

/// Mirrors one session's transcript into a store.
pub(crate) struct MirrorExtension {
    store: Arc<dyn SessionStore>,
    settings: MirrorSettings,
    started: Mutex<Started>,
}

/// What `pre_start` starts, taken apart by the later phases.
#[derive(Default)]
struct Started {
    divert: Option<ReadLoopHooks>,
    handle: Option<Arc<MirrorHandle>>,
    errors: Option<mpsc::Receiver<Message>>,
}

impl MirrorExtension {
    pub(crate) fn new(store: Arc<dyn SessionStore>, settings: MirrorSettings) -> Self {
        Self {
            store,
            settings,
            started: Mutex::new(Started::default()),
        }
    }

    /// The `mirror_error` messages for the session's stream (once).
    pub(crate) fn take_errors(&self) -> Option<mpsc::Receiver<Message>> {
        lock(&self.started).errors.take()
    }
}

impl Extension for MirrorExtension {
    fn name(&self) -> &str {
        "mirror"
    }

    async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        start.command_context_mut().session_mirror = true;
        // The CLI's own `projects` folder: the mirror keys entries by the
        // path the CLI writes them to.
        let projects = mirror::projects_dir(&start.options().env);
        let (divert, handle, errors) = mirror::start(self.store.clone(), &self.settings, projects);
        *lock(&self.started) = Started {
            divert: Some(divert),
            handle: Some(Arc::new(handle)),
            errors: Some(errors),
        };
        Ok(())
    }

    fn configure(&self, config: SessionConfig) -> Result<SessionConfig> {
        Ok(match lock(&self.started).divert.take() {
            Some(hooks) => hooks.apply(config),
            None => config,
        })
    }

    async fn post_stop(&self, stopped: &mut Stopped<'_>) {
        let handle = lock(&self.started).handle.clone();
        if let Some(handle) = handle {
            let (persisted, unpersisted) = handle.finish(stopped.hurried()).await;
            stopped.set_mirror_counts(persisted, unpersisted);
        }
    }
}
