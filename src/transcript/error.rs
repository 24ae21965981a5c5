//! Errors of raw-frame recording.

use std::path::PathBuf;

/// Writing or reading a raw-frame recording failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// Creating or opening the recording file failed.
    #[error("cannot open recording {}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// Writing a record failed.
    #[error("writing a recorded frame failed")]
    Write(#[source] std::io::Error),
    /// Reading the recording failed.
    #[error("reading recording line {line_no} failed")]
    Read {
        /// 1-based line number.
        line_no: usize,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A line of the recording is not a record.
    #[error("recording line {line_no} is not a frame record: {prefix}")]
    Malformed {
        /// 1-based line number.
        line_no: usize,
        /// The first 120 characters of the line.
        prefix: String,
        /// Why it did not parse.
        #[source]
        source: serde_json::Error,
    },
}
