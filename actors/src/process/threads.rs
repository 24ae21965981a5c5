//! The two long-lived helper threads: the spawner and the reaper.
//!
//! Spawner: Linux delivers the parent-death signal when the *thread* that
//! forked the child exits, not the process. Spawning from tokio workers (or
//! `spawn_blocking` threads, which retire when idle) would kill CLIs at
//! random, so every spawn through std's `Command` (the parent-death hook, a
//! user switch, a `PATH` search) goes through one lazily started thread that
//! never exits. A direct `posix_spawn` (`direct_spawn.rs`) sets no such
//! signal and runs on the caller's thread.
//!
//! Reaper: a dropped, still-running child is sent `SIGKILL` and handed here;
//! the thread polls it with `waitpid` until it is reaped, so no zombie stays
//! even if the owner could not wait.

use std::os::fd::OwnedFd;
use std::process::Command;
use std::sync::mpsc;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use tokio::sync::oneshot;

use super::exit::ExitInfo;

/// A spawned child as the spawner hands it over: its pid and the parent's
/// ends of its three pipes. Nothing else holds the pid: it is reaped with
/// `waitpid` by its `ChildProcess`, or by the reaper.
#[derive(Debug)]
pub(super) struct Spawned {
    pub(super) pid: u32,
    pub(super) stdin: OwnedFd,
    pub(super) stdout: OwnedFd,
    pub(super) stderr: OwnedFd,
}

/// Spawns `cmd` with std and keeps its pid and pipes.
fn spawn_std(cmd: &mut Command) -> std::io::Result<Spawned> {
    let mut child = cmd.spawn()?;
    let pid = child.id();
    let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    // std's `Child` owns nothing else: dropping it neither kills nor reaps,
    // so the pid is ours to wait for.
    drop(child);
    match pipes {
        (Some(stdin), Some(stdout), Some(stderr)) => Ok(Spawned {
            pid,
            stdin: stdin.into(),
            stdout: stdout.into(),
            stderr: stderr.into(),
        }),
        _ => {
            kill_and_reap(pid);
            Err(std::io::Error::other(
                "a spawned child is missing a stdio pipe",
            ))
        }
    }
}

type SpawnReply = oneshot::Sender<std::io::Result<Spawned>>;

/// A command, whether the keeper guards its group, and where to answer.
type SpawnJob = (Command, bool, SpawnReply);

fn thread_gone() -> std::io::Error {
    std::io::Error::other("process helper thread is not running")
}

/// Spawns `cmd` on the spawner thread; with `kept`, its group is registered
/// with the keeper before the caller hears of it. If the caller stops
/// waiting, the child is killed and reaped rather than leaked.
pub(super) async fn spawn_on_spawner(cmd: Command, kept: bool) -> std::io::Result<Spawned> {
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
                let spawned = spawn_std(&mut cmd);
                if let (Ok(child), true) = (&spawned, kept) {
                    super::keeper::register(child.pid);
                }
                if let Err(Ok(child)) = reply.send(spawned) {
                    // The caller went away mid-spawn.
                    kill_and_reap(child.pid);
                }
            }
        });
    if let Err(e) = started {
        tracing::error!(error = %e, "cannot start the process spawner thread");
    }
    tx
}

/// Reaps `pid` if it has exited: `Ok(Some(..))` once reaped, `Ok(None)`
/// while it runs. A pid that is not our child (already reaped) is an error.
pub(super) fn try_reap(pid: u32) -> std::io::Result<Option<ExitInfo>> {
    let pid = rustix::process::Pid::from_raw(pid as i32).ok_or(rustix::io::Errno::INVAL)?;
    let waited = rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG)?;
    Ok(waited.map(|(_, status)| {
        use std::os::unix::process::ExitStatusExt;
        ExitInfo::from(std::process::ExitStatus::from_raw(status.as_raw()))
    }))
}

/// SIGKILLs the child's group and reaps it, without blocking the caller.
pub(super) fn kill_and_reap(pid: u32) {
    let _ = super::group::kill_group_raw(pid, super::Signal::Kill);
    super::keeper::forget(pid);
    match try_reap(pid) {
        Ok(Some(_)) | Err(_) => super::registry::remove(pid),
        Ok(None) => hand_to_reaper(pid),
    }
}

/// Hands a child whose exit is imminent (it was sent `SIGKILL`) to the reaper.
pub(super) fn hand_to_reaper(pid: u32) {
    static REAPER: OnceLock<Mutex<mpsc::Sender<u32>>> = OnceLock::new();
    let sender = REAPER.get_or_init(|| Mutex::new(start_reaper()));
    let sent = sender.lock().unwrap_or_else(|e| e.into_inner()).send(pid);
    if let Err(mpsc::SendError(pid)) = sent {
        tracing::warn!(pid, "reaper thread is gone; child may stay a zombie");
    }
}

/// The reaper's first pause between two looks at the pids it waits for,
/// doubled up to [`REAP_PAUSE_MAX`] while nothing new comes. Polling
/// cadences, not bounds on a wait (the reaper waits until each pid is
/// reaped), so fixed.
const REAP_PAUSE_MIN: Duration = Duration::from_millis(1);
/// See [`REAP_PAUSE_MIN`].
const REAP_PAUSE_MAX: Duration = Duration::from_millis(100);

fn start_reaper() -> mpsc::Sender<u32> {
    let (tx, rx) = mpsc::channel::<u32>();
    let started = std::thread::Builder::new()
        .name("claude-agent-reaper".into())
        .spawn(move || {
            let mut pending: Vec<u32> = Vec::new();
            let mut pause = REAP_PAUSE_MIN;
            loop {
                let next = if pending.is_empty() {
                    rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected)
                } else {
                    rx.recv_timeout(pause)
                };
                match next {
                    Ok(pid) => {
                        pending.push(pid);
                        pause = REAP_PAUSE_MIN;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        pause = (pause * 2).min(REAP_PAUSE_MAX);
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) if pending.is_empty() => return,
                    Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(pause),
                }
                pending.retain(|pid| match try_reap(*pid) {
                    Ok(None) => true,
                    Ok(Some(_)) | Err(_) => {
                        super::registry::remove(*pid);
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
