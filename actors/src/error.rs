//! The typed errors of a session.
//!
//! Display strings are lower-case phrases that say what failed at their own
//! level; a wrapped error is the `source()`, never repeated in the message,
//! so a report joins the chain (`"failed to open the channel: failed to
//! spawn /usr/bin/claude: Exec format error (os error 8)"`). Every variant
//! carries what a user needs to act: the exit status, the tail of the CLI's
//! stderr, the subtype that timed out.

use std::fmt;
use std::time::Duration;

use crate::channel::ChannelError;
use crate::process::ExitInfo;

/// `exit code 3`, `killed by signal 9 (SIGKILL)` or `exit status unknown`.
pub(crate) fn describe_exit(exit: &Option<ExitInfo>) -> String {
    match exit {
        Some(e) => e.to_string(),
        None => "exit status unknown".to_owned(),
    }
}

/// `; stderr: <last line>` when the tail is not empty.
pub(crate) fn describe_tail(tail: &str) -> String {
    match tail.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(last) => format!("; stderr: {last}"),
        None => String::new(),
    }
}

/// Why [`crate::Session::start`] failed. The process (if any) has been
/// reaped by the time this is returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The channel could not be opened (CLI missing, cwd missing, spawn failed).
    #[error("failed to open the channel")]
    Channel(#[from] ChannelError),
    /// The CLI ended before replying to `initialize`.
    #[error(
        "the CLI exited before answering initialize ({}){}",
        describe_exit(exit),
        describe_tail(stderr_tail)
    )]
    ExitedBeforeInitialize {
        /// How it ended, when known.
        exit: Option<ExitInfo>,
        /// The last lines of its stderr, joined with `\n`.
        stderr_tail: String,
    },
    /// No reply to `initialize` within the timeout.
    #[error(
        "initialize got no reply within {after:?}{}",
        describe_tail(stderr_tail)
    )]
    InitializeTimeout {
        /// The timeout that elapsed.
        after: Duration,
        /// The last lines of the CLI's stderr, joined with `\n`.
        stderr_tail: String,
    },
    /// The CLI answered `initialize` with an error.
    #[error("the CLI rejected initialize: {message}")]
    InitializeRejected {
        /// The CLI's error message.
        message: String,
    },
    /// The `initialize` request could not be built (its `subtype` must be "initialize").
    #[error("invalid initialize request: {0}")]
    InvalidInitialize(String),
    /// The actor tree could not be spawned; the source is the actor
    /// runtime's own error.
    #[error("failed to spawn the session's actors")]
    Spawn(#[source] Box<dyn std::error::Error + Send + Sync>),
}

/// Why sending to, or reading from, a session failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The session is shutting down (or has shut down); nothing new is admitted.
    #[error("the session is shutting down")]
    ShuttingDown,
    /// The CLI's output ended while a turn was open (no `result` frame).
    #[error(
        "the CLI closed its output before the turn's result ({}){}",
        describe_exit(exit),
        describe_tail(stderr_tail)
    )]
    ClosedBeforeResult {
        /// How the CLI ended, when known.
        exit: Option<ExitInfo>,
        /// The last lines of its stderr, joined with `\n`.
        stderr_tail: String,
    },
    /// Writing to the CLI's stdin failed; the source is the OS error
    /// (`BrokenPipe` once the CLI has closed its stdin).
    #[error("failed to write to the CLI's stdin")]
    Write(#[source] std::io::Error),
    /// The frame given to `send_raw` was not one line.
    #[error("invalid frame: {0}")]
    InvalidFrame(String),
    /// The CLI did not read its stdin within `send_timeout`: the stdin queue
    /// stayed full (`queued: false`, nothing was sent), or the line was
    /// queued but not written yet (`queued: true`: it is written if the CLI
    /// reads again; do not send it twice).
    #[error(
        "the CLI did not read its stdin within {after:?} ({})",
        if *queued { "the line is queued" } else { "the line was not queued" }
    )]
    StdinStalled {
        /// The `send_timeout` that elapsed.
        after: Duration,
        /// Whether the line is in the queue.
        queued: bool,
    },
}

/// Why a control request of ours failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum ControlError {
    /// No reply within the timeout; the request is forgotten (a late reply
    /// is reported as `UnknownControlResponse`).
    #[error("control request {subtype} got no reply within {after:?}")]
    Timeout {
        /// The request's subtype.
        subtype: String,
        /// The timeout that elapsed.
        after: Duration,
    },
    /// The CLI answered with an error.
    #[error("the CLI answered with an error: {message}")]
    Remote {
        /// The CLI's error message.
        message: String,
    },
    /// The session is shutting down.
    #[error("the session is shutting down")]
    ShuttingDown,
    /// The CLI went away before replying.
    #[error(
        "the CLI closed before replying ({}){}",
        describe_exit(exit),
        describe_tail(stderr_tail)
    )]
    Closed {
        /// How it ended, when known.
        exit: Option<ExitInfo>,
        /// The last lines of its stderr, joined with `\n`.
        stderr_tail: String,
    },
    /// The request object was not usable (e.g. no string `subtype`).
    #[error("invalid control request: {0}")]
    InvalidRequest(String),
}

/// An inbound handler's failure; sent to the CLI as an error reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerError {
    message: String,
}

impl HandlerError {
    /// A handler error with this message (what the CLI will see).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    /// The message sent to the CLI.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for HandlerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HandlerError {}

impl From<String> for HandlerError {
    fn from(message: String) -> Self {
        Self { message }
    }
}

impl From<&str> for HandlerError {
    fn from(message: &str) -> Self {
        Self::new(message)
    }
}

/// The message of a caught panic: its `&str` or `String` payload, else a
/// placeholder. One copy for the runtime's handlers and the SDK's host.
#[doc(hidden)]
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panic_message_reads_str_and_string_payloads() {
        let of = |f: fn()| panic_message(&*std::panic::catch_unwind(f).unwrap_err());
        assert_eq!(of(|| panic!("static text")), "static text");
        assert_eq!(of(|| panic!("formatted {}", 7)), "formatted 7");
        assert_eq!(
            of(|| std::panic::panic_any(42_u8)),
            "a panic without a message"
        );
    }
}
