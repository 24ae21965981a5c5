//! Where a hosted session is in its life, as its owner sees it.

use std::sync::Arc;
use std::time::Duration;

use super::outcome::SessionOutcome;
use crate::client::Client;

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
    /// [`SessionHandle::send`](super::SessionHandle::send) or
    /// [`SessionHandle::client`](super::SessionHandle::client) starts it again,
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
