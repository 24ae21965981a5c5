//! The transcript without the `transcript` feature: the crate-internal
//! surface the client records through, with nothing behind it.
//! [`TranscriptRecorder`] has no values, so no session ever holds one and
//! every recording path is dead code; the transcript model, its
//! correlation and the frame recording are not compiled at all.

use crate::protocol::{Message, UserMessage};

/// Records nothing, and there is none: `Option<TranscriptRecorder>` is
/// always `None`.
#[derive(Debug, Clone)]
pub(crate) enum TranscriptRecorder {}

impl TranscriptRecorder {
    pub(crate) fn record_message(&self, _: &Message) {
        match *self {}
    }

    pub(crate) fn record_sent_prompt(&self, _: &UserMessage) {
        match *self {}
    }

    pub(crate) fn record_transport_error(&self, _: &str) {
        match *self {}
    }

    #[cfg(feature = "fault-injection")]
    pub(crate) fn record_fault(&self, _: serde_json::Value) {
        match *self {}
    }
}
