//! A line of hundreds of MB costs `replay` no more than its line limit.
//!
//! Alone in its own test binary: it reads the peak RSS of all reaped
//! children, so no other test may spawn processes here.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::process::{Command, Stdio};

const LINE_BYTES: usize = 300 * 1024 * 1024;
const LIMIT: usize = 1024 * 1024;

#[test]
fn a_300_mb_line_is_skipped_in_bounded_memory() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args([
            "replay",
            "--json",
            "--max-line-bytes",
            &LIMIT.to_string(),
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1024 * 1024];
        stdin
            .write_all(b"{\"type\":\"assistant\",\"blob\":\"")
            .unwrap();
        for _ in 0..LINE_BYTES / chunk.len() {
            stdin.write_all(&chunk).unwrap();
        }
        stdin
            .write_all(b"\"}\n{\"type\":\"conversation_reset\"}\n")
            .unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].contains("\"kind\":\"error\""), "{}", lines[0]);
    assert!(lines[1].contains("conversation_reset"), "{}", lines[1]);

    // SAFETY: getrusage only writes into the struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    assert_eq!(rc, 0);
    let peak_kib = usage.ru_maxrss as usize; // KiB on Linux
    assert!(
        peak_kib < 48 * 1024,
        "replay peaked at {peak_kib} KiB for a {LINE_BYTES}-byte line with a {LIMIT}-byte limit"
    );
}
