//! Running the tool with its stderr on a pseudo-terminal, as a person's
//! terminal would be, to see what it draws there (progress bars).
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::fs::File;
use std::io::Read;
use std::os::fd::{FromRawFd, OwnedFd};
use std::process::{Command, Output, Stdio};

/// Runs `cmd` to its end with stderr on a fresh 24x120 pseudo-terminal
/// (stdout piped); returns its output with `stderr` holding what the
/// terminal received.
pub fn output_with_tty_stderr(mut cmd: Command) -> Output {
    let (mut master, mut slave) = (-1, -1);
    let size = libc::winsize {
        ws_row: 24,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    let (master, slave) = unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
    // Reads until every copy of the slave is closed (EIO).
    let reader = std::thread::spawn(move || {
        let mut file = File::from(master);
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = file.read(&mut buf) {
            if n == 0 {
                break;
            }
            seen.extend_from_slice(&buf[..n]);
        }
        seen
    });
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(slave))
        .env("TERM", "xterm");
    let out = cmd.output().unwrap();
    // The command holds the parent's copy of the slave until dropped.
    drop(cmd);
    let stderr = reader.join().unwrap();
    Output { stderr, ..out }
}
