//! A spawned CLI process: its own group, piped stdio, reaped on every path.

use std::time::Duration;

use tokio::process::{ChildStderr, ChildStdin, ChildStdout};

use super::group::kill_group_raw;
use super::threads::{self, Spawned};
use super::{ExitInfo, Signal, registry};

/// A spawned CLI: own process group, piped stdio.
///
/// Reaping happens on every path: [`wait`](Self::wait) and
/// [`try_wait`](Self::try_wait) reap; dropping an unreaped `ChildProcess`
/// sends `SIGKILL` to its whole group and reaps it (on a background thread
/// if it has not died yet by the time `drop` returns). Dropping a reaped one
/// still sends `SIGKILL` to the group so no grandchild outlives its session.
#[derive(Debug)]
pub struct ChildProcess {
    leader: Leader,
    /// Made by the first [`wait`](Self::wait) that finds the leader still
    /// running, not at spawn: a pidfd is a file descriptor, and a session
    /// that only waits once its stdout closed (or it sent a signal) should
    /// not hold a fourth one while idle.
    waiter: Option<Waiter>,
    stdin: Option<ChildStdin>,
    stdout: Option<ChildStdout>,
    stderr: Option<ChildStderr>,
}

/// The group leader and its exit status once reaped.
#[derive(Debug)]
struct Leader {
    pid: u32,
    exit: Option<ExitInfo>,
}

impl Leader {
    fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>> {
        if let Some(exit) = self.exit {
            return Ok(Some(exit));
        }
        let Some(exit) = threads::try_reap(self.pid)? else {
            return Ok(None);
        };
        self.exit = Some(exit);
        registry::remove(self.pid);
        Ok(Some(exit))
    }
}

/// How [`ChildProcess::wait`] learns that the leader exited.
#[derive(Debug)]
enum Waiter {
    /// Linux >= 5.3: the pidfd turns readable when the process exits; the
    /// exit watcher thread waits on it.
    #[cfg(target_os = "linux")]
    Pidfd(super::exit_watch::WatchedPidfd),
    /// Elsewhere (or when `pidfd_open` is refused): `try_wait` at a bounded
    /// interval.
    Poll,
}

impl Waiter {
    #[cfg(target_os = "linux")]
    fn new(pid: u32) -> Self {
        let fd = rustix::process::Pid::from_raw(pid as i32)
            .ok_or(rustix::io::Errno::INVAL)
            .and_then(|pid| rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()));
        match fd {
            Ok(fd) => super::exit_watch::WatchedPidfd::new(fd).map_or(Waiter::Poll, Waiter::Pidfd),
            Err(e) => {
                tracing::debug!(pid, error = %e, "no pidfd; waiting by polling");
                Waiter::Poll
            }
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn new(_pid: u32) -> Self {
        Waiter::Poll
    }
}

/// Longest pause between two polls in the fallback waiter.
const MAX_POLL_PAUSE: Duration = Duration::from_millis(50);

impl ChildProcess {
    /// Wraps a freshly spawned child. Must run inside a tokio runtime with
    /// IO enabled (the pipes register with its reactor). On error the child
    /// is killed and reaped by `Drop`.
    pub(super) fn new(spawned: Spawned, label: Option<String>) -> std::io::Result<Self> {
        let Spawned {
            pid,
            stdin,
            stdout,
            stderr,
        } = spawned;
        registry::insert(pid, pid, label);
        let mut this = Self {
            leader: Leader { pid, exit: None },
            waiter: None,
            stdin: None,
            stdout: None,
            stderr: None,
        };
        this.stdin = Some(ChildStdin::from_std(stdin.into())?);
        this.stdout = Some(ChildStdout::from_std(stdout.into())?);
        this.stderr = Some(ChildStderr::from_std(stderr.into())?);
        Ok(this)
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.leader.pid
    }

    /// The process group id; equal to [`pid`](Self::pid), as the child leads
    /// its own group.
    pub fn pgid(&self) -> u32 {
        self.leader.pid
    }

    /// The child's stdin, once. Drop it to give the child EOF (tokio's
    /// `shutdown` on a child pipe does not close it).
    pub fn take_stdin(&mut self) -> Option<ChildStdin> {
        self.stdin.take()
    }

    /// The child's stdout, once.
    pub fn take_stdout(&mut self) -> Option<ChildStdout> {
        self.stdout.take()
    }

    /// The child's stderr, once.
    pub fn take_stderr(&mut self) -> Option<ChildStderr> {
        self.stderr.take()
    }

    /// Sends `sig` to every process in the group. A group that is already
    /// gone is not an error.
    pub fn signal_group(&self, sig: Signal) -> std::io::Result<()> {
        kill_group_raw(self.pgid(), sig).map(|_| ())
    }

    /// Sends `sig` to the leader only. A no-op once it has been reaped (its
    /// pid may belong to someone else by then).
    pub fn signal(&self, sig: Signal) -> std::io::Result<()> {
        if self.leader.exit.is_some() {
            return Ok(());
        }
        let Some(pid) = rustix::process::Pid::from_raw(self.leader.pid as i32) else {
            return Err(std::io::Error::from(rustix::io::Errno::INVAL));
        };
        match rustix::process::kill_process(pid, sig.raw()) {
            Ok(()) | Err(rustix::io::Errno::SRCH) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    /// The exit status if the leader has exited (reaping it), without waiting.
    pub fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>> {
        self.leader.try_wait()
    }

    /// Waits for the leader to exit and reaps it. Cancel-safe: it can be
    /// raced in `select!` and called again; once reaped it returns the same
    /// status at once.
    ///
    /// On Linux the first call that finds the leader running opens a pidfd
    /// (one more file descriptor, held until this `ChildProcess` drops).
    pub async fn wait(&mut self) -> std::io::Result<ExitInfo> {
        let mut pause = Duration::from_millis(1);
        // Set only by the pidfd waiter, which is Linux's.
        #[cfg_attr(not(target_os = "linux"), allow(unused_mut))]
        let mut woken = false;
        loop {
            if let Some(exit) = self.leader.try_wait()? {
                return Ok(exit);
            }
            if woken {
                // Readable and not yet reapable (on older kernels a group
                // leader's pidfd turns readable when the leader thread
                // exits, before the rest of its group): the pidfd stays
                // readable, so pause between looks rather than spin.
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(MAX_POLL_PAUSE);
            }
            let pid = self.leader.pid;
            match self.waiter.get_or_insert_with(|| Waiter::new(pid)) {
                #[cfg(target_os = "linux")]
                Waiter::Pidfd(fd) => match fd.exited().await {
                    // Readable means exited: the next `try_wait` reaps it.
                    Ok(()) => woken = true,
                    Err(e) => {
                        tracing::debug!(pid, error = %e, "exit watcher unavailable; waiting by polling");
                        self.waiter = Some(Waiter::Poll);
                        woken = false;
                    }
                },
                Waiter::Poll => {
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(MAX_POLL_PAUSE);
                }
            }
        }
    }

    /// Sends `SIGKILL` to every process still in the group. Call it after the
    /// leader exited so that, say, a Bash tool's background job dies with the
    /// session. Returns 1 if a group was there to kill, 0 if it was gone.
    ///
    /// Caveat: once the leader is reaped and the group empty, the kernel may
    /// reuse the number; call this promptly after reaping.
    pub fn kill_group_remnants(&self) -> std::io::Result<usize> {
        let killed = kill_group_raw(self.pgid(), Signal::Kill).map(usize::from);
        if self.leader.exit.is_some() {
            // Reaped and the group killed: nothing left for the keeper.
            super::keeper::forget(self.pgid());
        }
        killed
    }
}

impl Drop for ChildProcess {
    fn drop(&mut self) {
        match self.leader.exit {
            None => threads::kill_and_reap(self.leader.pid),
            Some(_) => {
                let _ = kill_group_raw(self.leader.pid, Signal::Kill);
                super::keeper::forget(self.leader.pid);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// On Linux the first wait that finds the leader running waits on its
    /// pidfd through the exit watcher: not before the exit, promptly after
    /// it, and a wait raced away in between loses nothing.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_pidfd_waiter_waits_through_the_exit_watcher_and_reaps() {
        let mut spec = super::super::ProcessSpec::new("sleep");
        spec.args.push("300".into());
        let mut child = super::super::spawn(spec).await.unwrap();
        tokio::select! {
            exit = child.wait() => panic!("exited early: {exit:?}"),
            () = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        assert!(matches!(child.waiter, Some(Waiter::Pidfd(_))));
        child.signal_group(Signal::Kill).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .unwrap();
        assert_eq!(exit.unwrap().signal, Some(Signal::Kill.number()));
        assert!(matches!(child.waiter, Some(Waiter::Pidfd(_))));
        let pid = child.pid();
        assert!(super::super::live_processes().iter().all(|p| p.pid != pid));
    }

    /// The polling fallback (no pidfd) waits, is cancel-safe, and reaps.
    #[tokio::test]
    async fn polling_waiter_waits_and_reaps() {
        let mut spec = super::super::ProcessSpec::new("sleep");
        spec.args.push("300".into());
        let mut child = super::super::spawn(spec).await.unwrap();
        child.waiter = Some(Waiter::Poll);
        tokio::select! {
            exit = child.wait() => panic!("exited early: {exit:?}"),
            () = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        child.signal_group(Signal::Kill).unwrap();
        let exit = tokio::time::timeout(Duration::from_secs(10), child.wait())
            .await
            .unwrap();
        assert_eq!(exit.unwrap().signal, Some(Signal::Kill.number()));
        let pid = child.pid();
        assert!(super::super::live_processes().iter().all(|p| p.pid != pid));
    }
}
