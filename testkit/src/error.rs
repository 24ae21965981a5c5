//! The crate's error type.

use std::path::PathBuf;

/// What went wrong while locating, building or installing the fake CLI.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestkitError {
    /// A file or directory operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done, e.g. "writing script".
        action: &'static str,
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// `cargo` could not be started.
    #[error("running {cargo} to build fake-claude: {source}")]
    CargoSpawn {
        /// The cargo program that was run.
        cargo: String,
        /// The underlying error.
        source: std::io::Error,
    },
    /// `cargo build` of the fake CLI failed.
    #[error("building fake-claude failed ({status}): {stderr_tail}")]
    Build {
        /// Exit status of cargo, as text.
        status: String,
        /// The last lines cargo wrote to stderr.
        stderr_tail: String,
    },
    /// The build succeeded but no binary was found where it should be.
    #[error("fake-claude binary not found after building (looked in {looked_in:?})")]
    NotFound {
        /// The candidate paths that were checked.
        looked_in: Vec<PathBuf>,
    },
    /// An earlier attempt in this process to build the fake CLI failed.
    #[error("an earlier build of fake-claude in this process failed: {0}")]
    EarlierBuildFailed(String),
}
