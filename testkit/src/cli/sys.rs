//! The only `unsafe` in the crate: raw fd reads with a timeout, signal
//! dispositions, and re-pointing fd 1. Each wrapper is a single libc call
//! whose arguments are valid by construction.

use std::io;
use std::time::Duration;

/// Waits until fd 0 is readable (or at EOF/hung up). `None` waits forever.
/// Returns `false` on timeout.
pub(crate) fn wait_stdin_readable(timeout: Option<Duration>) -> io::Result<bool> {
    let ms: libc::c_int = match timeout {
        None => -1,
        // Round up so a 0.4 ms remainder does not spin at 0.
        Some(d) => d
            .as_micros()
            .div_ceil(1000)
            .try_into()
            .unwrap_or(libc::c_int::MAX),
    };
    let mut fds = libc::pollfd {
        fd: 0,
        events: libc::POLLIN,
        revents: 0,
    };
    loop {
        // SAFETY: `fds` is a valid, exclusively borrowed array of length 1.
        let rc = unsafe { libc::poll(&mut fds, 1, ms) };
        if rc >= 0 {
            return Ok(rc > 0);
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// One `read(2)` on fd 0, bypassing std's buffered `Stdin` so that `poll`
/// and our own buffer never disagree. `Ok(0)` is EOF.
pub(crate) fn read_stdin(buf: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: `buf` is a valid writable region of `buf.len()` bytes.
        let rc = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
        if rc >= 0 {
            return Ok(rc.unsigned_abs());
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

/// Makes fd 1 point at `/dev/null`: the host sees EOF on our stdout, while a
/// later `open` can never be handed fd 1 and receive stray frames.
pub(crate) fn close_stdout() -> io::Result<()> {
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null")?;
    let fd = std::os::fd::AsRawFd::as_raw_fd(&null);
    // SAFETY: both fds are open; dup2 atomically replaces fd 1.
    if unsafe { libc::dup2(fd, 1) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Maps a signal name (`"TERM"`, `"SIGTERM"`, any case) to its number.
pub(crate) fn signal_number(name: &str) -> Option<libc::c_int> {
    let upper = name.to_ascii_uppercase();
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    Some(match bare {
        "HUP" => libc::SIGHUP,
        "INT" => libc::SIGINT,
        "QUIT" => libc::SIGQUIT,
        "ABRT" => libc::SIGABRT,
        "KILL" => libc::SIGKILL,
        "SEGV" => libc::SIGSEGV,
        "PIPE" => libc::SIGPIPE,
        "ALRM" => libc::SIGALRM,
        "TERM" => libc::SIGTERM,
        "USR1" => libc::SIGUSR1,
        "USR2" => libc::SIGUSR2,
        _ => return None,
    })
}

/// Sets `SIG_IGN` for `sig`.
pub(crate) fn ignore_signal(sig: libc::c_int) -> io::Result<()> {
    // SAFETY: SIG_IGN is a valid disposition; no handler code is installed.
    if unsafe { libc::signal(sig, libc::SIG_IGN) } == libc::SIG_ERR {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Restores the default disposition of `sig`, unblocks it and raises it, so
/// the process dies by that signal exactly as a real crash would.
pub(crate) fn die_by_signal(sig: libc::c_int) -> ! {
    // SAFETY: SIG_DFL is a valid disposition; the sigset is initialised by
    // sigemptyset before use; raise only sends a signal to ourselves.
    unsafe {
        if sig != libc::SIGKILL {
            libc::signal(sig, libc::SIG_DFL);
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    // Only reachable if the signal was somehow not fatal.
    std::process::abort()
}
