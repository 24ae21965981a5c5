//! The transcript extension without the `transcript` feature: there is
//! none, so the extensions that would write into it (diagnostics, faults)
//! never find a recorder.

use crate::transcript::TranscriptRecorder;

/// Never made: `Option<Arc<TranscriptExtension>>` is always `None`.
pub(crate) enum TranscriptExtension {}

impl TranscriptExtension {
    pub(crate) fn recorder(&self) -> Option<TranscriptRecorder> {
        match *self {}
    }
}
