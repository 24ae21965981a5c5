//! Diagnosis for (b): what starting many sessions costs, and where. N
//! runtime sessions (`claude_agent_actors::Session`, no SDK layer) started
//! concurrently against the fake CLI's default script, with and without the
//! parent-death signal (its `pre_exec` hook makes std `fork` instead of
//! `posix_spawn`), next to bare children (tokio `Command`, piped stdio, one
//! reader task, no hook). Prints wall time to start all, and the host RSS
//! and malloc'd-heap deltas per session; each variant runs in a fresh
//! process.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin spawn_cost [-- --sessions 1000]
//! ```

use std::process::Stdio;
use std::time::Instant;

use clap::{Parser, ValueEnum};
use claude_agent_actors::process::ProcessSpec;
use claude_agent_actors::{Session, SessionConfig};
use claude_agent_bench::{BenchError, Result, emit, fake_cli, heap_kib, ms, raise_nofile, rss_kib};
use futures::{StreamExt, TryStreamExt, stream};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Variant {
    /// Runtime sessions, parent-death signal on (the default): fork + exec.
    Fork,
    /// Runtime sessions, parent-death signal off: posix_spawn.
    Spawn,
    /// Bare children: tokio Command, piped stdio, one reader task.
    Bare,
}

#[derive(Parser, Debug)]
struct Args {
    /// Sessions per variant.
    #[arg(long, default_value_t = 1000)]
    sessions: usize,
    /// Run one variant in this process (used internally).
    #[arg(long, value_enum)]
    variant: Option<Variant>,
}

fn err(e: impl std::fmt::Display) -> BenchError {
    BenchError::Session(e.to_string())
}

async fn sessions(n: usize, pdeathsig: bool) -> Result<(f64, f64, f64)> {
    let fake = fake_cli()?;
    let spec = || {
        let mut s = ProcessSpec::new(&fake);
        s.parent_death_signal = pdeathsig;
        SessionConfig::subprocess(s)
    };
    let (s, _f) = Session::start(spec()).await.map_err(err)?;
    s.shutdown().await;
    let before = rss_kib().unwrap_or(0);
    let heap_before = heap_kib().unwrap_or(0);
    let t0 = Instant::now();
    let all: Vec<_> = stream::iter((0..n).map(|_| Session::start(spec())))
        .buffer_unordered(n)
        .map_err(err)
        .try_collect()
        .await?;
    let wall = ms(t0.elapsed());
    let per = rss_kib().unwrap_or(0).saturating_sub(before) as f64 / n as f64;
    let heap = heap_kib().unwrap_or(0).saturating_sub(heap_before) as f64 / n as f64;
    futures::future::join_all(all.iter().map(|(s, _)| s.shutdown())).await;
    Ok((wall, per, heap))
}

async fn bare(n: usize) -> Result<(f64, f64, f64)> {
    let fake = fake_cli()?;
    let before = rss_kib().unwrap_or(0);
    let heap_before = heap_kib().unwrap_or(0);
    let t0 = Instant::now();
    let mut all = Vec::new();
    for _ in 0..n {
        let mut child = tokio::process::Command::new(&fake)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(err)?;
        let mut stdin = child.stdin.take().ok_or_else(|| err("no stdin"))?;
        let init = b"{\"type\":\"control_request\",\"request_id\":\"r1\",\"request\":{\"subtype\":\"initialize\"}}\n";
        stdin.write_all(init).await.map_err(err)?;
        let mut out = child.stdout.take().ok_or_else(|| err("no stdout"))?;
        let mut first = [0u8; 1];
        out.read_exact(&mut first).await.map_err(err)?;
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; 8 * 1024];
            while out.read(&mut buf).await.map(|n| n > 0).unwrap_or(false) {}
        });
        all.push((child, stdin, reader));
    }
    let wall = ms(t0.elapsed());
    let per = rss_kib().unwrap_or(0).saturating_sub(before) as f64 / n as f64;
    let heap = heap_kib().unwrap_or(0).saturating_sub(heap_before) as f64 / n as f64;
    for (mut child, stdin, reader) in all {
        drop(stdin);
        child.wait().await.map_err(err)?;
        reader.abort();
    }
    Ok((wall, per, heap))
}

fn main() -> std::process::ExitCode {
    match run(Args::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("spawn_cost: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let n = args.sessions;
    raise_nofile(n as u64 * 8 + 256);
    if let Some(v) = args.variant {
        let rt = tokio::runtime::Runtime::new().map_err(err)?;
        let (wall, per, heap) = rt.block_on(async {
            match v {
                Variant::Fork => sessions(n, true).await,
                Variant::Spawn => sessions(n, false).await,
                Variant::Bare => bare(n).await,
            }
        })?;
        emit(
            &json!({"bench": "spawn_cost", "variant": format!("{v:?}").to_lowercase(),
            "sessions": n, "start_all_ms": wall, "kib_per_session": per, "heap_kib_per_session": heap}),
        );
        return Ok(());
    }
    let exe = std::env::current_exe().map_err(err)?;
    eprintln!("{n} sessions started at once; host RSS delta / {n}");
    for v in ["fork", "spawn", "bare"] {
        let out = std::process::Command::new(&exe)
            .args(["--variant", v, "--sessions", &n.to_string()])
            .stderr(Stdio::inherit())
            .output()
            .map_err(err)?;
        let text = String::from_utf8_lossy(&out.stdout);
        print!("{text}");
        if let Some(row) = text
            .lines()
            .find_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        {
            let f = |k: &str| row[k].as_f64().unwrap_or(f64::NAN);
            eprintln!(
                "{:<6} start all {:>9.1} ms   RSS {:>6.1} KiB/session   heap {:>6.1} KiB/session",
                v,
                f("start_all_ms"),
                f("kib_per_session"),
                f("heap_kib_per_session")
            );
        }
    }
    Ok(())
}
