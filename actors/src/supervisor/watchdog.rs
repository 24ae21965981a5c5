//! The idle watchdog: a task (only when configured) that notices a turn
//! that went silent.

use std::sync::Arc;
use std::time::Duration;

use ractor::ActorRef;
use serde_json::json;

use crate::dispatch::msg::DispatchMsg;
use crate::dispatch::request::{Payload, RequestIds, control_request};
use crate::events::Diagnostic;
use crate::session::config::{Watchdog, WatchdogAction};
use crate::session::record::SessionRecord;
use crate::session::status::StatusRx;
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::shutdown::ladder::ShutdownCause;

pub(crate) struct WatchdogArgs {
    pub(crate) watchdog: Watchdog,
    pub(crate) shared: Arc<SessionRecord>,
    pub(crate) status: StatusRx,
    pub(crate) ids: Arc<RequestIds>,
    pub(crate) supervisor: ActorRef<SupervisorMsg>,
    pub(crate) dispatch: ActorRef<DispatchMsg>,
    pub(crate) control_timeout: Duration,
}

/// The shortest pause between two looks while the session is busy (a
/// quarter of `after` otherwise). Not a bound on any wait, and fixed: it
/// only keeps a tiny `after` from spinning the task.
const MIN_RECHECK: Duration = Duration::from_millis(10);

/// Fires at most once per silent stretch (a new frame re-arms it).
pub(crate) async fn run(args: WatchdogArgs) {
    let WatchdogArgs {
        watchdog: w,
        shared,
        status,
        ids,
        supervisor,
        dispatch,
        control_timeout,
    } = args;
    let recheck = (w.after / 4).max(MIN_RECHECK);
    let mut fired_for: Option<u64> = None;
    loop {
        if !status.borrow().is_running() {
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
        let busy = shared.handlers_pending() > 0;
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
                    &ids,
                    &dispatch,
                    Payload::Value(&json!({"subtype": "interrupt"})),
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
