//! The host's supervisor actor: the one owner of the admission queue, the
//! session table and the counters. Every decision (admit, end, cancel,
//! drain) is a message, so there are no locks; each session's own work runs
//! on its own task (`lifecycle.rs`), never inside `handle`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

use super::admission::{Admission, QueueFull};
use super::config::HostConfig;
use super::error::HostError;
use super::events::HostEvent;
use super::lifecycle::{self, Lifecycle, Work};
use super::metrics::{Counters, HostMetrics};
use super::session::{Failure, SessionHandle, SessionId, SessionOutcome, SessionStatus};
use crate::ClientBuilder;

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
    /// The owner cancelled a session (it may still be queued).
    Cancel(SessionId),
    Get(SessionId, RpcReplyPort<Option<SessionHandle>>),
    List(RpcReplyPort<Vec<SessionHandle>>),
    Metrics(RpcReplyPort<HostMetrics>),
    /// Stop admitting, cancel the queue; replies with the sessions running
    /// and how many queued ones were cancelled.
    Drain(RpcReplyPort<(Vec<SessionHandle>, usize)>),
}

pub(crate) struct HostActor;

pub(crate) struct HostArgs {
    pub(crate) config: HostConfig,
    pub(crate) draining: CancellationToken,
    pub(crate) events: broadcast::Sender<HostEvent>,
}

/// A session waiting for admission.
struct Pending {
    id: SessionId,
    builder: Box<ClientBuilder>,
    work: Work,
    state: Arc<watch::Sender<SessionStatus>>,
    stop: CancellationToken,
    queued_at: Instant,
}

pub(crate) struct HostState {
    config: HostConfig,
    next_id: u64,
    admission: Admission<Pending>,
    /// Sessions queued or running.
    sessions: HashMap<SessionId, SessionHandle>,
    counters: Counters,
    draining: CancellationToken,
    admitting: bool,
    events: broadcast::Sender<HostEvent>,
}

impl Actor for HostActor {
    type Msg = HostMsg;
    type State = HostState;
    type Arguments = HostArgs;

    async fn pre_start(
        &self,
        _myself: ActorRef<HostMsg>,
        args: HostArgs,
    ) -> Result<HostState, ActorProcessingErr> {
        Ok(HostState {
            config: args.config,
            next_id: 1,
            admission: Admission::default(),
            sessions: HashMap::new(),
            counters: Counters::default(),
            draining: args.draining,
            admitting: true,
            events: args.events,
        })
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
                st.admission.release(&outcome.tenant);
                st.end(outcome, &state);
                st.admit(&myself);
            }
            HostMsg::Restarted(tenant) => {
                st.counters.restarted(&tenant);
                st.config.telemetry.record_restart(&tenant);
            }
            HostMsg::Cancel(id) => {
                let queued = st.sessions.get(&id).map(|h| h.tenant.clone());
                if let Some(tenant) = queued
                    && let Some(p) = st.admission.remove_queued(&tenant, |p| p.id == id)
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
                let queued = st.admission.take_queued();
                let cancelled = queued.len();
                for (tenant, p) in queued {
                    let outcome = st.unadmitted(&p, &tenant, Failure::Drained);
                    st.end(outcome, &p.state);
                }
                let mut running: Vec<_> = st.sessions.values().cloned().collect();
                running.sort_by_key(|h| h.id);
                let _ = reply.send((running, cancelled));
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
        let handle = SessionHandle {
            id,
            tenant: Arc::from(tenant.as_str()),
            state: rx,
            stop: stop.clone(),
            host: myself.clone(),
        };
        let pending = Pending {
            id,
            builder,
            work,
            state: Arc::new(tx),
            stop,
            queued_at: Instant::now(),
        };
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

    /// Starts whatever the limits allow, tenants taking turns.
    fn admit(&mut self, myself: &ActorRef<HostMsg>) {
        if !self.admitting {
            return;
        }
        let config = &self.config;
        while let Some((tenant, mut p)) = self
            .admission
            .next(config.max_sessions, |t| config.limit_for(t))
        {
            self.counters.admitted(&tenant);
            let waited = p.queued_at.elapsed();
            let telemetry = &config.telemetry;
            if telemetry.is_enabled() {
                telemetry.record_admission_wait(&tenant, waited);
                telemetry.record_queue_depth(&tenant, self.admission.queued_of(&tenant) as u64);
                if !p.builder.telemetry_handle().is_enabled() {
                    p.builder.runtime.telemetry = telemetry.clone();
                }
            }
            let _ = self.events.send(HostEvent::Admitted {
                id: p.id,
                tenant: tenant.clone(),
                waited,
            });
            lifecycle::spawn(Lifecycle {
                id: p.id,
                tenant,
                builder: p.builder,
                work: p.work,
                restart: config.restart.clone(),
                state: p.state,
                stop: p.stop,
                draining: self.draining.clone(),
                events: self.events.clone(),
                host: myself.clone(),
                queued_for: waited,
            });
        }
    }

    fn record_depth(&self, tenant: &str) {
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
