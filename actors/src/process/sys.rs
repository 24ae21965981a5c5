//! The `pre_exec` hooks (parent-death signal, user switch). (`user.rs`
//! holds the C library lookups.)
//!
//! Audit notes: the `pre_exec` hooks run in the forked child before `exec`,
//! where only async-signal-safe calls are allowed. The parent-death hook
//! makes two raw syscalls through `rustix` (`prctl(PR_SET_PDEATHSIG)` and
//! `getppid`); the user hook calls `getuid`, `getgid`, `setgroups`, `setgid`
//! and `setuid` on values prepared before the fork. Neither allocates
//! (errors are built from an errno, not boxed) nor touches a lock.

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

/// Linux: drops to `account`'s groups, gid and uid, in that order (once the
/// uid changed, nothing else may). Must be registered before the
/// parent-death hook: a credential change clears that signal. A child that
/// already has the target ids changes nothing.
#[cfg(target_os = "linux")]
pub(super) fn switch_user(cmd: &mut std::process::Command, account: &super::UserAccount) {
    use std::os::unix::process::CommandExt;

    let (uid, gid) = (account.uid, account.gid);
    let groups: Vec<libc::gid_t> = account.groups.clone();
    let hook = move || -> std::io::Result<()> {
        // SAFETY (all calls): plain syscall wrappers on values owned by the
        // closure; `groups` is a live slice of `groups.len()` ids.
        if unsafe { libc::getuid() == uid && libc::getgid() == gid } {
            return Ok(());
        }
        if unsafe { libc::setgroups(groups.len(), groups.as_ptr()) } != 0
            || unsafe { libc::setgid(gid) } != 0
            || unsafe { libc::setuid(uid) } != 0
        {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: `hook` is async-signal-safe (see the module audit notes).
    unsafe {
        cmd.pre_exec(hook);
    }
}

/// Not available off Linux: `resolve_user` refuses before any spawn.
#[cfg(not(target_os = "linux"))]
pub(super) fn switch_user(_cmd: &mut std::process::Command, _account: &super::UserAccount) {}

/// Not available off Linux: a no-op (documented on `ProcessSpec`).
#[cfg(not(target_os = "linux"))]
pub(super) fn set_parent_death_signal(_cmd: &mut std::process::Command) {}
