//! Host memory of an idle session (actors + buffers), as the RSS delta over
//! N idle sessions divided by N, next to a bare peer: the same fake CLI
//! spawned with piped stdio and one stdout reader task each (the least any
//! host pays). Each variant runs in a fresh process (this program re-executes
//! itself) so allocator state from one does not flatter the other.
//!
//! ```text
//! cargo run --release -p claude-agent-actors --example idle_memory [-- N]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use claude_agent_actors::process::ProcessSpec;
use claude_agent_actors::{Session, SessionConfig};
use claude_agent_testkit::{Script, fake_cli_path};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap()
}

fn script() -> String {
    Script::new()
        .expect_initialize()
        .loop_turns("idle")
        .to_json()
}

async fn sessions(n: usize) -> u64 {
    let spec = || {
        let mut s = ProcessSpec::new(fake_cli_path().unwrap());
        s.env
            .push(("FAKE_CLAUDE_SCRIPT_JSON".into(), script().into()));
        s
    };
    // Warm up: one session started and stopped.
    let (s, _f) = Session::start(SessionConfig::subprocess(spec()))
        .await
        .unwrap();
    s.shutdown().await;
    let before = rss_kib();
    let mut all = Vec::new();
    for _ in 0..n {
        all.push(
            Session::start(SessionConfig::subprocess(spec()))
                .await
                .unwrap(),
        );
    }
    let after = rss_kib();
    for (s, _) in &all {
        s.shutdown().await;
    }
    after.saturating_sub(before)
}

async fn bare(n: usize) -> u64 {
    let before = rss_kib();
    let mut all = Vec::new();
    for _ in 0..n {
        let mut child = tokio::process::Command::new(fake_cli_path().unwrap())
            .env("FAKE_CLAUDE_SCRIPT_JSON", script())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin
            .write_all(b"{\"type\":\"control_request\",\"request_id\":\"r1\",\"request\":{\"subtype\":\"initialize\"}}\n")
            .await
            .unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 1];
        out.read_exact(&mut first).await.unwrap();
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; 8 * 1024];
            while out.read(&mut buf).await.map(|n| n > 0).unwrap_or(false) {}
        });
        all.push((child, stdin, reader));
    }
    let after = rss_kib();
    for (mut child, stdin, reader) in all {
        drop(stdin);
        child.wait().await.unwrap();
        reader.abort();
    }
    after.saturating_sub(before)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let first = args.next();
    if let Some(mode) = first.as_deref().filter(|m| m.starts_with("--mode=")) {
        let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
        let rt = tokio::runtime::Runtime::new().unwrap();
        let delta = rt.block_on(async {
            if mode == "--mode=session" {
                sessions(n).await
            } else {
                bare(n).await
            }
        });
        println!("{delta}");
        return;
    }
    let n: usize = first.and_then(|a| a.parse().ok()).unwrap_or(200);
    let run = |mode: &str| -> u64 {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .arg(format!("--mode={mode}"))
            .arg(n.to_string())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    };
    let bare_kib = run("bare");
    let session_kib = run("session");
    let per = |kib: u64| kib as f64 / n as f64;
    println!("{n} idle sessions, host RSS delta / {n}:");
    println!(
        "bare child + pipes + reader task : {:>7.1} KiB",
        per(bare_kib)
    );
    println!(
        "session tree                     : {:>7.1} KiB",
        per(session_kib)
    );
    println!(
        "difference (the tree's own cost) : {:>7.1} KiB",
        per(session_kib) - per(bare_kib)
    );
}
