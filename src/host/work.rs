//! What a hosted session does with one connected CLI: a job's one turn,
//! or an interactive session's wait for its end (or its hibernation).

use std::time::{Duration, Instant};

use futures::StreamExt;

use super::hibernate;
use super::lifecycle::Lifecycle;
use crate::protocol::{Message, ResultMessage};
use crate::{Client, Prompt, SessionReport};
use claude_agent_actors::ShutdownCause;

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

fn stop_cause(lc: &Lifecycle) -> ShutdownCause {
    if lc.draining.is_cancelled() {
        ShutdownCause::HostDrain
    } else {
        ShutdownCause::Requested
    }
}

pub(super) async fn run_job(client: &Client, prompt: Prompt, lc: &Lifecycle) -> Attempt {
    let turn = async {
        let t0 = Instant::now();
        client.send(prompt).await.map_err(|e| e.to_string())?;
        let mut messages = client.receive_response();
        while let Some(m) = messages.next().await {
            match m {
                Ok(Message::Result(r)) => return Ok((*r, t0.elapsed())),
                Ok(_) => {}
                Err(e) if e.is_closed() => return Err(e.to_string()),
                // A bad frame is a diagnostic, not the end of the turn.
                Err(e) => tracing::debug!(session = %lc.id, error = %e, "skipped a frame"),
            }
        }
        Err("the CLI's output ended before the result".to_owned())
    };
    let outcome = tokio::select! {
        r = turn => Some(r),
        () = lc.stop.cancelled() => None,
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
            let report = client.shutdown_with(stop_cause(lc)).await;
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

pub(super) async fn run_interactive(client: &Client, lc: &Lifecycle, hibernation: u32) -> Attempt {
    let idle = async {
        match lc.hibernate_after {
            Some(after) => {
                hibernate::until_hibernated(client, &lc.gate, &lc.state, after, hibernation).await
            }
            None => std::future::pending().await,
        }
    };
    let mut hibernated = None;
    let report = tokio::select! {
        _ = client.session().closed() => client.shutdown().await,
        () = lc.stop.cancelled() => client.shutdown_with(stop_cause(lc)).await,
        () = idle => {
            let t0 = Instant::now();
            let report = client.shutdown_with(ShutdownCause::Hibernate).await;
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
