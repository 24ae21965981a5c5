//! Why settings could not be resolved at all (a source that cannot be read
//! is skipped, never an error).

/// Resolving settings failed before any source was read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SettingsError {
    /// No `cwd` was given and this process's working directory cannot be
    /// read.
    #[error("no cwd given and the current directory cannot be read")]
    CurrentDir(#[source] std::io::Error),
}
