//! One hosted session as its owner sees it: id, state, outcome.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ractor::ActorRef;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::error::HostError;
use super::hibernate::{Gate, Lease};
use super::supervisor::HostMsg;
use crate::protocol::ResultMessage;
use crate::{Client, Prompt, SessionReport};
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

/// Where a hosted session is in its life (not to be confused with
/// [`protocol::SessionState`](crate::protocol::SessionState), the CLI's own
/// `session_state_changed` report).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum SessionStatus {
    /// Waiting for admission.
    Queued,
    /// Admitted; the CLI is starting (`attempt` 0 is the first start, then
    /// one per restart).
    Starting {
        /// 0 for the first start, n for the n-th restart.
        attempt: u32,
    },
    /// Connected.
    Running {
        /// The live connection (a restart replaces it).
        client: Client,
        /// 0 for the first start, n for the n-th restart.
        attempt: u32,
    },
    /// The CLI crashed; a restart follows after `after`.
    Restarting {
        /// The restart about to happen (1-based).
        attempt: u32,
        /// The backoff being waited.
        after: Duration,
    },
    /// Idle past the host's
    /// [`hibernate_after`](super::HostConfig::hibernate_after): its CLI is
    /// shut down (or shutting down) and holds no slot. The next
    /// [`SessionHandle::send`] or [`SessionHandle::client`] starts it again,
    /// through admission, with `--resume` of `session_id`.
    Hibernated {
        /// The CLI's session id the revival resumes.
        session_id: Option<String>,
        /// How many times the session hibernated, this time included.
        hibernations: u32,
    },
    /// Done, for good.
    Ended(Arc<SessionOutcome>),
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
    /// Cancelled by its owner ([`SessionHandle::cancel`]).
    #[error("cancelled")]
    Cancelled,
    /// Ended by the host's drain before it completed.
    #[error("drained before it completed")]
    Drained,
    /// The CLI could not be started or initialised.
    /// The error is shared (outcomes are cloned to every waiter); ask it
    /// e.g. [`is_cli_not_found`](crate::Error::is_cli_not_found).
    #[error("could not start the CLI: {0}")]
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
    #[error("could not revive the hibernated session{}: {error}", session_id.as_deref().map(|s| format!(" {s}")).unwrap_or_default())]
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

/// The owner's handle on a hosted session. Cheap to clone; dropping it
/// does not end the session (use [`SessionHandle::cancel`]).
#[derive(Debug, Clone)]
pub struct SessionHandle {
    pub(crate) id: SessionId,
    pub(crate) tenant: Arc<str>,
    pub(crate) state: watch::Receiver<SessionStatus>,
    pub(crate) stop: CancellationToken,
    pub(crate) host: ActorRef<HostMsg>,
    pub(crate) gate: Arc<Gate>,
}

impl SessionHandle {
    /// The session's id.
    pub fn id(&self) -> SessionId {
        self.id
    }

    /// The session's tenant.
    pub fn tenant(&self) -> &str {
        &self.tenant
    }

    /// Where it is in its life now.
    pub fn status(&self) -> SessionStatus {
        self.state.borrow().clone()
    }

    /// The live client, waiting for admission and start (and for a restart
    /// in progress). A hibernated session is revived first (through
    /// admission, with `--resume`). Fails when the session ended first, or
    /// its revival failed ([`Failure::Revive`] inside [`HostError::Ended`]).
    ///
    /// With hibernation on, a client kept past `hibernate_after` of
    /// idleness may be shut down under its holder (its calls then fail as
    /// on any closed session): call this again, or use
    /// [`SessionHandle::send`], which holds hibernation off while it sends.
    pub async fn client(&self) -> Result<Client, HostError> {
        let (client, _lease) = self.lease().await?;
        Ok(client)
    }

    /// Sends one user turn through the live client, reviving a hibernated
    /// session first, and returns the client to read the turn's messages
    /// from ([`Client::receive_response`]). The session cannot hibernate
    /// between the revival and the send, nor while the turn runs.
    pub async fn send(&self, prompt: impl Into<Prompt>) -> Result<Client, HostError> {
        let (client, lease) = self.lease().await?;
        let sent = client.send(prompt).await;
        drop(lease);
        sent.map_err(|e| HostError::Send {
            id: self.id,
            source: Arc::new(e),
        })?;
        Ok(client)
    }

    /// The running client with a lease that holds hibernation off.
    async fn lease(&self) -> Result<(Client, Lease), HostError> {
        let mut rx = self.state.clone();
        loop {
            match self.gate.try_lease(&mut rx) {
                Ok(leased) => return Ok(leased),
                Err(SessionStatus::Ended(outcome)) => {
                    return Err(HostError::Ended {
                        id: self.id,
                        failure: outcome.failure.clone(),
                    });
                }
                Err(SessionStatus::Hibernated { hibernations, .. }) => {
                    self.gate.request_revive(hibernations);
                }
                Err(_) => {}
            }
            rx.changed().await.map_err(|_| HostError::Gone)?;
        }
    }

    /// The live client, if it is running now.
    pub fn current_client(&self) -> Option<Client> {
        match &*self.state.borrow() {
            SessionStatus::Running { client, .. } => Some(client.clone()),
            _ => None,
        }
    }

    /// Waits until the session ended, and says how.
    pub async fn outcome(&self) -> Arc<SessionOutcome> {
        let mut rx = self.state.clone();
        let ended = rx
            .wait_for(|s| matches!(s, SessionStatus::Ended(_)))
            .await
            .map(|s| s.clone());
        match ended {
            Ok(SessionStatus::Ended(outcome)) => outcome,
            // The sender lives until the outcome is published; never hang regardless.
            _ => Arc::new(SessionOutcome {
                id: self.id,
                tenant: self.tenant.to_string(),
                result: None,
                turn_latency: None,
                failure: Some(Failure::Panicked(
                    "the session's supervision ended without an outcome".into(),
                )),
                report: None,
                restarts: 0,
                queued_for: Duration::ZERO,
                ran_for: Duration::ZERO,
            }),
        }
    }

    /// Ends the session: a queued one leaves the queue, a running one gets
    /// an ordered shutdown. The outcome's failure is
    /// [`Failure::Cancelled`] unless it had already ended.
    pub fn cancel(&self) {
        self.stop.cancel();
        let _ = self.host.cast(HostMsg::Cancel(self.id));
    }
}
