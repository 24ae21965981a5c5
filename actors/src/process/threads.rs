//! The two long-lived helper threads: the spawner and the reaper.
//!
//! Spawner: Linux delivers the parent-death signal when the *thread* that
//! forked the child exits, not the process. Spawning from tokio workers (or
//! `spawn_blocking` threads, which retire when idle) would kill CLIs at
//! random, so every spawn goes through one lazily started thread that never
//! exits.
//!
//! Reaper: a dropped, still-running child is sent `SIGKILL` and handed here;
//! the thread polls it with `try_wait` until it is reaped, so no zombie
//! stays even if the owner could not wait.

use std::process::{Child, Command};
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::oneshot;

type SpawnReply = oneshot::Sender<std::io::Result<Child>>;

/// A command, whether the keeper guards its group, and where to answer.
type SpawnJob = (Command, bool, SpawnReply);

fn thread_gone() -> std::io::Error {
    std::io::Error::other("process helper thread is not running")
}

/// Spawns `cmd` on the spawner thread; with `kept`, its group is registered
/// with the keeper before the caller hears of it. If the caller stops
/// waiting, the child is killed and reaped rather than leaked.
pub(super) async fn spawn_on_spawner(cmd: Command, kept: bool) -> std::io::Result<Child> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<SpawnJob>>> = OnceLock::new();
    let (reply, answer) = oneshot::channel();
    let sender = SPAWNER.get_or_init(|| Mutex::new(start_spawner()));
    sender
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .send((cmd, kept, reply))
        .map_err(|_| thread_gone())?;
    answer.await.map_err(|_| thread_gone())?
}

fn start_spawner() -> mpsc::Sender<SpawnJob> {
    let (tx, rx) = mpsc::channel::<SpawnJob>();
    let started = std::thread::Builder::new()
        .name("claude-agent-spawner".into())
        .spawn(move || {
            // The sender lives in a static, so this loop never ends.
            while let Ok((mut cmd, kept, reply)) = rx.recv() {
                let spawned = cmd.spawn();
                if let (Ok(child), true) = (&spawned, kept) {
                    super::keeper::register(child.id());
                }
                if let Err(Ok(child)) = reply.send(spawned) {
                    // The caller went away mid-spawn.
                    kill_and_reap(child);
                }
            }
        });
    if let Err(e) = started {
        tracing::error!(error = %e, "cannot start the process spawner thread");
    }
    tx
}

/// SIGKILLs the child's group and reaps it, without blocking the caller.
pub(super) fn kill_and_reap(mut child: Child) {
    let _ = super::group::kill_group_raw(child.id(), super::Signal::Kill);
    super::keeper::forget(child.id());
    match child.try_wait() {
        Ok(Some(_)) | Err(_) => super::registry::remove(child.id()),
        Ok(None) => hand_to_reaper(child),
    }
}

/// Hands a child whose exit is imminent (it was sent `SIGKILL`) to the reaper.
pub(super) fn hand_to_reaper(child: Child) {
    static REAPER: OnceLock<Mutex<mpsc::Sender<Child>>> = OnceLock::new();
    let sender = REAPER.get_or_init(|| Mutex::new(start_reaper()));
    let sent = sender.lock().unwrap_or_else(|e| e.into_inner()).send(child);
    if let Err(mpsc::SendError(child)) = sent {
        tracing::warn!(
            pid = child.id(),
            "reaper thread is gone; child may stay a zombie"
        );
    }
}

fn start_reaper() -> mpsc::Sender<Child> {
    let (tx, rx) = mpsc::channel::<Child>();
    let started = std::thread::Builder::new()
        .name("claude-agent-reaper".into())
        .spawn(move || {
            let mut pending: Vec<Child> = Vec::new();
            let mut pause = Duration::from_millis(1);
            loop {
                let next = if pending.is_empty() {
                    rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                } else {
                    rx.recv_timeout(pause)
                };
                match next {
                    Ok(child) => {
                        pending.push(child);
                        pause = Duration::from_millis(1);
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        pause = (pause * 2).min(Duration::from_millis(100));
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) if pending.is_empty() => return,
                    Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(pause),
                }
                pending.retain_mut(|child| match child.try_wait() {
                    Ok(None) => true,
                    Ok(Some(_)) | Err(_) => {
                        super::registry::remove(child.id());
                        false
                    }
                });
            }
        });
    if let Err(e) = started {
        tracing::error!(error = %e, "cannot start the process reaper thread");
    }
    tx
}
