//! How a control request ended, as one set of labels.
//!
//! The runtime's tracing spans, the SDK's OpenTelemetry spans and metrics,
//! and the transcript all describe the same event; with one enum they use
//! the same words (`success`, `error`, `timeout`, ...), so a dashboard and a
//! log line never disagree about what happened.

use std::fmt;

use crate::error::ControlError;

/// How a control request ended, in either direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ControlStatus {
    /// A success reply was sent or received.
    Success,
    /// An error reply was sent or received (ours: the handler failed or
    /// panicked).
    Error,
    /// No reply in time (ours: the handler ran out of time and an error
    /// reply was sent).
    Timeout,
    /// Cancelled before a reply: by `control_cancel_request`, or by the
    /// caller. Nothing is sent.
    Cancelled,
    /// The session was shutting down and the request got no reply.
    ShuttingDown,
    /// The CLI went away before replying.
    Closed,
    /// The request was not usable (e.g. no string `subtype`).
    Invalid,
}

impl ControlStatus {
    /// The label: `success`, `error`, `timeout`, `cancelled`,
    /// `shutting_down`, `closed` or `invalid`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Error => "error",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::ShuttingDown => "shutting_down",
            Self::Closed => "closed",
            Self::Invalid => "invalid",
        }
    }

    /// The status of one of our requests, from its result.
    pub fn of<T>(result: &Result<T, ControlError>) -> Self {
        match result {
            Ok(_) => Self::Success,
            Err(e) => e.status(),
        }
    }
}

impl fmt::Display for ControlStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ControlError {
    /// The status this failure reports as.
    pub fn status(&self) -> ControlStatus {
        match self {
            Self::Timeout { .. } => ControlStatus::Timeout,
            Self::Remote { .. } => ControlStatus::Error,
            Self::ShuttingDown => ControlStatus::ShuttingDown,
            Self::Closed { .. } => ControlStatus::Closed,
            Self::InvalidRequest(_) => ControlStatus::Invalid,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn every_failure_has_its_own_label() {
        let timeout = ControlError::Timeout {
            subtype: "interrupt".into(),
            after: Duration::from_secs(1),
        };
        let remote = ControlError::Remote {
            message: "no".into(),
        };
        let closed = ControlError::Closed {
            exit: None,
            stderr_tail: String::new(),
        };
        let labels: Vec<&str> = [
            ControlStatus::of(&Ok::<(), _>(())),
            ControlStatus::of::<()>(&Err(timeout)),
            ControlStatus::of::<()>(&Err(remote)),
            ControlStatus::of::<()>(&Err(ControlError::ShuttingDown)),
            ControlStatus::of::<()>(&Err(closed)),
            ControlStatus::of::<()>(&Err(ControlError::InvalidRequest("x".into()))),
        ]
        .into_iter()
        .map(ControlStatus::as_str)
        .collect();
        assert_eq!(
            labels,
            [
                "success",
                "timeout",
                "error",
                "shutting_down",
                "closed",
                "invalid"
            ]
        );
    }
}
