//! What a hosted session does with one connected CLI: a job's one turn,
//! or an interactive session's wait for its end (or its hibernation).
//! It knows the client and what stops it, not the host.

use std::time::{Duration, Instant};

use futures::StreamExt;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::gate::Gate;
use super::hibernate;
use super::outcome::SessionId;
use super::status::SessionStatus;
use crate::protocol::{Message, ResultMessage};
use crate::{client::Client, client::Prompt, extensions::SessionReport};
use claude_agent_actors::ShutdownCause;

/// What a hosted session does once connected.
#[derive(Debug, Clone)]
pub(crate) enum Work {
    /// Run one prompt to its result, then shut down.
    Job(Prompt),
    /// Hand the client to its owner; end when the CLI does.
    Interactive,
}

/// What ends a session's work from outside: its stop (the owner's cancel
/// or the host's drain), and the drain itself (to tell the two apart).
pub(crate) struct Stops<'a> {
    pub(crate) id: SessionId,
    pub(crate) stop: &'a CancellationToken,
    pub(crate) draining: &'a CancellationToken,
}

/// When an interactive session hibernates: idle this long, and the gate
/// and status it decides under.
pub(crate) struct Idle<'a> {
    pub(crate) after: Duration,
    pub(crate) gate: &'a Gate,
    pub(crate) state: &'a watch::Sender<SessionStatus>,
}

/// How one CLI (one attempt) ended.
pub(super) struct Attempt {
    pub(super) report: Option<SessionReport>,
    pub(super) result: Option<(ResultMessage, Duration)>,
    /// A turn failure that was not a crash of the CLI.
    pub(super) turn_error: Option<String>,
    /// The CLI's session id, for `--resume`.
    pub(super) session_id: Option<String>,
    /// The turn was open when the CLI ended.
    pub(super) turn_open: bool,
    /// The session hibernated: the ordered shutdown's duration.
    pub(super) hibernated: Option<Duration>,
}

fn stop_cause(stops: &Stops<'_>) -> ShutdownCause {
    if stops.draining.is_cancelled() {
        ShutdownCause::HostDrain
    } else {
        ShutdownCause::Requested
    }
}

pub(super) async fn run_job(client: &Client, prompt: Prompt, stops: &Stops<'_>) -> Attempt {
    let turn = async {
        let t0 = Instant::now();
        client.send(prompt).await.map_err(|e| format!("{e:?}"))?;
        let mut messages = client.receive_response();
        while let Some(m) = messages.next().await {
            match m {
                Ok(Message::Result(r)) => return Ok((*r, t0.elapsed())),
                Ok(_) => {}
                Err(e) if e.is_closed() => return Err(format!("{e:?}")),
                // A bad frame is a diagnostic, not the end of the turn.
                Err(e) => tracing::debug!(session = %stops.id, error = ?e, "skipped a frame"),
            }
        }
        Err("the CLI's output ended before the result".to_owned())
    };
    let outcome = tokio::select! {
        r = turn => Some(r),
        () = stops.stop.cancelled() => None,
    };
    let session_id = client.session_id();
    match outcome {
        Some(Ok(result)) => {
            let session_id = result.0.session_id.clone().or(session_id);
            let report = client.shutdown_with(ShutdownCause::Requested).await;
            Attempt {
                report: Some(report),
                result: Some(result),
                turn_error: None,
                session_id,
                turn_open: false,
                hibernated: None,
            }
        }
        Some(Err(e)) => {
            // Ended by the CLI (a crash) or by a failed write: either way
            // the session is over; the report says which.
            let report = client.shutdown_with(ShutdownCause::Requested).await;
            Attempt {
                report: Some(report),
                result: None,
                turn_error: Some(e),
                session_id,
                turn_open: true,
                hibernated: None,
            }
        }
        None => {
            let report = client.shutdown_with(stop_cause(stops)).await;
            Attempt {
                report: Some(report),
                result: None,
                turn_error: None,
                session_id,
                turn_open: true,
                hibernated: None,
            }
        }
    }
}

pub(super) async fn run_interactive(
    client: &Client,
    stops: &Stops<'_>,
    idle: Option<Idle<'_>>,
    hibernation: u32,
) -> Attempt {
    let idle = async {
        match idle {
            Some(i) => {
                hibernate::until_hibernated(client, i.gate, i.state, i.after, hibernation).await
            }
            None => std::future::pending().await,
        }
    };
    let mut hibernated = None;
    // The shutdowns are boxed: inline they would size this future, which
    // every idle session's task holds, for a step taken once at its end.
    let report = tokio::select! {
        _ = client.session().closed() => Box::pin(client.shutdown()).await,
        () = stops.stop.cancelled() => Box::pin(client.shutdown_with(stop_cause(stops))).await,
        () = idle => {
            let t0 = Instant::now();
            let report = Box::pin(client.shutdown_with(ShutdownCause::Hibernate)).await;
            hibernated = Some(t0.elapsed());
            report
        }
    };
    Attempt {
        report: Some(report),
        result: None,
        turn_error: None,
        session_id: client.session_id(),
        // An open turn counts as a crash only through the exit status here:
        // the owner drives the turns.
        turn_open: false,
        hibernated,
    }
}
