//! The host's supervisor actor: a thin shell around the [`Core`]. Each
//! message becomes one input of the core (or a question it answers); the
//! actor applies the effects: it starts sessions' supervision tasks and
//! spares, tells callers and waiting sessions, publishes events, outcomes
//! and telemetry. It never awaits a session; shutdowns it asks for run on
//! their own tasks.

use std::sync::Arc;
use std::time::{Duration, Instant};

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use tokio::sync::{broadcast, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::config::{HostConfig, RestartPolicy};
use super::core::{Core, Effect, End, Input, Limits, Plumbing};
use super::drain::DrainStart;
use super::error::HostError;
use super::events::HostEvent;
use super::gate::Gate;
use super::handle::SessionHandle;
use super::lifecycle::{self, Lifecycle};
use super::msg::{HostMsg, Restart};
use super::outcome::{Failure, SessionId, SessionOutcome};
use super::spares::{self, SpareKey};
use super::status::SessionStatus;
use super::work::Work;
use crate::{client::Client, client::ClientBuilder};

pub(crate) struct HostActor;

pub(crate) struct HostArgs {
    pub(crate) config: HostConfig,
    pub(crate) draining: CancellationToken,
    pub(crate) events: broadcast::Sender<HostEvent>,
}

/// What a new session starts with, once admitted.
pub(crate) struct Pending {
    builder: Box<ClientBuilder>,
    work: Work,
    state: Arc<watch::Sender<SessionStatus>>,
    stop: CancellationToken,
    gate: Arc<Gate>,
}

/// The core's opaque types, as the actor runs it.
pub(crate) struct Live;

impl Plumbing for Live {
    type Pending = Pending;
    type Handle = SessionHandle;
    type Spare = Client;
    type Waiter = oneshot::Sender<bool>;
    type Outcome = (Arc<SessionOutcome>, Arc<watch::Sender<SessionStatus>>);

    fn spare_usable(spare: &Client) -> bool {
        !spare.session().is_closed()
    }
}

pub(crate) struct HostState {
    core: Core<Live>,
    config: HostConfig,
    /// What a builder must match to be served by a spare (`None`: no spares).
    spare_key: Option<SpareKey>,
    draining: CancellationToken,
    events: broadcast::Sender<HostEvent>,
}

/// The callers waiting on the input being applied.
#[derive(Default)]
struct Replies {
    submitted: Option<(
        SessionHandle,
        RpcReplyPort<Result<SessionHandle, HostError>>,
    )>,
    restart: Option<RpcReplyPort<Option<Restart>>>,
    drain: Option<RpcReplyPort<DrainStart>>,
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
        let config = args.config;
        let spare_key = config
            .warm_spares
            .as_ref()
            .and_then(|(_, template)| spares::template_key(template));
        let spares = match (&config.warm_spares, &spare_key) {
            (Some((k, _)), Some(_)) => *k,
            _ => 0,
        };
        let limits = Limits::of(&config, spares);
        let mut st = HostState {
            core: Core::new(limits),
            config,
            spare_key,
            draining: args.draining,
            events: args.events,
        };
        st.step(&myself, Input::Open, Replies::default());
        Ok(st)
    }

    async fn handle(
        &self,
        myself: ActorRef<HostMsg>,
        msg: HostMsg,
        st: &mut HostState,
    ) -> Result<(), ActorProcessingErr> {
        let mut replies = Replies::default();
        let input = match msg {
            HostMsg::Submit {
                tenant,
                builder,
                work,
                reply,
            } => {
                let (input, handle) = st.submission(&myself, tenant, builder, work);
                replies.submitted = Some((handle, reply));
                input
            }
            HostMsg::Cancel(id) => Input::Cancel(id),
            HostMsg::Crashed { id, reply } => {
                replies.restart = Some(reply);
                Input::Crashed(id)
            }
            HostMsg::Hibernated(id) => Input::Hibernated(id),
            HostMsg::Revive { id, go } => Input::Revive { id, waiter: go },
            HostMsg::Revived(id) => Input::Revived(id),
            HostMsg::Ended { outcome, state } => Input::Ended {
                id: outcome.id,
                end: End {
                    failure: outcome.failure.as_ref().map(Failure::cause_name),
                    escalation: outcome.report.as_ref().map(|r| r.escalation),
                },
                outcome: (outcome, state),
            },
            HostMsg::SpareStarted(client) => Input::SpareStarted(client),
            HostMsg::Drain(reply) => {
                replies.drain = Some(reply);
                Input::Drain
            }
            HostMsg::Get(id, reply) => {
                let _ = reply.send(st.core.handle(id).cloned());
                return Ok(());
            }
            HostMsg::List(reply) => {
                let _ = reply.send(st.core.handles());
                return Ok(());
            }
            HostMsg::Metrics(reply) => {
                let _ = reply.send(st.core.metrics());
                return Ok(());
            }
        };
        st.step(&myself, input, replies);
        Ok(())
    }
}

impl HostState {
    /// A new session's handle, and its submission to the core.
    fn submission(
        &mut self,
        myself: &ActorRef<HostMsg>,
        tenant: String,
        builder: Box<ClientBuilder>,
        work: Work,
    ) -> (Input<Live>, SessionHandle) {
        let id = self.core.next_id();
        let (tx, rx) = watch::channel(SessionStatus::Queued);
        let stop = self.draining.child_token();
        let gate = Gate::new();
        let handle = SessionHandle {
            id,
            tenant: Arc::from(tenant.as_str()),
            state: rx,
            stop: stop.clone(),
            host: Arc::new(myself.clone()),
            gate: gate.clone(),
        };
        let fits_spare = self.spare_key.is_some() && SpareKey::of(&builder) == self.spare_key;
        let input = Input::Submit {
            id,
            tenant,
            pending: Pending {
                builder,
                work,
                state: Arc::new(tx),
                stop,
                gate,
            },
            handle: handle.clone(),
            fits_spare,
        };
        (input, handle)
    }

    /// Runs `input` through the core and applies its effects, in order.
    fn step(&mut self, myself: &ActorRef<HostMsg>, input: Input<Live>, mut replies: Replies) {
        for effect in self.core.on(input, Instant::now()) {
            self.apply(myself, effect, &mut replies);
        }
    }

    fn apply(&mut self, myself: &ActorRef<HostMsg>, effect: Effect<Live>, replies: &mut Replies) {
        let telemetry = &self.config.telemetry;
        match effect {
            Effect::Queued { id, tenant, depth } => {
                if telemetry.is_enabled() {
                    telemetry.record_queue_depth(&tenant, depth as u64);
                }
                let _ = self.events.send(HostEvent::Queued { id, tenant });
                if let Some((handle, reply)) = replies.submitted.take() {
                    let _ = reply.send(Ok(handle));
                }
            }
            Effect::Refused(e) => {
                if let Some((_, reply)) = replies.submitted.take() {
                    let _ = reply.send(Err(e));
                }
            }
            Effect::Start {
                id,
                tenant,
                pending,
                waited,
                depth,
                spare,
                evict,
            } => self.start(myself, id, tenant, pending, waited, depth, spare, evict),
            Effect::Revive { id, waiter, evict } => match evict {
                Some(spare) => {
                    tracing::debug!(session = %id, "a revival takes a warm spare's slot");
                    crate::task::spawn(async move {
                        spare.shutdown().await;
                        // A waiter gone has ended: its end frees the slot.
                        let _ = waiter.send(true);
                    });
                }
                None => {
                    let _ = waiter.send(true);
                }
            },
            Effect::RefuseRevival(waiter) => {
                let _ = waiter.send(false);
            }
            Effect::Restart {
                tenant,
                attempt,
                after,
                ..
            } => {
                telemetry.record_restart(&tenant);
                // The core's wait is deterministic; the jitter is drawn here.
                let after = match &self.config.restart {
                    RestartPolicy::OnCrash { backoff, .. } => {
                        backoff.jittered(after, crate::random::unit())
                    }
                    RestartPolicy::Never => after,
                };
                if let Some(reply) = replies.restart.take() {
                    let _ = reply.send(Some(Restart { attempt, after }));
                }
            }
            Effect::GiveUp => {
                if let Some(reply) = replies.restart.take() {
                    let _ = reply.send(None);
                }
            }
            Effect::Unadmitted {
                id,
                tenant,
                pending,
                failure,
                queued_for,
            } => {
                let outcome = Arc::new(SessionOutcome {
                    id,
                    tenant,
                    result: None,
                    turn_latency: None,
                    failure: Some(failure),
                    report: None,
                    restarts: 0,
                    queued_for,
                    ran_for: Duration::ZERO,
                });
                self.publish(outcome, &pending.state);
            }
            Effect::Ended((outcome, state)) => self.publish(outcome, &state),
            Effect::StartSpares(n) => {
                if let Some((_, template)) = &self.config.warm_spares {
                    spares::start(n, template, myself);
                }
            }
            Effect::StopSpare(spare) => {
                crate::task::spawn(async move { drop(spare.shutdown().await) });
            }
            Effect::Draining {
                running,
                hibernated,
                cancelled,
                spares,
            } => {
                if let Some(reply) = replies.drain.take() {
                    let _ = reply.send(DrainStart {
                        running,
                        hibernated,
                        cancelled,
                        spares,
                    });
                }
            }
        }
    }

    /// Starts one admitted session's supervision, on `spare` when one
    /// serves it, after `evict` is gone when it took that spare's slot.
    #[allow(clippy::too_many_arguments)]
    fn start(
        &self,
        myself: &ActorRef<HostMsg>,
        id: SessionId,
        tenant: String,
        mut p: Pending,
        waited: Duration,
        depth: usize,
        spare: Option<Client>,
        evict: Option<Client>,
    ) {
        let config = &self.config;
        let telemetry = &config.telemetry;
        if telemetry.is_enabled() {
            telemetry.record_admission_wait(&tenant, waited);
            telemetry.record_queue_depth(&tenant, depth as u64);
            if !p.builder.runtime.telemetry.is_enabled() {
                p.builder.runtime.telemetry = telemetry.clone();
            }
        }
        let _ = self.events.send(HostEvent::Admitted {
            id,
            tenant: tenant.clone(),
            waited,
        });
        if let Some(c) = &spare {
            // An observer only listens: the one thing wired at connect
            // that a hand-out can still attach.
            if let Some(observer) = &p.builder.runtime.on_diagnostic {
                crate::client::forward_diagnostics(
                    c.session().subscribe_events(),
                    Some(observer.clone()),
                    None,
                );
            }
            let _ = self.events.send(HostEvent::SpareTaken {
                id,
                tenant: tenant.clone(),
                pid: c.pid(),
            });
        }
        // Its slot is ours once it is gone.
        let after = evict.map(|evicted| {
            let (tx, rx) = oneshot::channel();
            crate::task::spawn(async move {
                evicted.shutdown().await;
                let _ = tx.send(());
            });
            rx
        });
        lifecycle::spawn(Lifecycle {
            id,
            tenant,
            builder: p.builder,
            work: p.work,
            state: p.state,
            stop: p.stop,
            gate: p.gate,
            hibernate_after: config.hibernate_after,
            spare,
            after,
            draining: self.draining.clone(),
            events: self.events.clone(),
            host: myself.clone(),
            queued_for: waited,
        });
    }

    /// Publishes an outcome (its counters are in already): the event, then
    /// the handle's status.
    fn publish(&self, outcome: Arc<SessionOutcome>, state: &watch::Sender<SessionStatus>) {
        let _ = self.events.send(HostEvent::Ended {
            id: outcome.id,
            tenant: outcome.tenant.clone(),
            failure: outcome.failure.as_ref().map(Failure::cause_name),
            message: outcome.failure.as_ref().map(|f| crate::error::report(f)),
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
}
