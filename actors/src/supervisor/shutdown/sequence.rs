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
use tokio_util::sync::CancellationToken;

use crate::dispatch::msg::DispatchMsg;
use crate::error::{ControlError, SessionError};
use crate::events::LifecycleEvent;
use crate::process::ExitInfo;
use crate::session::backpressure::FrameSender;
use crate::session::budget::Budget;
use crate::session::record::SessionRecord;
use crate::stderr::StderrRing;
use crate::supervisor::children::Children;
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::publish::StatusTx;
use crate::supervisor::shutdown::ladder::{
    Escalation, EscalationStep, Escalator, LadderWaits, ShutdownCause, ShutdownReport,
    ShutdownTimings, StepReason, Urge, run_ladder,
};
use crate::supervisor::shutdown::timeouts::ShutdownTimeouts;
use crate::transport::EndedWatch;
use crate::transport::msg::TransportMsg;

/// Everything the stop sequence takes over: made by the supervisor at
/// start and consumed by [`run`], so a session can be stopped only once.
pub(crate) struct StopContext {
    pub(crate) children: Children,
    pub(crate) shared: Arc<SessionRecord>,
    pub(crate) frames: FrameSender,
    pub(crate) ended: EndedWatch,
    pub(crate) supports_signals: bool,
    pub(crate) grace: Duration,
    pub(crate) term_grace: Duration,
    pub(crate) timeouts: ShutdownTimeouts,
    /// The parent of every inbound request's cancellation token.
    pub(crate) inbound_cancel: CancellationToken,
    pub(crate) budget: Arc<Budget>,
    pub(crate) stderr: StderrRing,
    pub(crate) stdout_done: CancellationToken,
    pub(crate) stderr_done: CancellationToken,
    pub(crate) status: Arc<StatusTx>,
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

/// A bound as ractor's `call_t!` takes it (milliseconds, saturating).
fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn current_exit(ended: &EndedWatch) -> Option<ExitInfo> {
    ended.borrow().and_then(|e| e.exit)
}

async fn stop_child<M: Send + 'static>(actor: &ActorRef<M>, bound: Duration) {
    if actor.stop_and_wait(None, Some(bound)).await.is_err() {
        actor.kill();
    }
}

fn frames_in(sh: &SessionRecord) -> u64 {
    sh.counters
        .frames_in
        .load(std::sync::atomic::Ordering::SeqCst)
}

/// Runs the ordered stop. The status is already `Closing` (the supervisor
/// moved it when it started this).
pub(crate) async fn run(
    ctx: StopContext,
    cause: ShutdownCause,
    urge: tokio::sync::watch::Receiver<Urge>,
) {
    let t0 = Instant::now();
    let sh = ctx.shared.clone();
    let bounds = ctx.timeouts;
    let Children {
        transport,
        dispatch,
        reader,
    } = ctx.children.clone();
    sh.lifecycle(LifecycleEvent::ShutdownStarted {
        cause: cause.clone(),
    });

    // 2. Cancel the CLI's requests being answered (their tokens owe no
    // reply now); fail ours at once. After a crash, give stderr a moment
    // so the error carries its last lines.
    let handlers_cancelled = sh.handlers_pending() as usize;
    ctx.inbound_cancel.cancel();
    let error = match &cause {
        ShutdownCause::CliExited { .. } | ShutdownCause::StdoutClosed => {
            let _ = tokio::time::timeout(bounds.stderr_settle, ctx.stderr_done.cancelled()).await;
            ControlError::Closed {
                exit: current_exit(&ctx.ended),
                stderr_tail: ctx.stderr.tail_string(),
            }
        }
        _ => ControlError::ShuttingDown,
    };
    let requests_failed = ractor::call_t!(
        dispatch,
        |r| DispatchMsg::FailAll { error, reply: r },
        millis(bounds.actor_call)
    )
    .unwrap_or(0);
    let pending_failed = t0.elapsed();

    // 3. EOF on stdin, after anything already queued.
    let frames_at_eof = frames_in(&sh);
    let _ = transport.cast(TransportMsg::CloseStdin);
    let stdin_closed = t0.elapsed();

    // 4 + 5. The reader keeps running meanwhile; escalate only past grace.
    let mut far = FarEnd {
        transport: transport.clone(),
        ended: ctx.ended.clone(),
        signals: ctx.supports_signals,
    };
    let waits = LadderWaits {
        grace: ctx.grace,
        term_grace: ctx.term_grace,
        after_kill: bounds.after_kill,
    };
    let ladder = run_ladder(&mut far, waits, urge, |to| {
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
        ctx.budget.lift();
        // A Bash tool's background job dies with the session.
        let at = t0.elapsed();
        let cleanup = ractor::call_t!(transport, TransportMsg::Cleanup, millis(bounds.actor_call));
        if let Ok(Ok(true)) = cleanup {
            steps.push(EscalationStep {
                to: Escalation::Kill,
                at,
                why: StepReason::Leftovers,
            });
        }
    }
    let drain = async {
        ctx.stdout_done.cancelled().await;
        ctx.stderr_done.cancelled().await;
    };
    if tokio::time::timeout(bounds.drain, drain).await.is_err() {
        tracing::warn!("stdout or stderr still open after the CLI ended; abandoning them");
    }
    let drained = t0.elapsed();
    let frames_after_eof = frames_in(&sh).saturating_sub(frames_at_eof);

    // 6. Reverse start order. The reader's queue end is gone after this.
    stop_child(&reader, bounds.actor_stop).await;
    stop_child(&dispatch, bounds.actor_stop).await;
    stop_child(&transport, bounds.actor_stop).await;

    let stderr_tail = ctx.stderr.tail();
    if sh.turn_open() {
        ctx.frames.finish(SessionError::ClosedBeforeResult {
            exit,
            stderr_tail: stderr_tail.join("\n"),
        });
    }
    drop(ctx.frames);

    // 7.
    let report = ShutdownReport {
        cause,
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
    ctx.status.publish(report);
    sh.lifecycle(LifecycleEvent::ShutdownComplete);
    let _ = ctx.supervisor.cast(SupervisorMsg::Stopped);
}
