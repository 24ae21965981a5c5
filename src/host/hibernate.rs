//! Hibernation: an idle interactive session's CLI is shut down while its
//! [`SessionHandle`](super::SessionHandle) stays valid; the next use starts
//! the CLI again with `--resume`. This file says when a session is idle;
//! the [`Gate`] makes the decision safe against a concurrent send; the
//! host's core gives the slot back and admits the revival.

use std::time::Duration;

use tokio::sync::watch;

use super::gate::Gate;
use super::status::SessionStatus;
use crate::client::Client;

/// The shortest pause between two looks at a session's idleness. Not a
/// bound on any wait, and fixed: it only keeps a tiny `hibernate_after`
/// from spinning the task.
const MIN_RECHECK: Duration = Duration::from_millis(5);

/// The CLI has nothing going on: no turn, no control request of ours
/// waiting for a reply, no callback of the CLI's being answered.
pub(crate) fn cli_idle(client: &Client) -> bool {
    let session = client.session();
    let stats = session.stats();
    !session.turn_open() && stats.requests_pending == 0 && stats.handlers_pending == 0
}

/// Resolves once `client` was idle and unused for `after`: polls at the
/// time the idleness would be due, then at a quarter of `after` while
/// something keeps it busy (as the idle watchdog does).
pub(crate) async fn idle_for(client: &Client, gate: &Gate, after: Duration) {
    let recheck = (after / 4).max(MIN_RECHECK);
    loop {
        let idle = client.session().idle_for().min(gate.unused_for());
        if idle < after {
            tokio::time::sleep(after - idle).await;
        } else if cli_idle(client) {
            return;
        } else {
            tokio::time::sleep(recheck).await;
        }
    }
}

/// Resolves once the session hibernated: idle for `after`, nothing leased,
/// its session id known (else there would be nothing to `--resume`), and
/// [`SessionStatus::Hibernated`] published under the gate. The caller then
/// shuts the CLI down.
pub(crate) async fn until_hibernated(
    client: &Client,
    gate: &Gate,
    state: &watch::Sender<SessionStatus>,
    after: Duration,
    hibernation: u32,
) {
    loop {
        idle_for(client, gate, after).await;
        if let Some(session_id) = client.session_id() {
            let status = SessionStatus::Hibernated {
                session_id: Some(session_id),
                hibernations: hibernation,
            };
            if gate.hibernate_if(state, || cli_idle(client), status) {
                return;
            }
        }
        // A send got in first, or no session id yet: look again later.
        tokio::time::sleep(after.max(MIN_RECHECK)).await;
    }
}
