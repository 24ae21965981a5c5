//! A process-wide, rate-limited broadcast of `SIGCHLD`.
//!
//! A session does not wait on its CLI's pidfd while the CLI's stdout is
//! open (the pidfd would be a fourth file descriptor per idle session); it
//! learns of an exit from the stdout EOF that follows. This broadcast is
//! the backstop for a CLI that dies while a grandchild still holds its
//! stdout: on a tick, every such session checks `try_wait` once.
//!
//! One listener task serves every session. It ticks at most once per
//! [`MIN_GAP`]: each tick wakes every idle session, so a burst of exits
//! (a thousand jobs ending) costs a few wake-ups per session rather than
//! one per exit. A `SIGCHLD` that arrives during the gap is not lost: the
//! signal stream remembers it and the next tick follows the gap.
//!
//! The listener runs only while some session listens: it ends when the last
//! receiver is gone (so no task of ours outlives the sessions on a user's
//! runtime), and the next subscriber starts it again. Both decisions are
//! taken under one lock, so a subscriber never joins a listener that is
//! about to end.

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The shortest time between two ticks, which is also the longest a dead
/// CLI with a held stdout goes unnoticed. Each tick wakes every session
/// whose stdout is open; at 100 ms, a thousand one-turn jobs (every exit a
/// `SIGCHLD`) cost measurably more CPU per job, so the backstop, which
/// only serves that rare case, ticks at most once a second.
pub(crate) const MIN_GAP: Duration = Duration::from_secs(1);

struct Broadcast {
    tx: watch::Sender<u64>,
    /// The listener, on the runtime of the session that started it; a new
    /// one starts when that runtime has shut down.
    listener: Mutex<Option<JoinHandle<()>>>,
}

/// A receiver that changes after each `SIGCHLD` (rate-limited). Starts the
/// listener on the current runtime if none is running. If the signal
/// cannot be listened to, the receiver simply never changes and sessions
/// rely on their stdout's EOF.
pub(crate) fn subscribe() -> watch::Receiver<u64> {
    static BROADCAST: OnceLock<Broadcast> = OnceLock::new();
    let b = BROADCAST.get_or_init(|| Broadcast {
        tx: watch::channel(0).0,
        listener: Mutex::new(None),
    });
    let mut listener = b.listener.lock().unwrap_or_else(|e| e.into_inner());
    let rx = b.tx.subscribe();
    if listener.as_ref().is_none_or(JoinHandle::is_finished) {
        *listener = start(b);
    }
    rx
}

#[cfg(unix)]
fn start(b: &'static Broadcast) -> Option<JoinHandle<()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut sig = match signal(SignalKind::child()) {
        Ok(sig) => sig,
        Err(e) => {
            tracing::debug!(error = %e, "cannot listen for SIGCHLD; exits are seen at stdout EOF");
            return None;
        }
    };
    Some(crate::task::spawn(async move {
        loop {
            tokio::select! {
                got = sig.recv() => {
                    if got.is_none() {
                        return;
                    }
                    b.tx.send_modify(|n| *n = n.wrapping_add(1));
                    tokio::time::sleep(MIN_GAP).await;
                }
                () = b.tx.closed() => {
                    let mut listener = b.listener.lock().unwrap_or_else(|e| e.into_inner());
                    if b.tx.receiver_count() == 0 {
                        *listener = None;
                        return;
                    }
                }
            }
        }
    }))
}

#[cfg(not(unix))]
fn start(_b: &'static Broadcast) -> Option<JoinHandle<()>> {
    None
}
