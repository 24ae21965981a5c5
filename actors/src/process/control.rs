//! A narrow seam over a process, so escalation logic (grace, SIGTERM,
//! SIGKILL) can be unit-tested against a mock without real processes.

use futures::future::BoxFuture;

use super::{ChildProcess, ExitInfo, Signal};

/// What escalation logic needs from a process: signal the group, check or
/// wait for exit.
pub trait ProcessControl: Send {
    /// The process id, if it is a local process.
    fn pid(&self) -> Option<u32>;
    /// Sends `sig` to the whole process group; a gone group is not an error.
    fn signal_group(&self, sig: Signal) -> std::io::Result<()>;
    /// The exit status if it has exited (reaping it), without waiting.
    fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>>;
    /// Waits for exit and reaps. Cancel-safe.
    fn wait(&mut self) -> BoxFuture<'_, std::io::Result<ExitInfo>>;
}

impl ProcessControl for ChildProcess {
    fn pid(&self) -> Option<u32> {
        Some(ChildProcess::pid(self))
    }

    fn signal_group(&self, sig: Signal) -> std::io::Result<()> {
        ChildProcess::signal_group(self, sig)
    }

    fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>> {
        ChildProcess::try_wait(self)
    }

    fn wait(&mut self) -> BoxFuture<'_, std::io::Result<ExitInfo>> {
        Box::pin(ChildProcess::wait(self))
    }
}
