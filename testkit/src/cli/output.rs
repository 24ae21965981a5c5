//! Writing to stdout/stderr with the real CLI's manners: every frame is
//! flushed at once, and a host that hung up (EPIPE) ends the process
//! quietly with status 0.

use std::io::{self, Write};

use super::EXIT_IO;

/// Writes a note for the test author to stderr. Never fails: a closed
/// stderr must not turn a note into a crash.
pub(crate) fn note(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "fake-claude: {msg}");
}

/// Ends the process on a failed write to one of our output streams.
pub(crate) fn fail_write(stream: &str, err: &io::Error) -> ! {
    if err.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    note(&format!("write to {stream} failed: {err}"));
    std::process::exit(EXIT_IO)
}

/// Writes `bytes` to stdout and flushes.
pub(crate) fn stdout_bytes(bytes: &[u8]) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_all(bytes).and_then(|()| out.flush()) {
        fail_write("stdout", &e);
    }
}

/// Writes one JSON frame + `\n` to stdout and flushes.
pub(crate) fn frame(value: &serde_json::Value) {
    let mut line = value.to_string().into_bytes();
    line.push(b'\n');
    stdout_bytes(&line);
}

/// Writes `bytes` to stderr (EPIPE ends the process quietly, as for stdout).
pub(crate) fn stderr_bytes(bytes: &[u8]) {
    let mut err = io::stderr().lock();
    if let Err(e) = err.write_all(bytes).and_then(|()| err.flush()) {
        fail_write("stderr", &e);
    }
}
