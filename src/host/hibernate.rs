//! Hibernation: an idle interactive session's CLI is shut down while its
//! [`SessionHandle`](super::SessionHandle) stays valid; the next use starts
//! the CLI again with `--resume`.
//!
//! The [`Gate`] is what the handle and the session's supervision share. A
//! caller takes a *lease* on the running client (under the gate's lock) for
//! the span of a send; the supervision decides to hibernate only under the
//! same lock, with no lease out, and publishes `Hibernated` before it
//! unlocks. So a send never lands on a CLI that is being hibernated, and a
//! hibernation never starts under a send. Lock order is always gate, then
//! the status watch; nothing awaits under the gate.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::{oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::session::{SessionId, SessionStatus};
use super::supervisor::HostMsg;
use crate::Client;

/// Shared by one session's handles and its supervision.
#[derive(Debug)]
pub(crate) struct Gate {
    inner: Mutex<GateState>,
    /// The highest hibernation number a caller asked to end.
    revive: watch::Sender<u32>,
}

#[derive(Debug)]
struct GateState {
    /// Sends in progress through the handle.
    leases: usize,
    /// The handle's last use (a lease taken or returned, `client()`).
    last_use: Instant,
}

impl Gate {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: Mutex::new(GateState {
                leases: 0,
                last_use: Instant::now(),
            }),
            revive: watch::channel(0).0,
        })
    }

    fn lock(&self) -> MutexGuard<'_, GateState> {
        // The state is two counters, valid after any panic.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Under the gate: the running client, leased, or what the session is
    /// doing instead.
    pub(crate) fn try_lease(
        self: &Arc<Self>,
        state: &mut watch::Receiver<SessionStatus>,
    ) -> Result<(Client, Lease), SessionStatus> {
        let mut g = self.lock();
        let status = state.borrow_and_update();
        match &*status {
            SessionStatus::Running { client, .. } => {
                g.leases += 1;
                g.last_use = Instant::now();
                Ok((client.clone(), Lease(self.clone())))
            }
            other => Err(other.clone()),
        }
    }

    /// A caller wants hibernation number `n` to end.
    pub(crate) fn request_revive(&self, n: u32) {
        self.revive.send_if_modified(|v| {
            let newer = *v < n;
            if newer {
                *v = n;
            }
            newer
        });
    }

    /// Waits until a caller asked to end hibernation number `n`.
    pub(crate) async fn revive_requested(&self, n: u32) {
        let mut rx = self.revive.subscribe();
        // The sender lives in `self`: this cannot fail while we wait.
        let _ = rx.wait_for(|v| *v >= n).await;
    }

    /// How long neither a lease nor `client()` touched the session.
    fn unused_for(&self) -> Duration {
        self.lock().last_use.elapsed()
    }

    /// Hibernates if nothing holds the session: no lease out, and `idle`
    /// says the CLI is idle. Publishes `status` under the gate, so no
    /// caller can lease the client from here on.
    pub(crate) fn hibernate_if(
        &self,
        state: &watch::Sender<SessionStatus>,
        idle: impl FnOnce() -> bool,
        status: SessionStatus,
    ) -> bool {
        let g = self.lock();
        if g.leases > 0 || !idle() {
            return false;
        }
        state.send_replace(status);
        true
    }
}

/// A send in progress through a handle: holds off hibernation.
#[derive(Debug)]
pub(crate) struct Lease(Arc<Gate>);

impl Drop for Lease {
    fn drop(&mut self) {
        let mut g = self.0.lock();
        g.leases = g.leases.saturating_sub(1);
        g.last_use = Instant::now();
    }
}

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
    let recheck = (after / 4).max(Duration::from_millis(5));
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
        tokio::time::sleep(after.max(Duration::from_millis(5))).await;
    }
}

/// While hibernated: waits for a caller to ask for the session, then for
/// admission. `Some((asked, admission wait))` once admitted; `None` when
/// the session was stopped or the host drains (or is gone) first.
pub(crate) async fn wait_for_revival(
    gate: &Gate,
    hibernation: u32,
    host: &ractor::ActorRef<HostMsg>,
    id: SessionId,
    tenant: &str,
    stop: &CancellationToken,
) -> Option<(Instant, Duration)> {
    tokio::select! {
        () = gate.revive_requested(hibernation) => {}
        () = stop.cancelled() => return None,
    }
    let asked = Instant::now();
    let (go, admitted) = oneshot::channel();
    let msg = HostMsg::Revive {
        id,
        tenant: tenant.to_owned(),
        go,
    };
    host.cast(msg).ok()?;
    tokio::select! {
        r = admitted => r.ok().filter(|go| *go).map(|_| (asked, asked.elapsed())),
        () = stop.cancelled() => None,
    }
}
