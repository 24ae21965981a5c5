//! The gate one session's handles and its supervision share.
//!
//! A caller takes a *lease* on the running client (under the gate's lock)
//! for the span of a send; the supervision decides to hibernate only under
//! the same lock, with no lease out, and publishes `Hibernated` before it
//! unlocks. So a send never lands on a CLI that is being hibernated, and a
//! hibernation never starts under a send. Lock order is always gate, then
//! the status watch; nothing awaits under the gate.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::status::SessionStatus;
use crate::client::Client;

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
    pub(crate) fn unused_for(&self) -> Duration {
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
