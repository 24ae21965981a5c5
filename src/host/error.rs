//! What a [`Host`](super::Host) call can fail with.

use super::outcome::{Failure, SessionId};

/// Why a host call failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum HostError {
    /// The host is draining (or drained): nothing new is admitted.
    #[error("the host is draining; no new sessions are admitted")]
    Draining,
    /// The admission queue of all tenants is full.
    #[error("the admission queue is full ({limit} sessions waiting)")]
    QueueFull {
        /// The configured bound.
        limit: usize,
    },
    /// The tenant's admission queue is full.
    #[error("tenant {tenant:?} has {limit} sessions waiting already")]
    TenantQueueFull {
        /// The tenant.
        tenant: String,
        /// The configured bound.
        limit: usize,
    },
    /// The session ended before a client was available.
    #[error("session {id} ended")]
    Ended {
        /// The session.
        id: SessionId,
        /// Why, when it did not complete.
        #[source]
        failure: Option<Failure>,
    },
    /// Sending through [`SessionHandle::send`](super::SessionHandle::send)
    /// failed (the CLI ended under it, or stopped reading).
    #[error("sending to session {id} failed")]
    Send {
        /// The session.
        id: SessionId,
        /// The client's error (shared: host errors are cloned).
        #[source]
        source: std::sync::Arc<crate::Error>,
    },
    /// The host's supervisor did not answer in time (it is overloaded or
    /// stopped).
    #[error("the host's supervisor did not answer: {0}")]
    Unavailable(String),
    /// The host (and the session's supervision with it) is gone.
    #[error("the host is gone")]
    Gone,
    /// The host's supervisor could not be started.
    #[error("could not start the host's supervisor: {0}")]
    Start(String),
}
