//! The transcript: every message, callback decision and control request of
//! the run, and how the session closed.

mod observe;

use std::sync::{Arc, OnceLock};

use claude_agent_actors::SessionConfig;

use super::{Extension, PreStart, Started, Stopped};
use crate::Result;
use crate::transcript::{EntryPoint, TranscriptRecorder};

pub(crate) use observe::{control_record, recording_tap};

/// Keeps one session's transcript (its skipped lines come from the
/// diagnostics extension).
pub(crate) struct TranscriptExtension {
    entry: EntryPoint,
    /// Made in `pre_start`, from the options the command is computed from.
    recorder: OnceLock<TranscriptRecorder>,
}

impl TranscriptExtension {
    pub(crate) fn new(entry: EntryPoint) -> Self {
        Self {
            entry,
            recorder: OnceLock::new(),
        }
    }

    /// The recorder, once `pre_start` ran.
    pub(crate) fn recorder(&self) -> Option<TranscriptRecorder> {
        self.recorder.get().cloned()
    }
}

impl Extension for TranscriptExtension {
    fn name(&self) -> &str {
        "transcript"
    }

    async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        let recorder = TranscriptRecorder::new(observe::run_info(self.entry, start.options()));
        let t = recorder.clone();
        start
            .decision_observers
            .push(Arc::new(move |d| t.record_decision(d)));
        let _ = self.recorder.set(recorder);
        Ok(())
    }

    fn configure(&self, mut config: SessionConfig) -> Result<SessionConfig> {
        if let Some(t) = self.recorder.get() {
            config.inbound = Arc::new(observe::RecordingHandler {
                inner: config.inbound,
                transcript: t.clone(),
            });
        }
        Ok(config)
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        let Some(t) = self.recorder.get() else {
            return Ok(());
        };
        if let Ok(Some(v)) = started.server_info().map(|i| i.claude_code_version) {
            t.set_cli_version(&v);
        }
        Ok(())
    }

    async fn post_stop(&self, stopped: &mut Stopped<'_>) {
        if let Some(t) = self.recorder.get() {
            t.record_close(stopped.runtime());
        }
    }
}
