#![allow(unreachable_pub)]
//! What the crash tests read of the CLI: the entries of its own session
//! file it mirrors, and when each entry's mirror frame was first seen.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::Value;

/// How often the file is looked at.
const POLL: Duration = Duration::from_millis(20);

/// The entries of the CLI's session file that it mirrors (not its
/// `api-request*` cache lines); a torn last line (the CLI was killed
/// mid-write) is not an entry.
pub fn mirrored_lines(file: &Path) -> Result<Vec<Value>, String> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(format!("{}: {e}", file.display())),
    };
    let complete = match text.rfind('\n') {
        Some(end) => &text[..end],
        None => "",
    };
    complete
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_str::<Value>(l).map_err(|e| format!("{}: {e}", file.display())))
        .filter(|e| {
            !e.as_ref()
                .is_ok_and(|e| e["type"].as_str().unwrap_or("").starts_with("api-request"))
        })
        .collect()
}

/// Notes when each entry of the CLI's `transcript_mirror` frames (as the
/// wrapper from [`tee_wrapper`] copies the CLI's stdout to `file`) is first
/// seen, until aborted: an entry seen at `t` had reached the host by `t`.
/// Polled, since the copy's growth is what is observed, not waited for.
pub async fn watch(file: PathBuf, seen: Arc<Mutex<Vec<SystemTime>>>) {
    let mut done = 0usize; // bytes of complete lines already looked at
    loop {
        if let Ok(bytes) = tokio::fs::read(&file).await {
            let now = SystemTime::now();
            if let Some(end) = bytes.iter().rposition(|&b| b == b'\n') {
                let fresh = bytes.get(done..=end).unwrap_or_default();
                let entries: usize = fresh
                    .split(|&b| b == b'\n')
                    .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
                    .filter(|f| f["type"] == "transcript_mirror")
                    .map(|f| f["entries"].as_array().map_or(0, Vec::len))
                    .sum();
                seen.lock()
                    .unwrap()
                    .extend(std::iter::repeat_n(now, entries));
                done = end + 1;
            }
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Writes `<dir>/cli`, a wrapper running `cli` with its stdout copied to
/// `<dir>/cli.stdout` as it passes to the host; returns both paths. The
/// CLI emits a mirror frame some time after it wrote the entries to its
/// own file (after its first API reply, for the first ones): the bound
/// counts from the frame, which is when the host can have it.
pub fn tee_wrapper(dir: &Path, cli: &Path) -> std::io::Result<(PathBuf, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    let (wrapper, copy) = (dir.join("cli"), dir.join("cli.stdout"));
    let script = format!(
        "#!/bin/sh\n'{}' \"$@\" | tee '{}'\n",
        cli.display(),
        copy.display()
    );
    std::fs::write(&wrapper, script)?;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755))?;
    Ok((wrapper, copy))
}
