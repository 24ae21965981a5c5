//! `SessionSupervisor`: ordered start of the tree, and the one entry point
//! of every shutdown path.
//!
//! Start order: transport (owns the open channel) -> dispatch -> reader ->
//! (stderr drain, watchdog tasks); `initialize` is sent by `Session::start`
//! once this actor's `pre_start` returned, i.e. after the read loop runs.
//! Dispatch starts before the reader because the reader routes into it.
//!
//! Every cause (request, dropped handle, CLI exit, stdout EOF, a failed
//! child, the watchdog) ends in `begin`, which runs `sequence::run` once on a
//! task; that task stops the children in reverse order and then this actor.
//! `handle_supervisor_evt` is overridden: a child ending early is a fatal
//! fault routed into the same ordered shutdown, never a silent stop.

pub(crate) mod children;
pub(crate) mod msg;
pub(crate) mod shutdown;
pub(crate) mod watchdog;

use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, SupervisionEvent};
use tokio::sync::{oneshot, watch};
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use crate::channel::Connection;
use crate::dispatch::handler::InboundHandler;
use crate::session::backpressure::FrameSender;
use crate::session::config::Watchdog;
use crate::session::shared::Shared;
use crate::supervisor::children::{Children, spawn_children};
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::shutdown::ladder::{
    Escalation, EscalationStep, ShutdownCause, ShutdownReport, ShutdownTimings, StepReason, Urge,
};
use crate::supervisor::shutdown::sequence::{self, StopContext};
use crate::transport::EndedWatch;

/// How long after stdout EOF we wait for the process to exit before calling
/// it "closed stdout but kept running" (only classifies the cause: the
/// shutdown itself then runs with the configured grace).
const EOF_SETTLE: Duration = Duration::from_millis(250);

pub(crate) struct SupervisorArgs {
    pub(crate) conn: Connection,
    pub(crate) shared: Arc<Shared>,
    pub(crate) frames: FrameSender,
    pub(crate) divert: Option<crate::session::config::FrameDivert>,
    pub(crate) max_line_bytes: usize,
    pub(crate) inbound: Arc<dyn InboundHandler>,
    pub(crate) handler_timeout: Option<Duration>,
    pub(crate) control_timeout: Duration,
    pub(crate) grace: Duration,
    pub(crate) term_grace: Duration,
    pub(crate) watchdog: Option<Watchdog>,
    pub(crate) on_stderr: Option<crate::stderr::OnLine>,
    /// Receives the children once started (a call could race a CLI that
    /// exits at once and takes the whole tree down with it).
    pub(crate) children_out: oneshot::Sender<Children>,
}

pub(crate) struct SupervisorState {
    children: Children,
    shared: Arc<Shared>,
    frames: Option<FrameSender>,
    ended: EndedWatch,
    supports_signals: bool,
    grace: Duration,
    term_grace: Duration,
    stopping: bool,
    /// Requests to cut the shutdown ladder short; the stop task watches it.
    urge: watch::Sender<Urge>,
    _stderr: Option<AbortOnDropHandle<()>>,
    _watchdog: Option<AbortOnDropHandle<()>>,
    stop_task: Option<AbortOnDropHandle<()>>,
}

impl Drop for SupervisorState {
    fn drop(&mut self) {
        // Last resort (the actor was killed or panicked): callers of
        // `closed()` must not hang. The children die with us (ractor kills
        // linked children), and with them the process group.
        if self.shared.report().is_none() {
            self.shared.begin_closing();
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
            self.shared.publish_report(ShutdownReport {
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
                stderr_tail: self.shared.stderr.tail(),
            });
        }
    }
}

/// The supervisor actor.
pub(crate) struct SessionSupervisor;

impl SupervisorState {
    fn begin(&mut self, myself: &ActorRef<SupervisorMsg>, cause: ShutdownCause) {
        if self.stopping {
            return;
        }
        self.stopping = true;
        let ctx = StopContext {
            cause,
            children: self.children.clone(),
            shared: self.shared.clone(),
            frames: self.frames.take(),
            ended: self.ended.clone(),
            supports_signals: self.supports_signals,
            grace: self.grace,
            term_grace: self.term_grace,
            urge: self.urge.subscribe(),
            supervisor: myself.clone(),
        };
        let span = self.shared.span.clone();
        self.stop_task = Some(AbortOnDropHandle::new(tokio::spawn(
            sequence::run(ctx).instrument(span),
        )));
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
        let (grace, term_grace, wd, control_timeout) = (
            args.grace,
            args.term_grace,
            args.watchdog,
            args.control_timeout,
        );
        let on_stderr = args.on_stderr.clone();

        let frames = args.frames.clone();
        let (ended_tx, ended) = watch::channel(None);
        let (children, stderr, children_out) = spawn_children(&myself, args, ended_tx).await?;
        shared.lifecycle(crate::events::LifecycleEvent::Spawned { pid });
        let _ = children_out.send(children.clone());

        let stderr_task = {
            let (ring, done, sh) = (
                shared.stderr.clone(),
                shared.stderr_done.clone(),
                shared.clone(),
            );
            match stderr {
                Some(s) => Some(AbortOnDropHandle::new(tokio::spawn(
                    async move {
                        // Latched however the drain ends (EOF, error, panic in on_stderr, abort).
                        let _latch = done.drop_guard();
                        if let Err(e) = crate::stderr::drain_into(s, ring, on_stderr).await {
                            tracing::debug!(error = %e, "stderr drain ended with an error");
                        }
                    }
                    .instrument(sh.span.clone()),
                ))),
                None => {
                    done.cancel();
                    None
                }
            }
        };
        let watchdog_task = wd.map(|w| {
            AbortOnDropHandle::new(tokio::spawn(
                watchdog::run(
                    w,
                    shared.clone(),
                    myself.clone(),
                    children.dispatch.clone(),
                    control_timeout,
                )
                .instrument(shared.span.clone()),
            ))
        });
        Ok(SupervisorState {
            children,
            shared,
            frames: Some(frames),
            ended,
            supports_signals,
            grace,
            term_grace,
            stopping: false,
            urge: watch::channel(Urge::default()).0,
            _stderr: stderr_task,
            _watchdog: watchdog_task,
            stop_task: None,
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<SupervisorMsg>,
        msg: SupervisorMsg,
        st: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        match msg {
            SupervisorMsg::Shutdown(cause) => st.begin(&myself, cause),
            SupervisorMsg::Hurry => {
                st.urge.send_modify(|u| u.hurries += 1);
                st.begin(&myself, ShutdownCause::Requested);
            }
            SupervisorMsg::Kill(cause) => {
                st.urge.send_modify(|u| u.kill = true);
                st.begin(&myself, cause);
            }
            SupervisorMsg::FarEndEnded(exit) => {
                st.begin(&myself, ShutdownCause::CliExited { exit })
            }
            SupervisorMsg::StdoutEof => {
                let ended = *st.ended.borrow();
                match ended {
                    Some(e) => st.begin(&myself, ShutdownCause::CliExited { exit: e.exit }),
                    None if !st.stopping => {
                        let me = myself.clone();
                        let settle = EOF_SETTLE.min(st.grace);
                        tokio::spawn(async move {
                            tokio::time::sleep(settle).await;
                            let _ = me.cast(SupervisorMsg::EofSettled);
                        });
                    }
                    None => {}
                }
            }
            SupervisorMsg::EofSettled => st.begin(&myself, ShutdownCause::StdoutClosed),
            SupervisorMsg::ReadFailed(reason) => st.begin(
                &myself,
                ShutdownCause::Fatal {
                    reason: format!("reading the CLI's stdout failed: {reason}"),
                },
            ),
            SupervisorMsg::Stopped => {
                // The stop task has finished; drop its handle without aborting it.
                if let Some(t) = st.stop_task.take() {
                    drop(t.detach());
                }
                myself.stop(None);
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        myself: ActorRef<SupervisorMsg>,
        evt: SupervisionEvent,
        st: &mut SupervisorState,
    ) -> Result<(), ActorProcessingErr> {
        if st.stopping {
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
        st.begin(&myself, ShutdownCause::Fatal { reason });
        Ok(())
    }
}
