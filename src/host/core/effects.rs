//! The core's vocabulary: what happens to the host ([`Input`]), what the
//! host must do about it ([`Effect`]), and the types the core passes
//! through without looking inside ([`Plumbing`]).

use std::time::Duration;

use claude_agent_actors::Escalation;

use crate::host::error::HostError;
use crate::host::outcome::{Failure, SessionId};

/// The types the core passes through without looking inside.
pub(crate) trait Plumbing {
    /// What a new session starts with (handed back in [`Effect::Start`]).
    type Pending;
    /// The owner's handle on a session (for `get`, `list` and a drain).
    type Handle: Clone;
    /// A warm spare CLI.
    type Spare;
    /// A hibernated session waiting for its slot back.
    type Waiter;
    /// An ended session's outcome (handed back in [`Effect::Ended`]).
    type Outcome;

    /// Whether a ready spare can still serve (its CLI did not end while it
    /// waited). A read of its state, nothing more.
    fn spare_usable(spare: &Self::Spare) -> bool;
}

/// How a session ended, as far as the counters care.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct End {
    /// `None`: completed; else the failure's cause name.
    pub(crate) failure: Option<&'static str>,
    /// How far its last shutdown escalated.
    pub(crate) escalation: Option<Escalation>,
}

/// What happens to the host.
pub(crate) enum Input<P: Plumbing> {
    /// The host started (its warm spares start).
    Open,
    /// A new session for `tenant` (its id from [`Core::next_id`]).
    /// `fits_spare`: its builder matches the spares' template.
    Submit {
        id: SessionId,
        tenant: String,
        pending: P::Pending,
        handle: P::Handle,
        fits_spare: bool,
    },
    /// The owner cancelled the session (it may still be queued).
    Cancel(SessionId),
    /// A live session's CLI crashed: may it restart?
    Crashed(SessionId),
    /// A live session's CLI was shut down for idleness (and reaped).
    Hibernated(SessionId),
    /// A hibernated session is wanted again: it needs a slot.
    Revive { id: SessionId, waiter: P::Waiter },
    /// A revived session's CLI is running again.
    Revived(SessionId),
    /// A session's supervision finished.
    Ended {
        id: SessionId,
        end: End,
        outcome: P::Outcome,
    },
    /// A warm spare's start finished (`None`: it failed).
    SpareStarted(Option<P::Spare>),
    /// Stop admitting; end the queue.
    Drain,
}

/// What the host must do.
pub(crate) enum Effect<P: Plumbing> {
    /// The submitted session is queued (`depth`: its tenant's queue now).
    Queued {
        id: SessionId,
        tenant: String,
        depth: usize,
    },
    /// The submission is refused.
    Refused(HostError),
    /// Start an admitted session: on `spare` when one serves it; after
    /// `evict` (a spare whose slot it took) is shut down, when set.
    Start {
        id: SessionId,
        tenant: String,
        pending: P::Pending,
        waited: Duration,
        depth: usize,
        spare: Option<P::Spare>,
        evict: Option<P::Spare>,
    },
    /// A hibernated session has its slot back: tell its waiter (after
    /// `evict` is shut down, when set).
    Revive {
        id: SessionId,
        waiter: P::Waiter,
        evict: Option<P::Spare>,
    },
    /// A revival that will not be admitted (the host drains).
    RefuseRevival(P::Waiter),
    /// A crashed session restarts (`attempt`, 1-based) after `after`.
    Restart {
        tenant: String,
        attempt: u32,
        after: Duration,
    },
    /// A crashed session does not restart.
    GiveUp,
    /// A session that was never admitted ended (cancelled or drained).
    Unadmitted {
        id: SessionId,
        tenant: String,
        pending: P::Pending,
        failure: Failure,
        queued_for: Duration,
    },
    /// Publish a session's outcome (its counters are in already).
    Ended(P::Outcome),
    /// Start this many warm spares (each reports back as
    /// [`Input::SpareStarted`]).
    StartSpares(usize),
    /// Shut a spare down.
    StopSpare(P::Spare),
    /// A drain began: the sessions not ended (hibernated ones included),
    /// how many of them are hibernated, how many queued ones were ended,
    /// and the ready spares to shut down.
    Draining {
        running: Vec<P::Handle>,
        hibernated: usize,
        cancelled: usize,
        spares: Vec<P::Spare>,
    },
}
