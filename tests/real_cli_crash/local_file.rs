#![allow(unreachable_pub)]
//! The CLI's own session file, as the crash tests read it: the entries it
//! mirrors, and when each was first seen there.

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

/// Notes when each mirrored line of the CLI's session file `file` is first
/// seen, until aborted: an entry seen at `t` was written by `t`. Polled,
/// since the file's growth is what is observed, not waited for.
pub async fn watch(file: PathBuf, seen: Arc<Mutex<Vec<SystemTime>>>) {
    let mut done = 0usize; // bytes of complete lines already looked at
    loop {
        if let Ok(bytes) = tokio::fs::read(&file).await {
            let now = SystemTime::now();
            if let Some(end) = bytes.iter().rposition(|&b| b == b'\n') {
                let fresh = bytes.get(done..=end).unwrap_or_default();
                let mirrored = fresh
                    .split(|&b| b == b'\n')
                    .filter(|l| !l.is_empty())
                    .filter(|l| {
                        serde_json::from_slice::<Value>(l).is_ok_and(|e| {
                            !e["type"].as_str().unwrap_or("").starts_with("api-request")
                        })
                    })
                    .count();
                seen.lock()
                    .unwrap()
                    .extend(std::iter::repeat_n(now, mirrored));
                done = end + 1;
            }
        }
        tokio::time::sleep(POLL).await;
    }
}
