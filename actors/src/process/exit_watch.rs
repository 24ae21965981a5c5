//! The exit watcher: one lazily started thread that waits, in `epoll`, on
//! the pidfds of every child someone is waiting for, and wakes each waiting
//! task when its child exits.
//!
//! Why a thread and not tokio's reactor: a pidfd registers with tokio only
//! as an `AsyncFd`, which tokio builds only with its `net` feature (TCP,
//! UDP and Unix sockets, and `socket2`): about 3 CPU seconds of every
//! user's cold build, for a runtime that opens no socket. A pidfd turns
//! readable once, when its process exits, so this thread wakes once per
//! exit and does nothing else; like the spawner it never exits.
//!
//! Registrations are one-shot (`EPOLLONESHOT`): each [`WatchedPidfd::exited`]
//! arms its pidfd once and the event disarms it, so a pidfd that stays
//! readable cannot spin the thread. Waiters are found by a token, never by
//! the descriptor's number, which the kernel reuses.

use std::collections::HashMap;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use rustix::event::epoll;
use tokio::sync::oneshot;

/// The epoll instance, who waits on which registration, and whether the
/// thread still runs.
#[derive(Debug)]
struct Watcher {
    epoll: OwnedFd,
    waiting: Mutex<HashMap<u64, oneshot::Sender<()>>>,
    next_token: AtomicU64,
    stopped: AtomicBool,
}

/// Most events taken from one `epoll_wait` (more wait for the next call).
const EVENTS_PER_WAKE: usize = 64;

fn watcher_gone() -> std::io::Error {
    std::io::Error::other("the exit watcher thread is not running")
}

/// The watcher, started on first use; `None` when it cannot run (no
/// `epoll`, no thread), and callers fall back to polling.
fn watcher() -> Option<&'static Watcher> {
    static WATCHER: OnceLock<Option<Watcher>> = OnceLock::new();
    let w = WATCHER.get_or_init(|| match epoll::create(epoll::CreateFlags::CLOEXEC) {
        Ok(epoll) => Some(Watcher {
            epoll,
            waiting: Mutex::new(HashMap::new()),
            next_token: AtomicU64::new(0),
            stopped: AtomicBool::new(false),
        }),
        Err(e) => {
            tracing::warn!(error = %e, "cannot create the exit watcher's epoll; exits are polled");
            None
        }
    });
    let w = w.as_ref()?;
    static STARTED: OnceLock<bool> = OnceLock::new();
    let started = STARTED.get_or_init(|| {
        let spawned = std::thread::Builder::new()
            .name("claude-agent-exits".into())
            .spawn(move || run(w));
        if let Err(e) = &spawned {
            tracing::warn!(error = %e, "cannot start the exit watcher thread; exits are polled");
        }
        spawned.is_ok()
    });
    started.then_some(w)
}

/// The thread: hands each readiness to its waiter, until `epoll_wait`
/// fails for good (then every waiter hears that the watcher is gone).
fn run(w: &'static Watcher) {
    let mut events = Vec::with_capacity(EVENTS_PER_WAKE);
    loop {
        events.clear();
        match epoll::wait(&w.epoll, rustix::buffer::spare_capacity(&mut events), None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => {
                tracing::error!(error = %e, "the exit watcher stopped; exits are polled");
                // Under the lock, so no wait registers after the clear:
                // dropping the senders fails every pending wait.
                let mut waiting = lock(w);
                w.stopped.store(true, Ordering::Release);
                waiting.clear();
                return;
            }
        }
        let mut waiting = lock(w);
        for event in &events {
            // A waiter that gave up (a raced `select!`) has no receiver
            // left; its next wait arms again.
            if let Some(tx) = waiting.remove(&event.data.u64()) {
                let _ = tx.send(());
            }
        }
    }
}

fn lock(w: &Watcher) -> std::sync::MutexGuard<'_, HashMap<u64, oneshot::Sender<()>>> {
    w.waiting.lock().unwrap_or_else(|e| e.into_inner())
}

/// A pidfd the watcher can wait on; its registration goes when it drops.
#[derive(Debug)]
pub(super) struct WatchedPidfd {
    fd: OwnedFd,
    token: u64,
    watcher: &'static Watcher,
    /// Whether the pidfd is in the epoll set (added by the first wait).
    added: bool,
}

impl WatchedPidfd {
    /// Takes `fd` for the watcher, starting it if needed; `None` when the
    /// watcher cannot run.
    pub(super) fn new(fd: OwnedFd) -> Option<Self> {
        let watcher = watcher()?;
        Some(Self {
            fd,
            token: watcher.next_token.fetch_add(1, Ordering::Relaxed),
            watcher,
            added: false,
        })
    }

    /// Waits until the pidfd is readable: its process exited. Cancel-safe:
    /// a wait dropped before the exit leaves nothing armed that matters,
    /// and the next one arms again (an exited process's pidfd stays
    /// readable, so that wait returns at once).
    pub(super) async fn exited(&mut self) -> std::io::Result<()> {
        let w = self.watcher;
        let (tx, rx) = oneshot::channel();
        {
            // The waiter is in place before the pidfd is armed, so the
            // event cannot come first and be missed; and `stopped` is read
            // under the lock the thread sets it under.
            let mut waiting = lock(w);
            if w.stopped.load(Ordering::Acquire) {
                return Err(watcher_gone());
            }
            waiting.insert(self.token, tx);
        }
        let data = epoll::EventData::new_u64(self.token);
        let flags = epoll::EventFlags::IN | epoll::EventFlags::ONESHOT;
        let armed = if self.added {
            epoll::modify(&w.epoll, &self.fd, data, flags)
        } else {
            epoll::add(&w.epoll, &self.fd, data, flags)
        };
        if let Err(e) = armed {
            lock(w).remove(&self.token);
            return Err(e.into());
        }
        self.added = true;
        rx.await.map_err(|_| watcher_gone())
    }
}

impl Drop for WatchedPidfd {
    fn drop(&mut self) {
        // Out of the set before the descriptor closes (when `fd` drops,
        // after this), so its number can be reused freely.
        if self.added {
            let _ = epoll::delete(&self.watcher.epoll, &self.fd);
        }
        lock(self.watcher).remove(&self.token);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::time::Duration;

    use super::*;

    /// A `sleep 300` that is killed and reaped when dropped, so a failed
    /// assertion leaves no process behind.
    struct Sleeper(std::process::Child);

    impl Sleeper {
        fn spawn() -> Self {
            Self(
                std::process::Command::new("sleep")
                    .arg("300")
                    .spawn()
                    .unwrap(),
            )
        }

        fn pidfd(&self) -> OwnedFd {
            let pid = rustix::process::Pid::from_raw(self.0.id() as i32).unwrap();
            rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).unwrap()
        }
    }

    impl Drop for Sleeper {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// A wait returns when the process exits, not before; a wait raced
    /// away before the exit does not lose it; and a later wait on a pidfd
    /// that already fired returns at once (the registration re-arms).
    #[tokio::test]
    async fn a_wait_returns_at_the_exit_and_survives_being_cancelled() {
        let mut child = Sleeper::spawn();
        let mut watched = WatchedPidfd::new(child.pidfd()).unwrap();
        tokio::select! {
            r = watched.exited() => panic!("exited early: {r:?}"),
            () = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        child.0.kill().unwrap();
        tokio::time::timeout(Duration::from_secs(10), watched.exited())
            .await
            .unwrap()
            .unwrap();
        // Not reaped yet, so the pidfd stays readable: armed again, it
        // fires again.
        tokio::time::timeout(Duration::from_secs(10), watched.exited())
            .await
            .unwrap()
            .unwrap();
        child.0.wait().unwrap();
        let token = watched.token;
        drop(watched);
        assert!(!lock(watcher().unwrap()).contains_key(&token));
    }

    /// Many children waited on at once each wake their own waiter.
    #[tokio::test]
    async fn each_exit_wakes_its_own_waiter() {
        let mut children: Vec<_> = (0..8).map(|_| Sleeper::spawn()).collect();
        let mut watched: Vec<_> = children
            .iter()
            .map(|c| WatchedPidfd::new(c.pidfd()).unwrap())
            .collect();
        // Kill the odd ones only: their waits return, the others' do not.
        for c in children.iter_mut().skip(1).step_by(2) {
            c.0.kill().unwrap();
        }
        for (i, w) in watched.iter_mut().enumerate() {
            let r = tokio::time::timeout(
                Duration::from_millis(if i % 2 == 1 { 10_000 } else { 50 }),
                w.exited(),
            )
            .await;
            assert_eq!(r.is_ok(), i % 2 == 1, "child {i}");
        }
    }
}
