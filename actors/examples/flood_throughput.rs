//! Messages per second from a flooding fake CLI through the whole session
//! tree to a consumer, next to a bare pipe read-and-split loop over the same
//! fake CLI output, in the same run.
//!
//! ```text
//! cargo run --release -p claude-agent-actors --example flood_throughput [-- FRAMES]
//! ```
//! The frame is a real 466-byte `assistant` line from the 2.1.332 fixtures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;
use std::time::{Duration, Instant};

use claude_agent_actors::process::ProcessSpec;
use claude_agent_actors::{Session, SessionConfig};
use claude_agent_testkit::{Script, fake_cli_path};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const FRAME: &str = r#"{"type":"assistant","message":{"id":"msg_mock_1795993051239100","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Here is the answer you asked for, in a line of typical length."}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":34}},"parent_tool_use_id":null,"session_id":"8d1f0c6e-2b7a-4c55-9a0e-7d6b1c2f3e4a","uuid":"5a0b9e8c-1d2e-4f3a-8b7c-6d5e4f3a2b1c"}"#;

fn script(frames: u64) -> String {
    let frame: Value = serde_json::from_str(FRAME).unwrap();
    Script::new()
        .expect_initialize()
        .step(json!({"op":"flood","stream":"stdout","frame":frame,"count":frames}))
        .to_json()
}

async fn through_session(frames: u64) -> Duration {
    let mut spec = ProcessSpec::new(fake_cli_path().unwrap());
    spec.env
        .push(("FAKE_CLAUDE_SCRIPT_JSON".into(), script(frames).into()));
    let (session, mut stream) = Session::start(SessionConfig::subprocess(spec))
        .await
        .unwrap();
    let t0 = Instant::now();
    let mut n = 0u64;
    let mut bytes = 0usize;
    while n < frames {
        let f = stream.recv().await.unwrap().unwrap();
        bytes += f.line.len();
        n += 1;
    }
    let took = t0.elapsed();
    assert!(bytes > 0);
    session.shutdown().await;
    took
}

/// The peer: spawn the same fake CLI, send initialize, then read stdout and
/// split lines with memchr; nothing else.
async fn bare_pipe(frames: u64) -> Duration {
    let mut child = tokio::process::Command::new(fake_cli_path().unwrap())
        .env("FAKE_CLAUDE_SCRIPT_JSON", script(frames))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"type\":\"control_request\",\"request_id\":\"r1\",\"request\":{\"subtype\":\"initialize\"}}\n")
        .await
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    let mut pending: Vec<u8> = Vec::new();
    let mut lines = 0u64;
    let mut t0 = None;
    // +1 for the initialize reply.
    while lines < frames + 1 {
        let n = out.read(&mut buf).await.unwrap();
        assert!(n > 0, "EOF early");
        t0.get_or_insert_with(Instant::now);
        let mut chunk = &buf[..n];
        while let Some(i) = memchr::memchr(b'\n', chunk) {
            pending.extend_from_slice(&chunk[..i]);
            std::hint::black_box(&pending);
            pending.clear();
            lines += 1;
            chunk = &chunk[i + 1..];
        }
        pending.extend_from_slice(chunk);
    }
    let took = t0.unwrap().elapsed();
    drop(stdin);
    child.wait().await.unwrap();
    took
}

#[tokio::main]
async fn main() {
    let frames: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    // Warm up both paths (page cache, binary load).
    through_session(10_000).await;
    bare_pipe(10_000).await;
    let mut best_s = Duration::MAX;
    let mut best_b = Duration::MAX;
    for _ in 0..3 {
        best_b = best_b.min(bare_pipe(frames).await);
        best_s = best_s.min(through_session(frames).await);
    }
    let rate = |d: Duration| frames as f64 / d.as_secs_f64();
    println!("frames: {frames} x {} bytes (best of 3)", FRAME.len());
    println!("bare pipe read+split : {:>10.0} lines/s", rate(best_b));
    println!("session tree         : {:>10.0} frames/s", rate(best_s));
    println!("ratio session / bare : {:.2}", rate(best_s) / rate(best_b));
}
