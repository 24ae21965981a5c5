//! The one place with `unsafe`: the `pre_exec` hook for the parent-death
//! signal, and registering a pidfd with the reactor.
//!
//! Audit notes: the `pre_exec` hook runs in the forked child before `exec`, where only
//! async-signal-safe calls are allowed. It makes two raw syscalls through
//! `rustix` (`prctl(PR_SET_PDEATHSIG)` and `getppid`), allocates nothing
//! (errors are built from an errno, not boxed), and touches no locks.

/// Linux: arranges for the child to get `SIGKILL` when the thread that
/// spawned it exits (hence the dedicated spawner thread, which never exits),
/// and closes the race where we died before `prctl` ran: the child then
/// sees a different parent and fails before `exec` (std `_exit`s it).
#[cfg(target_os = "linux")]
pub(super) fn set_parent_death_signal(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;

    let parent = rustix::process::getpid();
    let hook = move || -> std::io::Result<()> {
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
        if rustix::process::getppid() != Some(parent) {
            return Err(rustix::io::Errno::SRCH.into());
        }
        Ok(())
    };
    // SAFETY: `hook` is async-signal-safe (see the module audit notes): two
    // raw syscalls, a comparison, and an error built without allocating.
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// Not available off Linux: a no-op (documented on `ProcessSpec`).
#[cfg(not(target_os = "linux"))]
pub(super) fn set_parent_death_signal(_cmd: &mut std::process::Command) {}

/// Registers a pidfd with the tokio reactor, for readable (= exited) events.
#[cfg(target_os = "linux")]
pub(super) fn register_pidfd(
    fd: std::os::fd::OwnedFd,
) -> std::io::Result<tokio::io::unix::AsyncFd<std::os::fd::OwnedFd>> {
    // SAFETY: an `OwnedFd` is a valid open descriptor that stays open and
    // returns the same number from `as_raw_fd` until the `AsyncFd` that owns
    // it drops it, which is exactly `register`'s contract.
    let registered = unsafe {
        tokio::io::unix::AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE)
    };
    registered.map_err(std::io::Error::from)
}
