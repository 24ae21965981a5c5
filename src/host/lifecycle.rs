//! One hosted session's supervision: start the CLI, run the work, restart
//! after a crash (with `--resume`) as the policy allows, report the outcome.
//!
//! Runs on its own task per session, so a slow or failing session never
//! holds up another, and a panic in it is caught and reported as that
//! session's [`Failure::Panicked`].

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use ractor::ActorRef;
use tokio::sync::{broadcast, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::events::HostEvent;
use super::gate::Gate;
use super::msg::{HostMsg, Restart};
use super::outcome::{Failure, SessionId, SessionOutcome};
use super::status::SessionStatus;
use super::work::{Idle, Stops, Work, run_interactive, run_job};
use crate::protocol::ResultMessage;
use crate::{client::Client, client::ClientBuilder, extensions::SessionReport};
use claude_agent_actors::{ShutdownCause, ShutdownReport, panic_message};

/// Bound on asking the host's supervisor for a restart. Fixed, not
/// configurable, for the reason `CALL_TIMEOUT` (host/mod.rs) is: the
/// supervisor only does bookkeeping and never awaits a session, so only a
/// wedged or gone supervisor (a bug) reaches it, and then the session just
/// does not restart.
const ASK_TIMEOUT: Duration = Duration::from_secs(10);

/// Everything one session's supervision needs.
pub(crate) struct Lifecycle {
    pub(crate) id: SessionId,
    pub(crate) tenant: String,
    /// Boxed: the task of every idle session holds this struct (twice, as
    /// the spawned block's capture and `run`'s argument).
    pub(crate) builder: Box<ClientBuilder>,
    pub(crate) work: Work,
    pub(crate) state: Arc<watch::Sender<SessionStatus>>,
    /// This session's stop: cancelled by its owner or by the host's drain.
    pub(crate) stop: CancellationToken,
    /// The host's drain (tells a drain from an owner's cancel).
    pub(crate) draining: CancellationToken,
    pub(crate) events: broadcast::Sender<HostEvent>,
    pub(crate) host: ActorRef<HostMsg>,
    pub(crate) queued_for: Duration,
    /// Shared with the session's handles (hibernation's leases).
    pub(crate) gate: Arc<Gate>,
    /// Hibernate an interactive session idle this long.
    pub(crate) hibernate_after: Option<Duration>,
    /// A warm spare to use instead of the first start.
    pub(crate) spare: Option<Client>,
    /// Resolves when the warm spare whose slot this session took is gone.
    pub(crate) after: Option<tokio::sync::oneshot::Receiver<()>>,
}

/// Starts the session's supervision task; its outcome goes to the host
/// supervisor (which publishes it on the handle).
pub(crate) fn spawn(lc: Lifecycle) {
    crate::task::spawn(async move {
        let state = lc.state.clone();
        let host = lc.host.clone();
        let (id, tenant, queued_for) = (lc.id, lc.tenant.clone(), lc.queued_for);
        let admitted = Instant::now();
        let outcome = match AssertUnwindSafe(run(lc)).catch_unwind().await {
            Ok(outcome) => outcome,
            Err(panic) => SessionOutcome {
                id,
                tenant,
                result: None,
                turn_latency: None,
                failure: Some(Failure::Panicked(panic_message(&*panic))),
                report: None,
                restarts: 0,
                queued_for,
                ran_for: admitted.elapsed(),
            },
        };
        let outcome = Arc::new(outcome);
        if host
            .cast(HostMsg::Ended {
                outcome: outcome.clone(),
                state: state.clone(),
            })
            .is_err()
        {
            // The supervisor is gone (the host was dropped): publish directly.
            state.send_replace(SessionStatus::Ended(outcome));
        }
    });
}

/// One start of the CLI, resuming `resume` when set.
async fn connect(builder: &ClientBuilder, resume: Option<String>) -> crate::Result<Client> {
    let mut builder = builder.clone();
    if let Some(id) = resume {
        std::sync::Arc::make_mut(&mut builder.options).resume = Some(id);
    }
    builder.connect().await
}

async fn run(mut lc: Lifecycle) -> SessionOutcome {
    let mut spare = lc.spare.take();
    if let Some(gone) = lc.after.take() {
        // Bounded by the spare's shutdown ladder.
        let _ = gone.await;
    }
    let admitted = Instant::now();
    let mut restarts = 0u32;
    let mut resume: Option<String> = None;
    let mut last_report = None;
    let mut hibernations = 0u32;
    // Set while starting a hibernated session again: when it was asked
    // for, and how long admission took.
    let mut reviving: Option<(Instant, Duration)> = None;
    let finish = |failure: Option<Failure>,
                  result: Option<(ResultMessage, Duration)>,
                  report: Option<SessionReport>,
                  restarts: u32| {
        let (result, turn_latency) = match result {
            Some((r, d)) => (Some(r), Some(d)),
            None => (None, None),
        };
        SessionOutcome {
            id: lc.id,
            tenant: lc.tenant.clone(),
            result,
            turn_latency,
            failure,
            report,
            restarts,
            queued_for: lc.queued_for,
            ran_for: admitted.elapsed(),
        }
    };
    loop {
        lc.state
            .send_replace(SessionStatus::Starting { attempt: restarts });
        // Boxed, with the builder's copy inside: the start's large future
        // lives only while starting, not in every idle session's task.
        let connected = if let Some(c) = spare.take() {
            Ok(c)
        } else {
            tokio::select! {
                r = Box::pin(connect(&lc.builder, resume.clone())) => r,
                () = lc.stop.cancelled() => {
                    return finish(Some(stopped(&lc)), None, last_report, restarts);
                }
            }
        };
        let client = match connected {
            Ok(c) => c,
            Err(e) => {
                let error = Arc::new(e);
                let failure = match reviving {
                    Some(_) => Failure::Revive {
                        session_id: resume.clone(),
                        error,
                    },
                    None => Failure::Connect(error),
                };
                return finish(Some(failure), None, last_report, restarts);
            }
        };
        lc.state.send_replace(SessionStatus::Running {
            client: client.clone(),
            attempt: restarts,
        });
        let _ = lc.events.send(HostEvent::Started {
            id: lc.id,
            tenant: lc.tenant.clone(),
            pid: client.pid(),
            attempt: restarts,
        });
        if let Some((asked, waited)) = reviving.take() {
            let _ = lc.host.cast(HostMsg::Revived(lc.id));
            let _ = lc.events.send(HostEvent::Revived {
                id: lc.id,
                tenant: lc.tenant.clone(),
                session_id: resume.clone(),
                pid: client.pid(),
                waited,
                took: asked.elapsed(),
            });
        }
        let stops = Stops {
            id: lc.id,
            stop: &lc.stop,
            draining: &lc.draining,
        };
        // Boxed: the attempt is held across the waits for a revival or a
        // restart, and inline it would size the future every idle
        // session's task holds.
        let attempt = Box::new(match &lc.work {
            Work::Job(prompt) => Box::pin(run_job(&client, prompt.clone(), &stops)).await,
            Work::Interactive => {
                let idle = lc.hibernate_after.map(|after| Idle {
                    after,
                    gate: &lc.gate,
                    state: &lc.state,
                });
                Box::pin(run_interactive(&client, &stops, idle, hibernations + 1)).await
            }
        });
        let pid = client.pid();
        drop(client);
        last_report = attempt.report.clone();
        if let Some(took) = attempt.hibernated {
            hibernations += 1;
            resume = attempt.session_id.or(resume);
            let _ = lc.host.cast(HostMsg::Hibernated(lc.id));
            let _ = lc.events.send(HostEvent::Hibernated {
                id: lc.id,
                tenant: lc.tenant.clone(),
                session_id: resume.clone(),
                pid,
                took,
            });
            match wait_for_revival(&lc.gate, hibernations, &lc.host, lc.id, &lc.stop).await {
                Some(r) => {
                    reviving = Some(r);
                    continue;
                }
                None => {
                    let failure = if lc.stop.is_cancelled() {
                        stopped(&lc)
                    } else {
                        Failure::Drained
                    };
                    return finish(Some(failure), None, last_report, restarts);
                }
            }
        }
        let crash = attempt
            .report
            .as_ref()
            .filter(|r| is_crash(r, attempt.turn_open));
        if let Some(report) = crash {
            if lc.stop.is_cancelled() {
                return finish(Some(stopped(&lc)), attempt.result, last_report, restarts);
            }
            if let Some(Restart { attempt: n, after }) = ask_restart(&lc.host, lc.id).await {
                restarts = n;
                resume = attempt.session_id.or(resume);
                let _ = lc.events.send(HostEvent::Restarting {
                    id: lc.id,
                    tenant: lc.tenant.clone(),
                    attempt: restarts,
                    after,
                    resume: resume.clone(),
                    reason: report.cause.to_string(),
                    exit: report.exit,
                    stderr_tail: report.stderr_tail.clone(),
                });
                lc.state.send_replace(SessionStatus::Restarting {
                    attempt: restarts,
                    after,
                });
                tokio::select! {
                    () = tokio::time::sleep(after) => continue,
                    () = lc.stop.cancelled() => return finish(Some(stopped(&lc)), None, last_report, restarts),
                }
            }
            let failure = Failure::Crashed {
                cause: report.cause.clone(),
                exit: report.exit,
                stderr_tail: report.stderr_tail.clone(),
            };
            return finish(Some(failure), attempt.result, last_report, restarts);
        }
        // Not a crash: the session is over.
        let failure = if let Some((r, _)) = &attempt.result {
            r.is_error()
                .then(|| Failure::ErrorResult {
                    subtype: r.subtype.as_str().to_owned(),
                })
                .or_else(|| attempt.turn_error.clone().map(Failure::Turn))
        } else if lc.stop.is_cancelled() {
            Some(stopped(&lc))
        } else {
            attempt.turn_error.clone().map(Failure::Turn)
        };
        let failure = match (&lc.work, failure) {
            // A job that ended without a result and without an error to
            // show for it still did not complete.
            (Work::Job(_), None) if attempt.result.is_none() => {
                Some(Failure::Turn("the session ended before the result".into()))
            }
            (_, f) => f,
        };
        return finish(failure, attempt.result, last_report, restarts);
    }
}

/// Why the stop token fired: the host's drain or the owner's cancel.
fn stopped(lc: &Lifecycle) -> Failure {
    if lc.draining.is_cancelled() {
        Failure::Drained
    } else {
        Failure::Cancelled
    }
}

/// A crash: the CLI ended on its own, badly, or while a turn was open.
fn is_crash(report: &ShutdownReport, turn_open: bool) -> bool {
    match &report.cause {
        ShutdownCause::CliExited { exit } => {
            turn_open || exit.as_ref().is_some_and(|e| !e.success())
        }
        ShutdownCause::StdoutClosed | ShutdownCause::Fatal { .. } => true,
        _ => false,
    }
}

/// Asks the host's core whether a crashed session restarts (its restart
/// count and window, and no drain begun). No answer in time, or no host:
/// no restart.
async fn ask_restart(host: &ActorRef<HostMsg>, id: SessionId) -> Option<Restart> {
    match host
        .call(|reply| HostMsg::Crashed { id, reply }, Some(ASK_TIMEOUT))
        .await
    {
        Ok(ractor::rpc::CallResult::Success(verdict)) => verdict,
        _ => None,
    }
}

/// While hibernated: waits for a caller to ask for the session, then for
/// admission. `Some((asked, admission wait))` once admitted; `None` when
/// the session was stopped or the host drains (or is gone) first.
async fn wait_for_revival(
    gate: &Gate,
    hibernation: u32,
    host: &ActorRef<HostMsg>,
    id: SessionId,
    stop: &CancellationToken,
) -> Option<(Instant, Duration)> {
    tokio::select! {
        () = gate.revive_requested(hibernation) => {}
        () = stop.cancelled() => return None,
    }
    let asked = Instant::now();
    let (go, admitted) = oneshot::channel();
    host.cast(HostMsg::Revive { id, go }).ok()?;
    tokio::select! {
        r = admitted => r.ok().filter(|go| *go).map(|_| (asked, asked.elapsed())),
        () = stop.cancelled() => None,
    }
}
