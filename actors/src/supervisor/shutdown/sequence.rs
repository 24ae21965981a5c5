//! The ordered shutdown sequence (docs/DESIGN.md, "Ordered shutdown").
//!
//! Runs once per session on its own task, started by the supervisor:
//!
//! 1. stop admitting;
//! 2. fail pending requests, cancel handlers;
//! 3. close stdin;
//! 4. keep reading stdout;
//! 5. grace, SIGTERM, term_grace, SIGKILL; kill group leftovers; wait
//!    (bounded) for stdout EOF and the end of stderr;
//! 6. stop reader, dispatch, transport (reverse start order);
//! 7. publish the report, then stop the supervisor.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ractor::ActorRef;

use crate::dispatch::msg::DispatchMsg;
use crate::error::{ControlError, SessionError};
use crate::events::LifecycleEvent;
use crate::process::ExitInfo;
use crate::session::backpressure::FrameSender;
use crate::session::shared::Shared;
use crate::supervisor::children::Children;
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::shutdown::ladder::{
    Escalation, EscalationStep, Escalator, ShutdownCause, ShutdownReport, ShutdownTimings,
    StepReason, Urge, run_ladder,
};
use crate::transport::EndedWatch;
use crate::transport::msg::TransportMsg;

/// Bound on waiting for stdout EOF / stderr end once the process group is
/// dead (a descendant that left the group could hold the pipes open).
const DRAIN_BOUND: Duration = Duration::from_secs(2);
/// Bound on one actor call or stop during shutdown.
const ACTOR_BOUND: Duration = Duration::from_secs(2);
/// How long a crash's pending failures wait for the last stderr lines.
const STDERR_SETTLE: Duration = Duration::from_millis(100);

pub(crate) struct StopContext {
    pub(crate) cause: ShutdownCause,
    pub(crate) children: Children,
    pub(crate) shared: Arc<Shared>,
    pub(crate) frames: Option<FrameSender>,
    pub(crate) ended: EndedWatch,
    pub(crate) supports_signals: bool,
    pub(crate) grace: Duration,
    pub(crate) term_grace: Duration,
    pub(crate) urge: tokio::sync::watch::Receiver<Urge>,
    pub(crate) supervisor: ActorRef<SupervisorMsg>,
}

/// The far end seen through the transport actor.
struct FarEnd {
    transport: ActorRef<TransportMsg>,
    ended: EndedWatch,
    signals: bool,
}

impl Escalator for FarEnd {
    fn supports_signals(&self) -> bool {
        self.signals
    }
    fn terminate(&mut self) {
        let _ = self.transport.cast(TransportMsg::Terminate);
    }
    fn kill(&mut self) {
        let _ = self.transport.cast(TransportMsg::Kill);
    }
    fn exited(&mut self) -> impl Future<Output = Option<ExitInfo>> + Send {
        let mut rx = self.ended.clone();
        async move {
            // A closed watch means the lifecycle task (and the process with it) is gone.
            let ended = match rx.wait_for(Option::is_some).await {
                Ok(guard) => *guard,
                Err(_) => None,
            };
            ended.and_then(|e| e.exit)
        }
    }
}

fn current_exit(ended: &EndedWatch) -> Option<ExitInfo> {
    ended.borrow().and_then(|e| e.exit)
}

async fn stop_child<M: Send + 'static>(actor: &ActorRef<M>) {
    if actor.stop_and_wait(None, Some(ACTOR_BOUND)).await.is_err() {
        actor.kill();
    }
}

pub(crate) async fn run(ctx: StopContext) {
    let t0 = Instant::now();
    let sh = ctx.shared.clone();
    let Children {
        transport,
        dispatch,
        reader,
    } = ctx.children.clone();
    sh.begin_closing();
    sh.lifecycle(LifecycleEvent::ShutdownStarted {
        cause: ctx.cause.clone(),
    });

    // 2. Fail pending requests at once; after a crash, give stderr a moment
    // so the error carries its last lines.
    let error = match &ctx.cause {
        ShutdownCause::CliExited { .. } | ShutdownCause::StdoutClosed => {
            let _ = tokio::time::timeout(STDERR_SETTLE, sh.stderr_done.cancelled()).await;
            ControlError::Closed {
                exit: current_exit(&ctx.ended),
                stderr_tail: sh.stderr.tail_string(),
            }
        }
        _ => ControlError::ShuttingDown,
    };
    let (requests_failed, handlers_cancelled) =
        ractor::call_t!(dispatch, |r| DispatchMsg::FailAll { error, reply: r }, 2000)
            .unwrap_or((0, 0));
    let pending_failed = t0.elapsed();

    // 3. EOF on stdin, after anything already queued.
    let frames_at_eof = sh.stats().frames_in;
    let _ = transport.cast(TransportMsg::CloseStdin);
    let stdin_closed = t0.elapsed();

    // 4 + 5. The reader keeps running meanwhile; escalate only past grace.
    let mut far = FarEnd {
        transport: transport.clone(),
        ended: ctx.ended.clone(),
        signals: ctx.supports_signals,
    };
    let ladder = run_ladder(&mut far, ctx.grace, ctx.term_grace, ctx.urge, |to| {
        sh.lifecycle(LifecycleEvent::Escalated { to });
    })
    .await;
    let exited = ladder.ended.then(|| t0.elapsed());
    let exit = ladder.exit.or_else(|| current_exit(&ctx.ended));
    let mut steps: Vec<EscalationStep> = ladder
        .steps
        .iter()
        .map(|s| EscalationStep {
            at: s.at + stdin_closed,
            ..*s
        })
        .collect();
    // The lifecycle task is gone without seeing an exit: the transport died
    // and dropping its channel killed the CLI, which the report must say.
    if exit.is_none() && ctx.ended.has_changed().is_err() {
        steps.push(EscalationStep {
            to: Escalation::Kill,
            at: Duration::ZERO,
            why: StepReason::TransportLost,
        });
    }
    if ladder.ended {
        // The CLI is gone, so what is left in its stdout pipe is bounded:
        // read it all even past the byte cap, so nothing printed is lost
        // to a slow consumer.
        sh.budget.lift();
        // A Bash tool's background job dies with the session.
        let at = t0.elapsed();
        if let Ok(Ok(true)) = ractor::call_t!(transport, TransportMsg::Cleanup, 2000) {
            steps.push(EscalationStep {
                to: Escalation::Kill,
                at,
                why: StepReason::Leftovers,
            });
        }
    }
    let drain = async {
        sh.stdout_done.cancelled().await;
        sh.stderr_done.cancelled().await;
    };
    if tokio::time::timeout(DRAIN_BOUND, drain).await.is_err() {
        tracing::warn!("stdout or stderr still open after the CLI ended; abandoning them");
    }
    let drained = t0.elapsed();
    let frames_after_eof = sh.stats().frames_in.saturating_sub(frames_at_eof);

    // 6. Reverse start order. The reader's queue end is gone after this.
    stop_child(&reader).await;
    stop_child(&dispatch).await;
    stop_child(&transport).await;

    let stderr_tail = sh.stderr.tail();
    if let Some(frames) = ctx.frames {
        if sh.turn_open() {
            frames.finish(SessionError::ClosedBeforeResult {
                exit,
                stderr_tail: stderr_tail.join("\n"),
            });
        }
        drop(frames);
    }

    // 7.
    let report = ShutdownReport {
        cause: ctx.cause,
        exit,
        escalation: Escalation::from_steps(&steps, exit),
        timings: ShutdownTimings {
            pending_failed,
            stdin_closed,
            term_sent: ladder.term_sent().map(|d| d + stdin_closed),
            kill_sent: ladder.kill_sent().map(|d| d + stdin_closed),
            exited,
            drained,
            total: t0.elapsed(),
        },
        steps,
        frames_after_eof,
        handlers_cancelled,
        requests_failed,
        stderr_tail,
    };
    tracing::info!(
        parent: &sh.span,
        cause = ?report.cause,
        escalation = ?report.escalation,
        exit = ?report.exit,
        total_ms = report.timings.total.as_millis() as u64,
        "session shut down"
    );
    sh.publish_report(report);
    sh.lifecycle(LifecycleEvent::ShutdownComplete);
    let _ = ctx.supervisor.cast(SupervisorMsg::Stopped);
}
