//! Signals to the CLI from a fault, safe against a reused pid.
//!
//! The runtime reaps the CLI on its own schedule, so a fault could fire
//! after the pid was freed. On Linux a pidfd, opened at connect while the
//! CLI is still our unreaped child, pins the process: a signal to the
//! leader goes through it, and one to the group is sent only while the
//! leader is unreaped (its pid, and so its group id, still reserved).
//! Elsewhere the pid is used as is.

use rustix::process::{Pid, Signal};

use super::action::Target;

/// The CLI process a fault may signal.
#[derive(Debug)]
pub(crate) struct Process {
    pid: Option<u32>,
    pgid: Option<u32>,
    #[cfg(target_os = "linux")]
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Process {
    /// The far end `pid`/`pgid` as the channel reports them (`None`: no
    /// local process, signals are not delivered).
    pub(crate) fn new(pid: Option<u32>, pgid: Option<u32>) -> Self {
        #[cfg(target_os = "linux")]
        let pidfd = pid.and_then(|p| Pid::from_raw(p as i32)).and_then(|p| {
            rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()).ok()
        });
        Self {
            pid,
            pgid,
            #[cfg(target_os = "linux")]
            pidfd,
        }
    }

    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    pub(crate) fn pgid(&self) -> Option<u32> {
        self.pgid
    }

    /// Sends `signal` to `target`; `Err` says why it was not sent.
    pub(crate) fn signal(&self, target: Target, signal: i32) -> Result<(), String> {
        let sig = Signal::from_named_raw(signal)
            .ok_or_else(|| format!("signal {signal} is not one this platform sends"))?;
        let (Some(pid), Some(pgid)) = (self.pid, self.pgid) else {
            return Err("the channel has no local process to signal".into());
        };
        self.still_ours()?;
        let result = match target {
            Target::Leader => self.signal_leader(pid, sig),
            Target::Group => match Pid::from_raw(pgid as i32) {
                Some(g) => rustix::process::kill_process_group(g, sig),
                None => return Err(format!("process group {pgid} is not valid")),
            },
        };
        match result {
            Ok(()) => Ok(()),
            Err(rustix::io::Errno::SRCH) => Err("the CLI had already ended".into()),
            Err(e) => Err(format!("the signal was refused: {e}")),
        }
    }

    #[cfg(target_os = "linux")]
    fn signal_leader(&self, pid: u32, sig: Signal) -> rustix::io::Result<()> {
        match &self.pidfd {
            Some(fd) => rustix::process::pidfd_send_signal(fd, sig),
            None => Pid::from_raw(pid as i32).map_or(Err(rustix::io::Errno::SRCH), |p| {
                rustix::process::kill_process(p, sig)
            }),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn signal_leader(&self, pid: u32, sig: Signal) -> rustix::io::Result<()> {
        Pid::from_raw(pid as i32).map_or(Err(rustix::io::Errno::SRCH), |p| {
            rustix::process::kill_process(p, sig)
        })
    }

    /// Fails once the runtime reaped the leader: its numbers may be reused.
    #[cfg(target_os = "linux")]
    fn still_ours(&self) -> Result<(), String> {
        use rustix::process::{WaitId, WaitIdOptions};
        let Some(fd) = &self.pidfd else {
            return Ok(());
        };
        let options = WaitIdOptions::EXITED | WaitIdOptions::NOWAIT | WaitIdOptions::NOHANG;
        match rustix::process::waitid(WaitId::PidFd(std::os::fd::AsFd::as_fd(fd)), options) {
            Ok(_) => Ok(()),
            Err(_) => Err("the CLI had already ended and been reaped".into()),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn still_ours(&self) -> Result<(), String> {
        Ok(())
    }
}
