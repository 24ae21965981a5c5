//! Signalling a whole process group (the one raw call both the process
//! handle and the reaper thread need).

use super::Signal;

/// Sends `sig` to process group `pgid`; a group that no longer exists is
/// not an error.
pub(super) fn kill_group_raw(pgid: u32, sig: Signal) -> std::io::Result<bool> {
    let Some(pgid) = rustix::process::Pid::from_raw(pgid as i32) else {
        return Err(std::io::Error::from(rustix::io::Errno::INVAL));
    };
    match rustix::process::kill_process_group(pgid, sig.raw()) {
        Ok(()) => Ok(true),
        Err(rustix::io::Errno::SRCH) => Ok(false),
        Err(e) => Err(e.into()),
    }
}
