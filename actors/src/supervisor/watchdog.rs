//! The idle watchdog: a task (only when configured) that notices a turn
//! that went silent.

use std::sync::Arc;
use std::time::Duration;

use ractor::ActorRef;
use serde_json::json;

use crate::dispatch::msg::DispatchMsg;
use crate::dispatch::request::control_request;
use crate::events::Diagnostic;
use crate::session::config::{Watchdog, WatchdogAction};
use crate::session::shared::Shared;
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::shutdown::ladder::ShutdownCause;

/// Fires at most once per silent stretch (a new frame re-arms it).
pub(crate) async fn run(
    w: Watchdog,
    shared: Arc<Shared>,
    supervisor: ActorRef<SupervisorMsg>,
    dispatch: ActorRef<DispatchMsg>,
    control_timeout: Duration,
) {
    let recheck = (w.after / 4).max(Duration::from_millis(10));
    let mut fired_for: Option<u64> = None;
    loop {
        if shared.is_closing() {
            return;
        }
        let last = shared.last_activity_ms();
        let now = std::time::Instant::now();
        // An `after` too large to add (e.g. Duration::MAX for "never") just
        // means the watchdog never fires.
        let Some(due) = shared
            .started
            .checked_add(Duration::from_millis(last))
            .and_then(|t| t.checked_add(w.after))
        else {
            return;
        };
        if due > now {
            tokio::time::sleep(due - now).await;
            continue;
        }
        let busy = shared.stats().handlers_pending > 0;
        if fired_for == Some(last) || !shared.turn_open() || busy {
            tokio::time::sleep(recheck).await;
            continue;
        }
        fired_for = Some(last);
        let idle = now.duration_since(shared.started + Duration::from_millis(last));
        shared.diagnostic(Diagnostic::IdleTimeout { idle });
        match w.action {
            WatchdogAction::Report => {}
            WatchdogAction::Interrupt => {
                let r = control_request(
                    &shared,
                    &dispatch,
                    json!({"subtype": "interrupt"}),
                    control_timeout,
                )
                .await;
                if let Err(e) = r {
                    tracing::warn!(error = %e, "watchdog interrupt failed");
                }
            }
            WatchdogAction::Shutdown => {
                let _ = supervisor.cast(SupervisorMsg::Shutdown(ShutdownCause::IdleTimeout));
                return;
            }
        }
    }
}
