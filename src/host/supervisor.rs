//! The host's supervisor actor: the one owner of the admission queue, the
//! session table and the counters. Every decision (admit, end, cancel,
//! drain) is a message, so there are no locks; each session's own work runs
//! on its own task (`lifecycle.rs`), never inside `handle`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use tokio::sync::{broadcast, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::admission::{Admission, QueueFull};
use super::config::HostConfig;
use super::error::HostError;
use super::events::HostEvent;
use super::hibernate::Gate;
use super::lifecycle::Work;
use super::metrics::{Counters, HostMetrics};
use super::session::{Failure, SessionHandle, SessionId, SessionOutcome, SessionStatus};
use super::spares::Spares;
use crate::{Client, ClientBuilder};

/// Messages of the host supervisor.
pub(crate) enum HostMsg {
    Submit {
        tenant: String,
        builder: Box<ClientBuilder>,
        work: Work,
        reply: RpcReplyPort<Result<SessionHandle, HostError>>,
    },
    /// A session's supervision finished.
    Ended {
        outcome: Arc<SessionOutcome>,
        state: Arc<watch::Sender<SessionStatus>>,
    },
    /// A session restarted (its tenant).
    Restarted(String),
    /// A session hibernated: its CLI is gone, its slot is free.
    Hibernated {
        id: SessionId,
        tenant: String,
    },
    /// A hibernated session wants its slot back: `go` gets `true` once
    /// admitted, `false` when the host drains first.
    Revive {
        id: SessionId,
        tenant: String,
        go: oneshot::Sender<bool>,
    },
    /// A hibernated session's CLI started again.
    Revived,
    /// A revived session's slot, when its supervision ended before the
    /// slot was handed over.
    Release(String),
    /// A warm spare's start finished (`None`: it failed).
    SpareReady(Option<Client>),
    /// The owner cancelled a session (it may still be queued).
    Cancel(SessionId),
    Get(SessionId, RpcReplyPort<Option<SessionHandle>>),
    List(RpcReplyPort<Vec<SessionHandle>>),
    Metrics(RpcReplyPort<HostMetrics>),
    /// Stop admitting, cancel the queue; replies with the sessions running
    /// (hibernated ones included), how many of them are hibernated, and how
    /// many queued ones were cancelled.
    Drain(RpcReplyPort<DrainStart>),
}

/// What the supervisor hands a drain.
#[derive(Default)]
pub(crate) struct DrainStart {
    /// Sessions not ended, hibernated ones included.
    pub(crate) running: Vec<SessionHandle>,
    /// How many of them are hibernated.
    pub(crate) hibernated: usize,
    /// Queued sessions cancelled.
    pub(crate) cancelled: usize,
    /// Ready warm spares, to shut down.
    pub(crate) spares: Vec<Client>,
}

pub(crate) struct HostActor;

pub(crate) struct HostArgs {
    pub(crate) config: HostConfig,
    pub(crate) draining: CancellationToken,
    pub(crate) events: broadcast::Sender<HostEvent>,
}

/// What waits for admission: a new session, or a hibernated one's revival.
pub(super) enum Ticket {
    New(Pending),
    Revive {
        id: SessionId,
        go: oneshot::Sender<bool>,
    },
}

impl Ticket {
    fn is_new(&self, id: SessionId) -> bool {
        matches!(self, Self::New(p) if p.id == id)
    }
}

/// A session waiting for admission.
pub(super) struct Pending {
    pub(super) id: SessionId,
    pub(super) builder: Box<ClientBuilder>,
    pub(super) work: Work,
    pub(super) state: Arc<watch::Sender<SessionStatus>>,
    pub(super) stop: CancellationToken,
    pub(super) queued_at: Instant,
    pub(super) gate: Arc<Gate>,
}

pub(crate) struct HostState {
    pub(super) config: HostConfig,
    pub(super) next_id: u64,
    pub(super) admission: Admission<Ticket>,
    /// Sessions queued, running or hibernated.
    pub(super) sessions: HashMap<SessionId, SessionHandle>,
    /// Sessions holding no slot: hibernated, or queued to be revived.
    pub(super) unslotted: HashSet<SessionId>,
    pub(super) counters: Counters,
    pub(super) draining: CancellationToken,
    pub(super) admitting: bool,
    pub(super) events: broadcast::Sender<HostEvent>,
    pub(super) spares: Option<Spares>,
}

impl Actor for HostActor {
    type Msg = HostMsg;
    type State = HostState;
    type Arguments = HostArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<HostMsg>,
        args: HostArgs,
    ) -> Result<HostState, ActorProcessingErr> {
        let spares = args
            .config
            .warm_spares
            .clone()
            .map(|(k, template)| Spares::new(k, template));
        let mut st = HostState {
            config: args.config,
            next_id: 1,
            admission: Admission::default(),
            sessions: HashMap::new(),
            unslotted: HashSet::new(),
            counters: Counters::default(),
            draining: args.draining,
            admitting: true,
            events: args.events,
            spares,
        };
        st.admit(&myself);
        Ok(st)
    }

    async fn handle(
        &self,
        myself: ActorRef<HostMsg>,
        msg: HostMsg,
        st: &mut HostState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            HostMsg::Submit {
                tenant,
                builder,
                work,
                reply,
            } => {
                let result = st.submit(&myself, tenant, builder, work);
                let _ = reply.send(result);
                st.admit(&myself);
            }
            HostMsg::Ended { outcome, state } => {
                if !st.unslotted.remove(&outcome.id) {
                    st.admission.release(&outcome.tenant);
                }
                st.end(outcome, &state);
                st.admit(&myself);
            }
            HostMsg::Restarted(tenant) => {
                st.counters.restarted(&tenant);
                st.config.telemetry.record_restart(&tenant);
            }
            HostMsg::Hibernated { id, tenant } => {
                if st.unslotted.insert(id) {
                    st.admission.release(&tenant);
                }
                st.counters.hibernated();
                st.admit(&myself);
            }
            HostMsg::Revive { id, tenant, go } => {
                let ticket = Ticket::Revive { id, go };
                // Bounded by the sessions already accepted, not the queue
                // bounds: a logical session is never refused its revival.
                if let Err((_, Ticket::Revive { go, .. })) =
                    st.admission.push(&tenant, ticket, usize::MAX, usize::MAX)
                {
                    let _ = go.send(false);
                }
                st.admit(&myself);
            }
            HostMsg::Revived => st.counters.revived(),
            HostMsg::Release(tenant) => {
                st.admission.release(&tenant);
                st.admit(&myself);
            }
            HostMsg::SpareReady(client) => {
                if let Some(sp) = st.spares.as_mut() {
                    if st.admitting {
                        sp.started(client);
                    } else {
                        sp.started(None);
                        if let Some(c) = client {
                            tokio::spawn(async move { c.shutdown().await });
                        }
                    }
                }
                st.admit(&myself);
            }
            HostMsg::Cancel(id) => {
                let queued = st.sessions.get(&id).map(|h| h.tenant.clone());
                if let Some(tenant) = queued
                    && let Some(Ticket::New(p)) =
                        st.admission.remove_queued(&tenant, |t| t.is_new(id))
                {
                    let outcome = st.unadmitted(&p, &tenant, Failure::Cancelled);
                    st.end(outcome, &p.state);
                }
            }
            HostMsg::Get(id, reply) => {
                let _ = reply.send(st.sessions.get(&id).cloned());
            }
            HostMsg::List(reply) => {
                let mut all: Vec<_> = st.sessions.values().cloned().collect();
                all.sort_by_key(|h| h.id);
                let _ = reply.send(all);
            }
            HostMsg::Metrics(reply) => {
                let _ = reply.send(st.snapshot());
            }
            HostMsg::Drain(reply) => {
                st.admitting = false;
                let mut cancelled = 0;
                for (tenant, ticket) in st.admission.take_queued() {
                    match ticket {
                        Ticket::New(p) => {
                            cancelled += 1;
                            let outcome = st.unadmitted(&p, &tenant, Failure::Drained);
                            st.end(outcome, &p.state);
                        }
                        // Still hibernated: its supervision ends it.
                        Ticket::Revive { go, .. } => {
                            let _ = go.send(false);
                        }
                    }
                }
                let mut running: Vec<_> = st.sessions.values().cloned().collect();
                running.sort_by_key(|h| h.id);
                let spares = st.spares.as_mut().map(Spares::take_all).unwrap_or_default();
                let _ = reply.send(DrainStart {
                    running,
                    hibernated: st.unslotted.len(),
                    cancelled,
                    spares,
                });
            }
        }
        Ok(())
    }
}

impl HostState {
    fn submit(
        &mut self,
        myself: &ActorRef<HostMsg>,
        tenant: String,
        builder: Box<ClientBuilder>,
        work: Work,
    ) -> Result<SessionHandle, HostError> {
        if !self.admitting || self.draining.is_cancelled() {
            self.counters.rejected();
            return Err(HostError::Draining);
        }
        let id = SessionId(self.next_id);
        self.next_id += 1;
        let (tx, rx) = watch::channel(SessionStatus::Queued);
        let stop = self.draining.child_token();
        let gate = Gate::new();
        let handle = SessionHandle {
            id,
            tenant: Arc::from(tenant.as_str()),
            state: rx,
            stop: stop.clone(),
            host: myself.clone(),
            gate: gate.clone(),
        };
        let pending = Ticket::New(Pending {
            id,
            builder,
            work,
            state: Arc::new(tx),
            stop,
            queued_at: Instant::now(),
            gate,
        });
        let (max, per) = (self.config.max_queued, self.config.max_queued_per_tenant);
        if let Err((full, _)) = self.admission.push(&tenant, pending, max, per) {
            self.counters.rejected();
            return Err(match full {
                QueueFull::Global => HostError::QueueFull { limit: max },
                QueueFull::Tenant => HostError::TenantQueueFull { tenant, limit: per },
            });
        }
        self.sessions.insert(id, handle.clone());
        self.record_depth(&tenant);
        let _ = self.events.send(HostEvent::Queued { id, tenant });
        Ok(handle)
    }

    pub(super) fn record_depth(&self, tenant: &str) {
        if self.config.telemetry.is_enabled() {
            let depth = self.admission.queued_of(tenant) as u64;
            self.config.telemetry.record_queue_depth(tenant, depth);
        }
    }

    /// The outcome of a session that never ran.
    fn unadmitted(&self, p: &Pending, tenant: &str, failure: Failure) -> Arc<SessionOutcome> {
        Arc::new(SessionOutcome {
            id: p.id,
            tenant: tenant.to_owned(),
            result: None,
            turn_latency: None,
            failure: Some(failure),
            report: None,
            restarts: 0,
            queued_for: p.queued_at.elapsed(),
            ran_for: std::time::Duration::ZERO,
        })
    }

    /// Counts and publishes an outcome.
    fn end(&mut self, outcome: Arc<SessionOutcome>, state: &watch::Sender<SessionStatus>) {
        self.counters.ended(&outcome);
        self.sessions.remove(&outcome.id);
        let _ = self.events.send(HostEvent::Ended {
            id: outcome.id,
            tenant: outcome.tenant.clone(),
            failure: outcome.failure.as_ref().map(Failure::cause_name),
            message: outcome.failure.as_ref().map(ToString::to_string),
            exit: outcome.failure.as_ref().and_then(Failure::exit),
            stderr_tail: outcome
                .failure
                .as_ref()
                .map(|f| f.stderr_tail().to_vec())
                .unwrap_or_default(),
            turn_latency: outcome.turn_latency,
            restarts: outcome.restarts,
        });
        state.send_replace(SessionStatus::Ended(outcome));
    }

    fn snapshot(&self) -> HostMetrics {
        let mut m = self.counters.totals.clone();
        m.queued = self.admission.queued_total();
        m.running = self.admission.running_total();
        m.hibernated = self.unslotted.len();
        m.logical = self.sessions.len();
        m.spares = self.spares.as_ref().map_or(0, Spares::ready);
        m.live = m.running + self.spares.as_ref().map_or(0, Spares::slots);
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
}
