//! `SessionSupervisor`: ordered start of the tree, and the one entry point
//! of every shutdown path.
//!
//! Start order: transport (owns the open channel) -> dispatch -> reader ->
//! (stderr drain, watchdog tasks); `initialize` is sent by `Session::start`
//! once this actor's `pre_start` returned, i.e. after the read loop runs.
//! Dispatch starts before the reader because the reader routes into it.
//!
//! Every cause (request, dropped handle, CLI exit, stdout EOF, a failed
//! child, the watchdog) ends in `begin`. The supervisor's phase is
//! `Running`, holding the stop sequence's whole context, until `begin`
//! moves it out by value into `sequence::run` on a task and leaves
//! `Stopping`: a second cause finds nothing left to start. That task stops
//! the children in reverse order and then this actor.
//! `handle_supervisor_evt` is overridden: a child ending early is a fatal
//! fault routed into the same ordered shutdown, never a silent stop.

pub(crate) mod children;
pub(crate) mod msg;
pub(crate) mod publish;
pub(crate) mod shutdown;
pub(crate) mod watchdog;

use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, SupervisionEvent};
use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use crate::channel::Connection;
use crate::dispatch::handler::InboundHandler;
use crate::dispatch::request::RequestIds;
use crate::session::backpressure::FrameSender;
use crate::session::budget::Budget;
use crate::session::config::{DivertRoom, FrameDivert, Watchdog};
use crate::session::record::SessionRecord;
use crate::stderr::StderrRing;
use crate::supervisor::children::{Children, spawn_children};
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::publish::StatusTx;
use crate::supervisor::shutdown::ladder::{
    Escalation, EscalationStep, ShutdownCause, ShutdownReport, ShutdownTimings, StepReason, Urge,
};
use crate::supervisor::shutdown::sequence::{self, StopContext};
use crate::supervisor::shutdown::timeouts::ShutdownTimeouts;
use crate::transport::EndedWatch;
use crate::transport::stdin_queue::StdinTx;

pub(crate) struct SupervisorArgs {
    pub(crate) conn: Connection,
    pub(crate) shared: Arc<SessionRecord>,
    pub(crate) status: Arc<StatusTx>,
    pub(crate) stdin: Arc<StdinTx>,
    pub(crate) frames: FrameSender,
    pub(crate) budget: Arc<Budget>,
    pub(crate) stderr: StderrRing,
    pub(crate) divert: Option<FrameDivert>,
    pub(crate) divert_room: Option<DivertRoom>,
    pub(crate) max_line_bytes: usize,
    pub(crate) inbound: Arc<dyn InboundHandler>,
    pub(crate) handler_timeout: Option<Duration>,
    pub(crate) control_timeout: Duration,
    pub(crate) request_ids: Arc<RequestIds>,
    pub(crate) grace: Duration,
    pub(crate) term_grace: Duration,
    pub(crate) timeouts: ShutdownTimeouts,
    pub(crate) watchdog: Option<Watchdog>,
    pub(crate) on_stderr: Option<crate::stderr::OnLine>,
    /// Receives the children once started (a call could race a CLI that
    /// exits at once and takes the whole tree down with it).
    pub(crate) children_out: oneshot::Sender<Children>,
}

/// Where the supervisor is in its one life.
enum Phase {
    /// Nothing is stopping yet; holds what only the stop sequence may take.
    Running(Box<StopContext>),
    /// The stop sequence was started (its task, until it reports back).
    Stopping(Option<AbortOnDropHandle<()>>),
}

pub(crate) struct SupervisorState {
    phase: Phase,
    shared: Arc<SessionRecord>,
    status: Arc<StatusTx>,
    stderr: StderrRing,
    ended: EndedWatch,
    grace: Duration,
    eof_settle: Duration,
    /// Requests to cut the shutdown ladder short; the stop task watches it.
    urge: watch::Sender<Urge>,
    _stderr: Option<AbortOnDropHandle<()>>,
    _watchdog: Option<AbortOnDropHandle<()>>,
}

impl Drop for SupervisorState {
    fn drop(&mut self) {
        // Last resort (the actor was killed or panicked): callers of
        // `closed()` must not hang. The children die with us (ractor kills
        // linked children), and with them the process group.
        if !self.status.ended() {
            self.status.closing();
            let exit = self.ended.borrow().and_then(|e| e.exit);
            // Unless the CLI had already ended, the transport's process
            // handle is dropped with us, which SIGKILLs the group.
            let steps = match exit {
                Some(_) => Vec::new(),
                None => vec![EscalationStep {
                    to: Escalation::Kill,
                    at: Duration::ZERO,
                    why: StepReason::SupervisorLost,
                }],
            };
            self.status.publish(ShutdownReport {
                cause: ShutdownCause::Fatal {
                    reason: "the session supervisor stopped unexpectedly".into(),
                },
                exit,
                escalation: Escalation::from_steps(&steps, exit),
                steps,
                timings: ShutdownTimings::default(),
                frames_after_eof: 0,
                handlers_cancelled: 0,
                requests_failed: 0,
                stderr_tail: self.stderr.tail(),
            });
        }
    }
}

/// The supervisor actor.
pub(crate) struct SessionSupervisor;

impl SupervisorState {
    fn stopping(&self) -> bool {
        matches!(self.phase, Phase::Stopping(_))
    }

    /// Starts the ordered stop, unless it has started: the `Running` phase
    /// is moved out by value, so the sequence can only run once.
    fn begin(&mut self, cause: ShutdownCause) {
        self.phase = match std::mem::replace(&mut self.phase, Phase::Stopping(None)) {
            Phase::Running(ctx) => {
                self.status.closing();
                let run = sequence::run(*ctx, cause, self.urge.subscribe());
                let task = crate::task::spawn(run.instrument(self.shared.span.clone()));
                Phase::Stopping(Some(AbortOnDropHandle::new(task)))
            }
            stopping => stopping,
        };
    }
}

impl Actor for SessionSupervisor {
    type Msg = SupervisorMsg;
    type State = SupervisorState;
    type Arguments = SupervisorArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<SupervisorMsg>,
        args: SupervisorArgs,
    ) -> Result<SupervisorState, ActorProcessingErr> {
        let shared = args.shared.clone();
        let supports_signals = args.conn.control.supports_signals();
        let pid = args.conn.control.pid();
        let on_stderr = args.on_stderr.clone();
        let status = args.status.clone();
        let (frames, budget, stderr_ring) = (
            args.frames.clone(),
            args.budget.clone(),
            args.stderr.clone(),
        );
        let (grace, term_grace, timeouts) = (args.grace, args.term_grace, args.timeouts);
        let (wd, control_timeout, ids) = (
            args.watchdog,
            args.control_timeout,
            args.request_ids.clone(),
        );
        let inbound_cancel = CancellationToken::new();
        let stdout_done = CancellationToken::new();
        let stderr_done = CancellationToken::new();

        let (ended_tx, ended) = watch::channel(None);
        let started = spawn_children(
            &myself,
            args,
            ended_tx,
            inbound_cancel.clone(),
            stdout_done.clone(),
        )
        .await?;
        let (children, stderr, children_out) = started;
        shared.lifecycle(crate::events::LifecycleEvent::Spawned { pid });
        let _ = children_out.send(children.clone());

        let stderr_task = match stderr {
            Some(s) => {
                let (ring, done) = (stderr_ring.clone(), stderr_done.clone());
                Some(AbortOnDropHandle::new(crate::task::spawn(
                    async move {
                        // Latched however the drain ends (EOF, error, panic in on_stderr, abort).
                        let _latch = done.drop_guard();
                        if let Err(e) = crate::stderr::drain_into(s, ring, on_stderr).await {
                            tracing::debug!(error = %e, "stderr drain ended with an error");
                        }
                    }
                    .instrument(shared.span.clone()),
                )))
            }
            None => {
                stderr_done.cancel();
                None
            }
        };
        let watchdog_task = wd.map(|w| {
            let run = watchdog::run(watchdog::WatchdogArgs {
                watchdog: w,
                shared: shared.clone(),
                status: status.subscribe(),
                ids,
                supervisor: myself.clone(),
                dispatch: children.dispatch.clone(),
                control_timeout,
            });
            AbortOnDropHandle::new(crate::task::spawn(run.instrument(shared.span.clone())))
        });
        let stop = StopContext {
            children,
            shared: shared.clone(),
            frames,
            ended: ended.clone(),
            supports_signals,
            grace,
            term_grace,
            timeouts,
            inbound_cancel,
            budget,
            stderr: stderr_ring.clone(),
            stdout_done,
            stderr_done,
            status: status.clone(),
            supervisor: myself.clone(),
        };
        Ok(SupervisorState {
            phase: Phase::Running(Box::new(stop)),
            shared,
            status,
            stderr: stderr_ring,
            ended,
            grace,
            eof_settle: timeouts.eof_settle,
            urge: watch::channel(Urge::default()).0,
            _stderr: stderr_task,
            _watchdog: watchdog_task,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<SupervisorMsg>,
        msg: SupervisorMsg,
        st: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SupervisorMsg::Shutdown(cause) => st.begin(cause),
            SupervisorMsg::Hurry => {
                st.urge.send_modify(|u| u.hurries += 1);
                st.begin(ShutdownCause::Requested);
            }
            SupervisorMsg::Kill(cause) => {
                st.urge.send_modify(|u| u.kill = true);
                st.begin(cause);
            }
            SupervisorMsg::FarEndEnded(exit) => st.begin(ShutdownCause::CliExited { exit }),
            SupervisorMsg::StdoutEof => {
                let ended = *st.ended.borrow();
                match ended {
                    Some(e) => st.begin(ShutdownCause::CliExited { exit: e.exit }),
                    None if !st.stopping() => {
                        let me = myself.clone();
                        let settle = st.eof_settle.min(st.grace);
                        crate::task::spawn(async move {
                            tokio::time::sleep(settle).await;
                            let _ = me.cast(SupervisorMsg::EofSettled);
                        });
                    }
                    None => {}
                }
            }
            SupervisorMsg::EofSettled => st.begin(ShutdownCause::StdoutClosed),
            SupervisorMsg::ReadFailed(reason) => st.begin(ShutdownCause::Fatal {
                reason: format!("reading the CLI's stdout failed: {reason}"),
            }),
            SupervisorMsg::Stopped => {
                // The stop task has finished; drop its handle without aborting it.
                if let Phase::Stopping(task) = &mut st.phase {
                    if let Some(t) = task.take() {
                        drop(t.detach());
                    }
                }
                myself.stop(None);
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        _myself: ActorRef<SupervisorMsg>,
        evt: SupervisionEvent,
        st: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        if st.stopping() {
            // Children stop in order during shutdown; one dying some other way
            // does not change the sequence under way, but is worth a line.
            match &evt {
                SupervisionEvent::ActorFailed(cell, err) => {
                    tracing::warn!(parent: &st.shared.span, actor = %cell.get_id(), %err, "session child failed during shutdown");
                }
                SupervisionEvent::ActorTerminated(cell, _, Some(why)) => {
                    tracing::warn!(parent: &st.shared.span, actor = %cell.get_id(), %why, "session child ended during shutdown");
                }
                _ => {}
            }
            return Ok(());
        }
        let reason = match evt {
            SupervisionEvent::ActorTerminated(cell, _, why) => {
                format!(
                    "actor {} stopped early ({})",
                    cell.get_id(),
                    why.unwrap_or_default()
                )
            }
            SupervisionEvent::ActorFailed(cell, err) => {
                format!("actor {} failed: {err}", cell.get_id())
            }
            _ => return Ok(()),
        };
        tracing::error!(parent: &st.shared.span, %reason, "session child ended");
        st.begin(ShutdownCause::Fatal { reason });
        Ok(())
    }
}
