//! How a hosted session ended, and its id.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::extensions::SessionReport;
use crate::protocol::ResultMessage;
use claude_agent_actors::ShutdownCause;
use claude_agent_actors::process::ExitInfo;

/// A hosted session's id, unique within its [`Host`](super::Host).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionId(pub u64);

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "s{}", self.0)
    }
}

/// How a hosted session ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SessionOutcome {
    /// The session.
    pub id: SessionId,
    /// Its tenant.
    pub tenant: String,
    /// A job's result message (its last one, after restarts).
    pub result: Option<ResultMessage>,
    /// A job's turn latency: prompt written to the result read, for the
    /// attempt that produced `result`.
    pub turn_latency: Option<Duration>,
    /// Why it did not complete; `None` means it did.
    pub failure: Option<Failure>,
    /// The last CLI's shutdown report (none when no CLI ever started).
    pub report: Option<SessionReport>,
    /// Restarts performed.
    pub restarts: u32,
    /// Time spent waiting for admission.
    pub queued_for: Duration,
    /// Time from admission to the end.
    pub ran_for: Duration,
}

impl SessionOutcome {
    /// True when the session completed (a job: a result without error).
    pub fn is_success(&self) -> bool {
        self.failure.is_none()
    }
}

/// Why a hosted session did not complete.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum Failure {
    /// Cancelled by its owner ([`SessionHandle::cancel`](super::SessionHandle::cancel)).
    #[error("cancelled")]
    Cancelled,
    /// Ended by the host's drain before it completed.
    #[error("drained before it completed")]
    Drained,
    /// The CLI could not be started or initialised.
    /// The error is shared (outcomes are cloned to every waiter); ask it
    /// e.g. [`is_cli_not_found`](crate::Error::is_cli_not_found).
    #[error("could not start the CLI")]
    Connect(#[source] Arc<crate::Error>),
    /// The CLI crashed and no restart was allowed (or left).
    #[error("the CLI crashed: {cause}{}", stderr_tail.last().map(|l| format!("; stderr: {l}")).unwrap_or_default())]
    Crashed {
        /// How the session ended.
        cause: ShutdownCause,
        /// How the CLI ended, when known.
        exit: Option<ExitInfo>,
        /// The last lines of its stderr.
        stderr_tail: Vec<String>,
    },
    /// A job's turn ended with an error result.
    #[error("the turn ended in error ({subtype})")]
    ErrorResult {
        /// The result's subtype (`success` with `is_error`, or an error subtype).
        subtype: String,
    },
    /// A hibernated session's CLI could not be started again (with
    /// `--resume` of `session_id`): the CLI no longer finds the session,
    /// or could not be started at all. The error is shared, as for
    /// [`Failure::Connect`].
    #[error("could not revive the hibernated session{}", session_id.as_deref().map(|s| format!(" {s}")).unwrap_or_default())]
    Revive {
        /// The CLI's session id it tried to resume.
        session_id: Option<String>,
        /// Why the start failed.
        #[source]
        error: Arc<crate::Error>,
    },
    /// A job's turn failed without a crash (writing the prompt, a bad frame).
    #[error("the turn failed: {0}")]
    Turn(String),
    /// The session's supervision task panicked; other sessions are unaffected.
    #[error("panicked: {0}")]
    Panicked(String),
}

impl Failure {
    /// How the CLI ended, when the failure knows.
    pub fn exit(&self) -> Option<ExitInfo> {
        match self {
            Self::Crashed { exit, .. } => *exit,
            _ => None,
        }
    }

    /// The CLI's last stderr lines, when the failure knows them.
    pub fn stderr_tail(&self) -> &[String] {
        match self {
            Self::Crashed { stderr_tail, .. } => stderr_tail,
            _ => &[],
        }
    }

    /// A short stable name, for summaries and metrics.
    pub fn cause_name(&self) -> &'static str {
        match self {
            Self::Cancelled => "cancelled",
            Self::Drained => "drained",
            Self::Connect(_) => "connect",
            Self::Revive { .. } => "revive",
            Self::Crashed { .. } => "crashed",
            Self::ErrorResult { .. } => "error_result",
            Self::Turn(_) => "turn",
            Self::Panicked(_) => "panicked",
        }
    }
}
