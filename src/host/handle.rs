//! The owner's handle on one hosted session.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::error::HostError;
use super::gate::{Gate, Lease};
use super::outcome::{Failure, SessionId, SessionOutcome};
use super::status::SessionStatus;
use crate::{client::Client, client::Prompt};

/// Tells the host that the owner cancelled a session (so a queued one
/// leaves the queue). The host's supervisor implements it; the handle does
/// not know its messages.
pub(crate) trait CancelQueued: fmt::Debug + Send + Sync {
    fn cancel(&self, id: SessionId);
}

/// The owner's handle on a hosted session. Cheap to clone; dropping it
/// does not end the session (use [`SessionHandle::cancel`]).
#[derive(Debug, Clone)]
pub struct SessionHandle {
    pub(crate) id: SessionId,
    pub(crate) tenant: Arc<str>,
    pub(crate) state: watch::Receiver<SessionStatus>,
    pub(crate) stop: CancellationToken,
    pub(crate) host: Arc<dyn CancelQueued>,
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
        self.host.cancel(self.id);
    }
}
