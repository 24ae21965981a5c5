//! The core's state and its one transition, [`Core::on`].

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::{Duration, Instant};

use super::admission::{Admission, QueueFull};
use super::effects::{Effect, Input, Plumbing};
use super::restarts::Restarts;
use crate::host::config::{HostConfig, RestartPolicy};
use crate::host::error::HostError;
use crate::host::metrics::{Counters, HostMetrics};
use crate::host::outcome::{Failure, SessionId};

/// The limits the core enforces.
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub(crate) max_sessions: usize,
    pub(crate) max_per_tenant: usize,
    pub(crate) tenant_limits: HashMap<String, usize>,
    pub(crate) max_queued: usize,
    pub(crate) max_queued_per_tenant: usize,
    pub(crate) restart: RestartPolicy,
    /// Warm spares to keep (0: none).
    pub(crate) spares: usize,
}

impl Limits {
    /// The limits of `config`, keeping `spares` warm spares.
    pub(crate) fn of(config: &HostConfig, spares: usize) -> Self {
        Self {
            max_sessions: config.max_sessions,
            max_per_tenant: config.max_per_tenant,
            tenant_limits: config.tenant_limits.clone(),
            max_queued: config.max_queued,
            max_queued_per_tenant: config.max_queued_per_tenant,
            restart: config.restart.clone(),
            spares,
        }
    }

    /// `tenant`'s cap on live sessions.
    pub(crate) fn limit_for(&self, tenant: &str) -> usize {
        self.tenant_limits
            .get(tenant)
            .copied()
            .unwrap_or(self.max_per_tenant)
    }
}

/// Where a session is. One state, so never both live and hibernated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    /// Waiting for admission.
    Queued,
    /// Holding a slot: its CLI starting, running or restarting.
    Live,
    /// No CLI, no slot.
    Hibernated,
    /// Hibernated, its revival waiting for admission.
    Reviving,
}

struct Entry<P: Plumbing> {
    tenant: String,
    handle: P::Handle,
    state: State,
    queued_at: Instant,
    restarts: Restarts,
}

/// What waits for admission: a new session, or a hibernated one's revival.
enum Ticket<P: Plumbing> {
    New {
        id: SessionId,
        pending: P::Pending,
        fits_spare: bool,
    },
    Revive {
        id: SessionId,
        waiter: P::Waiter,
    },
}

impl<P: Plumbing> Ticket<P> {
    fn id(&self) -> SessionId {
        match self {
            Self::New { id, .. } | Self::Revive { id, .. } => *id,
        }
    }
}

/// The warm spares: ready ones and how many are starting (both hold slots).
struct Pool<S> {
    want: usize,
    ready: VecDeque<S>,
    starting: usize,
}

impl<S> Pool<S> {
    fn slots(&self) -> usize {
        self.ready.len() + self.starting
    }
}

/// The host's state and decisions.
pub(crate) struct Core<P: Plumbing> {
    limits: Limits,
    next_id: u64,
    admission: Admission<Ticket<P>>,
    sessions: BTreeMap<SessionId, Entry<P>>,
    spares: Pool<P::Spare>,
    counters: Counters,
    admitting: bool,
}

impl<P: Plumbing> Core<P> {
    pub(crate) fn new(limits: Limits) -> Self {
        let want = limits.spares;
        Self {
            limits,
            next_id: 1,
            admission: Admission::default(),
            sessions: BTreeMap::new(),
            spares: Pool {
                want,
                ready: VecDeque::new(),
                starting: 0,
            },
            counters: Counters::default(),
            admitting: true,
        }
    }

    /// A fresh session id (for the next [`Input::Submit`]).
    pub(crate) fn next_id(&mut self) -> SessionId {
        let id = SessionId(self.next_id);
        self.next_id += 1;
        id
    }

    /// The effects of `input` at `now`, in the order they must be applied.
    pub(crate) fn on(&mut self, input: Input<P>, now: Instant) -> Vec<Effect<P>> {
        let mut fx = Vec::new();
        match input {
            Input::Open => {}
            Input::Submit {
                id,
                tenant,
                pending,
                handle,
                fits_spare,
            } => self.submit(id, tenant, pending, handle, fits_spare, now, &mut fx),
            Input::Cancel(id) => self.cancel(id, now, &mut fx),
            Input::Crashed(id) => self.crashed(id, now, &mut fx),
            Input::Hibernated(id) => {
                if let Some(e) = self.sessions.get_mut(&id)
                    && e.state == State::Live
                {
                    e.state = State::Hibernated;
                    self.admission.release(&e.tenant);
                    self.counters.hibernated();
                }
            }
            Input::Revive { id, waiter } => match self.sessions.get_mut(&id) {
                Some(e) if self.admitting && e.state == State::Hibernated => {
                    e.state = State::Reviving;
                    // Bounded by the sessions already accepted, not the queue
                    // bounds: a logical session is never refused its revival.
                    let ticket = Ticket::Revive { id, waiter };
                    if let Err((_, Ticket::Revive { waiter, .. })) =
                        self.admission
                            .push(&e.tenant, ticket, usize::MAX, usize::MAX)
                    {
                        e.state = State::Hibernated;
                        fx.push(Effect::RefuseRevival(waiter));
                    }
                }
                _ => fx.push(Effect::RefuseRevival(waiter)),
            },
            Input::Revived(id) => {
                if self.state(id) == Some(State::Live) {
                    self.counters.revived();
                }
            }
            Input::Ended { id, end, outcome } => {
                if let Some(e) = self.sessions.remove(&id) {
                    match e.state {
                        State::Live => self.admission.release(&e.tenant),
                        // Its ticket (a revival) will not be needed.
                        State::Queued | State::Reviving => {
                            let _ = self.admission.remove_queued(&e.tenant, |t| t.id() == id);
                        }
                        State::Hibernated => {}
                    }
                    self.counters.ended(&e.tenant, end.failure, end.escalation);
                }
                fx.push(Effect::Ended(outcome));
            }
            Input::SpareStarted(spare) => {
                self.spares.starting = self.spares.starting.saturating_sub(1);
                if let Some(s) = spare {
                    if self.admitting {
                        self.spares.ready.push_back(s);
                    } else {
                        fx.push(Effect::StopSpare(s));
                    }
                }
            }
            Input::Drain => self.drain(now, &mut fx),
        }
        self.admit(now, &mut fx);
        fx
    }

    #[allow(clippy::too_many_arguments)]
    fn submit(
        &mut self,
        id: SessionId,
        tenant: String,
        pending: P::Pending,
        handle: P::Handle,
        fits_spare: bool,
        now: Instant,
        fx: &mut Vec<Effect<P>>,
    ) {
        if !self.admitting {
            self.counters.rejected();
            fx.push(Effect::Refused(HostError::Draining));
            return;
        }
        let (max, per) = (self.limits.max_queued, self.limits.max_queued_per_tenant);
        let ticket = Ticket::New {
            id,
            pending,
            fits_spare,
        };
        if let Err((full, _)) = self.admission.push(&tenant, ticket, max, per) {
            self.counters.rejected();
            fx.push(Effect::Refused(match full {
                QueueFull::Global => HostError::QueueFull { limit: max },
                QueueFull::Tenant => HostError::TenantQueueFull { tenant, limit: per },
            }));
            return;
        }
        let depth = self.admission.queued_of(&tenant);
        self.sessions.insert(
            id,
            Entry {
                tenant: tenant.clone(),
                handle,
                state: State::Queued,
                queued_at: now,
                restarts: Restarts::default(),
            },
        );
        fx.push(Effect::Queued { id, tenant, depth });
    }

    fn cancel(&mut self, id: SessionId, now: Instant, fx: &mut Vec<Effect<P>>) {
        let Some(e) = self.sessions.get(&id).filter(|e| e.state == State::Queued) else {
            // Running ones end through their own stop.
            return;
        };
        let tenant = e.tenant.clone();
        let removed = self.admission.remove_queued(
            &tenant,
            |t| matches!(t, Ticket::New { id: i, .. } if *i == id),
        );
        if let Some(Ticket::New { pending, .. }) = removed {
            self.unadmitted(id, pending, Failure::Cancelled, now, fx);
        }
    }

    fn crashed(&mut self, id: SessionId, now: Instant, fx: &mut Vec<Effect<P>>) {
        let policy = &self.limits.restart;
        let allowed = match self.sessions.get_mut(&id) {
            // Restarts never begin once a drain has.
            Some(e) if self.admitting && e.state == State::Live => e
                .restarts
                .allow(policy, now)
                .map(|after| (e.tenant.clone(), e.restarts.total(), after)),
            _ => None,
        };
        match allowed {
            Some((tenant, attempt, after)) => {
                self.counters.restarted(&tenant);
                fx.push(Effect::Restart {
                    tenant,
                    attempt,
                    after,
                });
            }
            None => fx.push(Effect::GiveUp),
        }
    }

    fn drain(&mut self, now: Instant, fx: &mut Vec<Effect<P>>) {
        self.admitting = false;
        let mut cancelled = 0;
        for (_, ticket) in self.admission.take_queued() {
            match ticket {
                Ticket::New { id, pending, .. } => {
                    cancelled += 1;
                    self.unadmitted(id, pending, Failure::Drained, now, fx);
                }
                // Still hibernated: its supervision ends it.
                Ticket::Revive { id, waiter } => {
                    if let Some(e) = self.sessions.get_mut(&id) {
                        e.state = State::Hibernated;
                    }
                    fx.push(Effect::RefuseRevival(waiter));
                }
            }
        }
        self.spares.want = 0;
        fx.push(Effect::Draining {
            running: self.sessions.values().map(|e| e.handle.clone()).collect(),
            hibernated: self.count(State::Hibernated) + self.count(State::Reviving),
            cancelled,
            spares: self.spares.ready.drain(..).collect(),
        });
    }

    /// Ends a session that never ran (its ticket is out of the queue).
    fn unadmitted(
        &mut self,
        id: SessionId,
        pending: P::Pending,
        failure: Failure,
        now: Instant,
        fx: &mut Vec<Effect<P>>,
    ) {
        let Some(e) = self.sessions.remove(&id) else {
            return;
        };
        self.counters
            .ended(&e.tenant, Some(failure.cause_name()), None);
        fx.push(Effect::Unadmitted {
            id,
            tenant: e.tenant,
            pending,
            failure,
            queued_for: now.saturating_duration_since(e.queued_at),
        });
    }

    /// Admits whatever the limits allow, tenants taking turns (see
    /// `admission.rs`); a matching warm spare serves a new session, and
    /// when the spares hold the last slots one is given up for a ticket it
    /// cannot serve. Then refills the spares within the slots left.
    fn admit(&mut self, now: Instant, fx: &mut Vec<Effect<P>>) {
        if !self.admitting {
            return;
        }
        loop {
            let max = self.limits.max_sessions;
            let ready = self.spares.ready.len();
            let limits = &self.limits;
            let limit = |t: &str| limits.limit_for(t);
            let (next, from_spare) = match self
                .admission
                .next(max.saturating_sub(self.spares.slots()), limit)
            {
                Some(n) => (Some(n), false),
                None if ready > 0 => (self.admission.next(max, limit), true),
                None => (None, false),
            };
            let Some((tenant, ticket)) = next else {
                break;
            };
            // `from_spare`: the ticket takes a spare's slot; the spare either
            // serves it or is shut down first.
            match ticket {
                Ticket::Revive { id, waiter } => {
                    if let Some(e) = self.sessions.get_mut(&id) {
                        e.state = State::Live;
                    }
                    let evict = if from_spare {
                        self.spares.ready.pop_back()
                    } else {
                        None
                    };
                    fx.push(Effect::Revive { id, waiter, evict });
                }
                Ticket::New {
                    id,
                    pending,
                    fits_spare,
                } => {
                    let waited = match self.sessions.get_mut(&id) {
                        Some(e) => {
                            e.state = State::Live;
                            now.saturating_duration_since(e.queued_at)
                        }
                        None => Duration::ZERO,
                    };
                    self.counters.admitted(&tenant);
                    let spare = if fits_spare {
                        self.take_spare(fx)
                    } else {
                        None
                    };
                    let evict = if spare.is_some() {
                        self.counters.spare_used();
                        None
                    } else if from_spare {
                        self.spares.ready.pop_back()
                    } else {
                        None
                    };
                    let depth = self.admission.queued_of(&tenant);
                    fx.push(Effect::Start {
                        id,
                        tenant,
                        pending,
                        waited,
                        depth,
                        spare,
                        evict,
                    });
                }
            }
        }
        let used = self.admission.running_total() + self.spares.slots();
        let room = self.limits.max_sessions.saturating_sub(used);
        let n = self
            .spares
            .want
            .saturating_sub(self.spares.slots())
            .min(room);
        if n > 0 {
            self.spares.starting += n;
            fx.push(Effect::StartSpares(n));
        }
    }

    /// The first ready spare that can still serve; those that cannot are
    /// shut down.
    fn take_spare(&mut self, fx: &mut Vec<Effect<P>>) -> Option<P::Spare> {
        while let Some(s) = self.spares.ready.pop_front() {
            if P::spare_usable(&s) {
                return Some(s);
            }
            fx.push(Effect::StopSpare(s));
        }
        None
    }

    fn count(&self, state: State) -> usize {
        self.sessions.values().filter(|e| e.state == state).count()
    }

    /// A queued, live or hibernated session's handle.
    pub(crate) fn handle(&self, id: SessionId) -> Option<&P::Handle> {
        self.sessions.get(&id).map(|e| &e.handle)
    }

    /// Every queued, live or hibernated session's handle, by id.
    pub(crate) fn handles(&self) -> Vec<P::Handle> {
        self.sessions.values().map(|e| e.handle.clone()).collect()
    }

    /// Where a session is (`None`: unknown or ended).
    pub(crate) fn state(&self, id: SessionId) -> Option<State> {
        self.sessions.get(&id).map(|e| e.state)
    }

    /// The counters now.
    pub(crate) fn metrics(&self) -> HostMetrics {
        let mut m = self.counters.totals.clone();
        m.queued = self.admission.queued_total();
        m.running = self.admission.running_total();
        m.hibernated = self.count(State::Hibernated) + self.count(State::Reviving);
        m.logical = self.sessions.len();
        m.spares = self.spares.ready.len();
        m.live = m.running + self.spares.slots();
        m.draining = !self.admitting;
        for t in m.by_tenant.values_mut() {
            t.queued = 0;
            t.running = 0;
        }
        for tenant in self.admission.tenants() {
            let entry = m.by_tenant.entry(tenant.to_owned()).or_default();
            entry.queued = self.admission.queued_of(tenant);
            entry.running = self.admission.running_of(tenant);
        }
        m
    }

    /// The limits it enforces.
    #[cfg(test)]
    pub(crate) fn limits(&self) -> &Limits {
        &self.limits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tenant_limits_override_the_default() {
        let c = HostConfig::new().max_per_tenant(4).tenant_limit("small", 1);
        let limits = Limits::of(&c, 0);
        assert_eq!(limits.limit_for("small"), 1);
        assert_eq!(limits.limit_for("other"), 4);
    }
}
