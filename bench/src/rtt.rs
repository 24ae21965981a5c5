//! Pieces of the control round-trip benchmark (c) shared by its program:
//! the fake CLI's `permission_rtt` script and the bare peer that answers it
//! over plain pipes (the floor of the machine and the fake).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;

use crate::{BenchError, Result, ms, read_rtt_file};

/// The fake's script for (c): answer `initialize`, wait for the user turn,
/// ask `count` times `interval_ms` apart, timing into `out`, then emit a
/// `result`. `bench/python/common.py` builds the same one.
pub fn script(count: u64, out: &Path, interval_ms: u64) -> String {
    json!({"steps": [
        {"op": "expect", "type": "control_request", "subtype": "initialize"},
        {"op": "expect", "type": "user"},
        {"op": "permission_rtt", "count": count, "tool": "Bash",
         "out": out.to_string_lossy(), "interval_ms": interval_ms, "timeout_ms": 60_000},
        {"op": "emit", "frame": {"type": "result", "subtype": "success", "is_error": false,
         "duration_ms": 0, "duration_api_ms": 0, "num_turns": 1, "result": "done",
         "session_id": "rtt", "total_cost_usd": 0.0,
         "usage": {"input_tokens": 0, "output_tokens": 0}}}
    ]})
    .to_string()
}
/// The floor: the same fake and script, answered by a plain loop over the
/// pipes (find `"can_use_tool"` in the line, write a canned allow with its
/// id); no SDK, no parsing beyond the id. Returns the round trips (µs) of
/// all `n` sessions and the wall time (ms) from the first prompt to the
/// last result.
pub async fn bare_level(
    fake: &Path,
    n: usize,
    count: u64,
    interval_ms: u64,
) -> Result<(Vec<f64>, f64)> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let io = |what: &str| {
        let what = what.to_owned();
        move |source| BenchError::Io { what, source }
    };
    let dir = tempfile::tempdir().map_err(io("creating a temp dir"))?;
    let outs: Vec<PathBuf> = (0..n)
        .map(|i| dir.path().join(format!("rtt-{i}.txt")))
        .collect();
    let mut children = Vec::new();
    for out in &outs {
        let mut child = tokio::process::Command::new(fake)
            .env("FAKE_CLAUDE_SCRIPT_JSON", script(count, out, interval_ms))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(io("spawning the fake CLI"))?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| BenchError::Session("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Session("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        stdin
            .write_all(b"{\"type\":\"control_request\",\"request_id\":\"i\",\"request\":{\"subtype\":\"initialize\"}}\n")
            .await
            .map_err(io("writing initialize"))?;
        lines
            .next_line()
            .await
            .map_err(io("reading initialize reply"))?;
        children.push((child, stdin, lines));
    }
    let t0 = Instant::now();
    let tasks: Vec<_> = children
        .into_iter()
        .map(|(child, mut stdin, mut lines)| {
            tokio::spawn(async move {
                let user = b"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n";
                stdin.write_all(user).await?;
                while let Some(line) = lines.next_line().await? {
                    if line.contains("\"can_use_tool\"") {
                        let id = line
                            .split("\"request_id\":\"")
                            .nth(1)
                            .and_then(|r| r.split('"').next())
                            .unwrap_or_default();
                        let reply = format!(
                            "{{\"type\":\"control_response\",\"response\":{{\"subtype\":\"success\",\"request_id\":\"{id}\",\"response\":{{\"behavior\":\"allow\",\"updatedInput\":{{}}}}}}}}\n"
                        );
                        stdin.write_all(reply.as_bytes()).await?;
                    } else if line.contains("\"type\":\"result\"") {
                        break;
                    }
                }
                Ok::<_, std::io::Error>((child, stdin))
            })
        })
        .collect();
    let mut done = Vec::new();
    for t in tasks {
        let r = t
            .await
            .map_err(|e| BenchError::Session(format!("task: {e}")))?;
        done.push(r.map_err(io("bare round trips"))?);
    }
    let wall = t0.elapsed();
    for (mut child, stdin) in done {
        drop(stdin);
        child.wait().await.map_err(io("reaping the fake CLI"))?;
    }
    let mut all = Vec::new();
    for out in &outs {
        all.extend(read_rtt_file(out)?);
    }
    Ok((all, ms(wall)))
}
