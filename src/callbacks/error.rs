//! What a callback returns when it fails.

use std::fmt;

/// A permission callback, hook callback or MCP tool failed.
///
/// The router turns it into an error reply to the CLI (permissions, hooks)
/// or into an `isError: true` tool result (MCP tools), with the Display text
/// as the message.
///
/// ```
/// use claude_agent::callbacks::CallbackError;
///
/// let e: CallbackError = "database is read-only".into();
/// assert_eq!(e.to_string(), "database is read-only");
/// let io = std::io::Error::other("disk full");
/// assert_eq!(CallbackError::other(io).to_string(), "disk full");
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CallbackError {
    /// The callback failed with this message.
    #[error("{0}")]
    Message(String),
    /// The callback failed because of another error.
    #[error(transparent)]
    Source(Box<dyn std::error::Error + Send + Sync>),
    /// The callback stopped because its cancellation token fired.
    #[error("the callback was cancelled")]
    Cancelled,
}

impl CallbackError {
    /// A failure with this message.
    pub fn new(message: impl fmt::Display) -> Self {
        Self::Message(message.to_string())
    }

    /// A failure caused by another error (its Display is the message).
    pub fn other(error: impl std::error::Error + Send + Sync + 'static) -> Self {
        Self::Source(Box::new(error))
    }
}

impl From<String> for CallbackError {
    fn from(message: String) -> Self {
        Self::Message(message)
    }
}

impl From<&str> for CallbackError {
    fn from(message: &str) -> Self {
        Self::Message(message.to_owned())
    }
}
