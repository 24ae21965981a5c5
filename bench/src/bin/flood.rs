//! Benchmark (a): typed messages per second for one session from a flooding
//! fake CLI, three sides in one run against the SAME fake CLI and frame:
//!
//! - `rust`: `claude_agent::client::query()` (the whole supervised session tree)
//!   delivering typed `Message`s to a consumer that matches on them;
//! - `bare`: one task that spawns the same fake, reads its stdout pipe,
//!   splits lines and `parse_line`s each into the same typed `Message`
//!   (no actors, no queue, no control routing);
//! - `python`: the official Python SDK's `query()` (`bench/python/flood.py`),
//!   when `--python` names an interpreter that has `claude_agent_sdk`.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin flood -- \
//!     [--frames N] [--reps R] [--python PATH-TO-VENV-PYTHON]
//! ```
//!
//! The fake answers `initialize`, waits for the user turn, writes N copies of
//! a real 466-byte `assistant` line as fast as it can, then one real
//! `result` line. Every side's clock runs from its first typed message to
//! the `result` (spawn and `initialize` excluded, alike on all sides); the
//! figure is best of R. Human table on stderr, one JSON object per side (and
//! one with the ratios) on stdout.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Instant;

use clap::Parser;
use claude_agent::protocol::{ContentBlock, Message, StdoutFrame, parse_line};
use claude_agent::{client::query, options::Options};
use claude_agent_testkit::{Script, Stream as FakeStream, fake_cli_path};
use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[path = "flood/figures.rs"]
mod figures;
use figures::{Run, Side, cpu_seconds, python_sdk, report};

/// A real `assistant` line, verbatim from the 2.1.332 fixtures (`basic`).
const ASSISTANT: &str = r#"{"type":"assistant","message":{"id":"msg_mock_1795993051239177","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{"type":"text","text":"Hello from the mock model."}],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1},"context_management":null},"parent_tool_use_id":null,"session_id":"089c584c-f376-45d2-ad59-eaa9b7883e1e","uuid":"6062efb3-0262-40f9-a118-95a5d1157616","timestamp":"2026-11-29T22:57:31.245Z"}"#;

/// A real `result` line from the 2.1.332 fixtures, trimmed of nested usage
/// maps the benchmark does not need.
const RESULT: &str = r#"{"type":"result","subtype":"success","is_error":false,"duration_ms":86,"duration_api_ms":22,"num_turns":1,"result":"Hello from the mock model.","stop_reason":"end_turn","session_id":"089c584c-f376-45d2-ad59-eaa9b7883e1e","total_cost_usd":0.00014,"usage":{"input_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":5,"service_tier":"standard"},"permission_denials":[],"uuid":"87caa198-7e41-4a57-9b7c-9758d54ffbf0"}"#;

const INITIALIZE: &[u8] =
    b"{\"type\":\"control_request\",\"request_id\":\"r1\",\"request\":{\"subtype\":\"initialize\"}}\n";
const USER: &[u8] =
    b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"flood\"},\"parent_tool_use_id\":null,\"session_id\":\"\"}\n";

#[derive(Parser, Debug)]
#[command(about = "Typed messages/s from a flooding fake CLI: Rust SDK vs bare loop vs Python SDK")]
struct Args {
    /// `assistant` frames per run (plus one `result`).
    #[arg(long, default_value_t = 500_000)]
    frames: u64,
    /// Repetitions per side; the best is reported.
    #[arg(long, default_value_t = 3)]
    reps: u32,
    /// A Python interpreter with `claude_agent_sdk` installed (e.g. a venv's
    /// `bin/python`); without it the Python side is skipped.
    #[arg(long)]
    python: Option<PathBuf>,
    /// Run one side only (for profilers): `rust`, `bare` or `python`.
    #[arg(long, value_parser = ["rust", "bare", "python"])]
    only: Option<String>,
    /// Skip the 10k-frame warm-up runs (for profilers).
    #[arg(long)]
    no_warmup: bool,
}

/// The fake CLI's script for `frames` assistant lines and a result.
fn script(frames: u64) -> String {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .flood(FakeStream::Stdout, ASSISTANT, frames)
        .emit_raw(&format!("{RESULT}\n"))
        .to_json()
}

/// What the consumer does with each typed message: match on it and touch
/// its content, so nothing is optimised away. Returns true at the result.
#[derive(Default)]
struct Consumer {
    assistant: u64,
    other: u64,
    text_bytes: usize,
    first: Option<(Instant, f64)>,
    end: Option<(Instant, f64)>,
}

impl Consumer {
    fn take(&mut self, message: Message) -> bool {
        if self.first.is_none() {
            self.first = Some((Instant::now(), cpu_seconds()));
        }
        match message {
            Message::Assistant(a) => {
                self.assistant += 1;
                for block in a.message.content.iter().flatten() {
                    if let ContentBlock::Text(t) = block {
                        self.text_bytes += t.text.as_deref().map_or(0, str::len);
                    }
                }
                false
            }
            Message::Result(_) => {
                self.other += 1;
                self.end = Some((Instant::now(), cpu_seconds()));
                true
            }
            _ => {
                self.other += 1;
                false
            }
        }
    }

    fn run(&self, frames: u64, side: &str) -> Result<Run, String> {
        let (Some(first), Some(end)) = (self.first, self.end) else {
            return Err(format!("{side}: the run ended without a result"));
        };
        if self.assistant != frames || self.text_bytes == 0 {
            return Err(format!(
                "{side}: expected {frames} assistant messages with text, got {}",
                self.assistant
            ));
        }
        Ok(Run {
            msgs: self.assistant + self.other - 1,
            secs: (end.0 - first.0).as_secs_f64(),
            cpu_secs: end.1 - first.1,
        })
    }
}

/// Side `rust`: the SDK's one-shot `query()` against the fake.
async fn rust_sdk(fake: &std::path::Path, frames: u64) -> Result<Run, String> {
    let options = Options::new()
        .cli_path(fake)
        .env("FAKE_CLAUDE_SCRIPT_JSON", script(frames));
    let mut messages = query("flood", options);
    let mut c = Consumer::default();
    while let Some(m) = messages.next().await {
        c.take(m.map_err(|e| format!("rust: {e}"))?);
    }
    c.run(frames, "rust")
}

/// Side `bare`: spawn, write `initialize` and the turn, read the pipe, split
/// lines, parse each into the typed frame; one task, nothing else.
async fn bare_loop(fake: &std::path::Path, frames: u64) -> Result<Run, String> {
    let io = |e: std::io::Error| format!("bare: {e}");
    let mut child = tokio::process::Command::new(fake)
        .env("FAKE_CLAUDE_SCRIPT_JSON", script(frames))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(io)?;
    let mut stdin = child.stdin.take().ok_or("bare: no stdin")?;
    let mut out = child.stdout.take().ok_or("bare: no stdout")?;
    stdin.write_all(INITIALIZE).await.map_err(io)?;
    stdin.write_all(USER).await.map_err(io)?;
    let mut c = Consumer::default();
    let mut buf = vec![0u8; 64 * 1024];
    let mut partial: Vec<u8> = Vec::new();
    let mut done = false;
    let on_line = |line: &[u8], c: &mut Consumer| -> Result<bool, String> {
        match parse_line(line).map_err(|e| format!("bare: {e}"))? {
            StdoutFrame::Message(m) => Ok(c.take(m)),
            _ => Ok(false), // the initialize reply
        }
    };
    while !done {
        let n = out.read(&mut buf).await.map_err(io)?;
        if n == 0 {
            break;
        }
        let mut chunk = &buf[..n];
        while let Some(i) = memchr::memchr(b'\n', chunk) {
            let line = if partial.is_empty() {
                &chunk[..i]
            } else {
                partial.extend_from_slice(&chunk[..i]);
                &partial[..]
            };
            done |= on_line(line, &mut c)?;
            partial.clear();
            chunk = &chunk[i + 1..];
        }
        partial.extend_from_slice(chunk);
    }
    drop(stdin);
    child.wait().await.map_err(io)?;
    c.run(frames, "bare")
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let args = Args::parse();
    let fake = fake_cli_path().map_err(|e| format!("fake CLI: {e}"))?;
    let (frames, reps) = (args.frames, args.reps.max(1));
    eprintln!(
        "flood: {frames} x {}-byte assistant lines + 1 result, best of {reps}, fake CLI {}",
        ASSISTANT.len(),
        // Relative to the working directory when inside it: results files
        // should not carry this machine's paths.
        std::env::current_dir()
            .ok()
            .and_then(|cwd| fake.strip_prefix(cwd).ok().map(|p| p.display().to_string()))
            .unwrap_or_else(|| fake.display().to_string())
    );
    let on = |side: &str| args.only.as_deref().is_none_or(|o| o == side);
    if !args.no_warmup {
        // Page cache, binary load, allocator.
        if on("rust") {
            rust_sdk(&fake, 10_000).await?;
        }
        if on("bare") {
            bare_loop(&fake, 10_000).await?;
        }
    }
    let python = args.python.as_ref().filter(|_| on("python"));
    match python {
        Some(py) => eprintln!(
            "python: {} with CLAUDE_AGENT_SDK_SKIP_VERSION_CHECK=1 (no `<cli> -v` spawn per session)",
            py.display()
        ),
        None if on("python") => eprintln!("python: skipped (no --python PATH given)"),
        None => {}
    }
    // Interleaved, one run of each side per round, so load from elsewhere
    // on the machine hits all sides alike.
    let (mut rust, mut bare, mut py_runs) = (Vec::new(), Vec::new(), Vec::new());
    let mut about = serde_json::Value::Null;
    for _ in 0..reps {
        if on("rust") {
            rust.push(rust_sdk(&fake, frames).await?);
        }
        if on("bare") {
            bare.push(bare_loop(&fake, frames).await?);
        }
        if let Some(py) = python {
            let (run, a) = python_sdk(py, &fake, frames, script(frames)).await?;
            py_runs.push(run);
            about = a;
        }
    }
    let line = serde_json::json!({"line_bytes": ASSISTANT.len()});
    let sides: Vec<Side> = [
        Side::of("rust", &rust, frames, line.clone()),
        Side::of("bare", &bare, frames, line),
        Side::of("python", &py_runs, frames, about),
    ]
    .into_iter()
    .flatten()
    .collect();
    report(&sides, frames);
    Ok(())
}
