//! The raw-frame recording
//! ([`ClientBuilder::record_frames`](crate::client::ClientBuilder::record_frames)):
//! every line, both directions, into an NDJSON file.

use std::path::PathBuf;

use claude_agent_actors::SessionConfig;

use super::Extension;
use super::transcript::recording_tap;
use crate::Result;
use crate::transcript::Recorder;

/// Records one session's frames to `path`.
pub(crate) struct RecordFramesExtension {
    path: PathBuf,
}

impl RecordFramesExtension {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self { path }
    }
}

impl Extension for RecordFramesExtension {
    fn name(&self) -> &str {
        "record_frames"
    }

    /// Opens the file: one that cannot be created fails the connect before
    /// anything is spawned.
    fn configure(&self, config: SessionConfig) -> Result<SessionConfig> {
        let recorder = Recorder::create(&self.path)?;
        Ok(config.wire_tap(recording_tap(recorder)))
    }
}
