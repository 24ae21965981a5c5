//! What the host's supervisor actor is told: the inputs of its core, from
//! whoever observes them, and the questions it answers.
//!
//! Who sends what: [`Host`](super::Host) submits, drains and asks; a
//! [`SessionHandle`] cancels; a session's supervision task (`lifecycle.rs`)
//! reports its crash (and waits for the verdict), hibernation, revival and
//! end; a warm spare's start task reports the spare.

use std::sync::Arc;
use std::time::Duration;

use ractor::{ActorRef, RpcReplyPort};
use tokio::sync::{oneshot, watch};

use super::drain::DrainStart;
use super::error::HostError;
use super::handle::{CancelQueued, SessionHandle};
use super::metrics::HostMetrics;
use super::outcome::{SessionId, SessionOutcome};
use super::status::SessionStatus;
use super::work::Work;
use crate::{client::Client, client::ClientBuilder};

/// Messages of the host's supervisor.
pub(crate) enum HostMsg {
    /// A new session for `tenant`; replies with its handle once queued.
    Submit {
        tenant: String,
        builder: Box<ClientBuilder>,
        work: Work,
        reply: RpcReplyPort<Result<SessionHandle, HostError>>,
    },
    /// The owner cancelled a session (it may still be queued).
    Cancel(SessionId),
    /// A live session's CLI crashed: replies whether it restarts, and when.
    Crashed {
        id: SessionId,
        reply: RpcReplyPort<Option<Restart>>,
    },
    /// A session hibernated: its CLI is gone (reaped), its slot is free.
    Hibernated(SessionId),
    /// A hibernated session wants its slot back: `go` gets `true` once
    /// admitted, `false` when it will not be (the host drains).
    Revive {
        id: SessionId,
        go: oneshot::Sender<bool>,
    },
    /// A revived session's CLI started again.
    Revived(SessionId),
    /// A session's supervision finished: count it, free its slot, publish
    /// `outcome` on `state`.
    Ended {
        outcome: Arc<SessionOutcome>,
        state: Arc<watch::Sender<SessionStatus>>,
    },
    /// A warm spare's start finished (`None`: it failed).
    SpareStarted(Option<Client>),
    /// Stop admitting, end the queue; replies with what the drain must stop.
    Drain(RpcReplyPort<DrainStart>),
    /// A queued, running or hibernated session's handle.
    Get(SessionId, RpcReplyPort<Option<SessionHandle>>),
    /// Every queued, running or hibernated session's handle, by id.
    List(RpcReplyPort<Vec<SessionHandle>>),
    /// The counters now.
    Metrics(RpcReplyPort<HostMetrics>),
}

/// The verdict on a crash: restart number `attempt` (1-based) after `after`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Restart {
    pub(crate) attempt: u32,
    pub(crate) after: Duration,
}

impl CancelQueued for ActorRef<HostMsg> {
    fn cancel(&self, id: SessionId) {
        // A host that is gone has nothing queued.
        let _ = self.cast(HostMsg::Cancel(id));
    }
}
