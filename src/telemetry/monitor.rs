//! The per-session event watcher: parse diagnostics, the shutdown's cause
//! and escalation, and the end of the session span when the session ends
//! without `Client::shutdown` (the CLI exited, the client was dropped).

use std::sync::Arc;

use claude_agent_actors::{Diagnostic, LifecycleEvent, SessionEvent, SkipReason};
use tokio::sync::broadcast::{self, error::RecvError};

use super::spans::SessionTrace;

/// Watches `events` until the session's shutdown completes. Holds no
/// session handle, so it never keeps a session alive.
pub(crate) fn spawn(trace: Arc<SessionTrace>, mut events: broadcast::Receiver<SessionEvent>) {
    crate::task::spawn(async move {
        // The session may have ended before we subscribed.
        trace.finish_if_ended();
        loop {
            match events.recv().await {
                Ok(SessionEvent::Diagnostic(d)) => {
                    if let Some(kind) = parse_kind(&d) {
                        trace.parse_diagnostic(kind);
                    }
                }
                Ok(SessionEvent::Lifecycle(LifecycleEvent::ShutdownStarted { cause })) => {
                    trace.note_cause(cause);
                }
                Ok(SessionEvent::Lifecycle(LifecycleEvent::Escalated { to })) => {
                    trace.note_escalation(to);
                }
                Ok(SessionEvent::Lifecycle(LifecycleEvent::ShutdownComplete))
                | Err(RecvError::Closed) => {
                    trace.finish_with(None, None);
                    return;
                }
                // Lagging skips the oldest events only; the end still arrives.
                Ok(_) | Err(RecvError::Lagged(_)) => {}
            }
        }
    });
}

/// The `kind` of a diagnostic about a line the session could not use;
/// `None` for the others (handler timeouts, idle watchdog, ...).
fn parse_kind(d: &Diagnostic) -> Option<&'static str> {
    Some(match d {
        Diagnostic::LineSkipped { reason, .. } => match reason {
            SkipReason::NotJson => "not_json",
            SkipReason::Malformed => "malformed",
            SkipReason::Oversized { .. } => "oversized",
            SkipReason::TruncatedAtEof => "truncated_at_eof",
            _ => "line_skipped",
        },
        Diagnostic::OversizedControlRequestAnswered { .. }
        | Diagnostic::OversizedControlResponse { .. } => "oversized_control",
        Diagnostic::UnknownControlResponse { .. } => "unknown_control_response",
        _ => return None,
    })
}
