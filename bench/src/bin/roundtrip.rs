//! (c) Control round-trip latency: N concurrent sessions, each with a
//! permission callback that allows at once; the fake CLI asks `can_use_tool`
//! one request at a time (`permission_rtt`, paced `--interval-ms` apart)
//! and times every round trip on its own clock, so this SDK and the Python
//! SDK are measured by the same code. p50/p99 over all round trips, at
//! 1, 100 and 1,000 sessions. Peers in the same run: a bare loop over the
//! pipes (the floor), the Rust crate `cc-sdk`, and the Python SDK.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin roundtrip [-- --quick]
//! ```

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Parser;
use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
use claude_agent::protocol::{Message, PermissionRequest, PermissionResult};
use claude_agent::{client::Client, client::ClientBuilder, options::Options};
use claude_agent_bench::ccsdk::cc_sdk_level;
use claude_agent_bench::rtt::{bare_level, script};
use claude_agent_bench::{
    BenchError, Result, Summary, default_python, emit, fake_cli, find, ms, raise_nofile, ratio,
    read_rtt_file, run_python,
};
use futures::{StreamExt, TryStreamExt, stream};
use serde_json::{Value, json};

#[derive(Parser, Debug)]
#[command(about = "control round-trip latency, this SDK next to the Python SDK")]
struct Args {
    /// Small sizes, for a smoke run.
    #[arg(long)]
    quick: bool,
    /// Session counts (default 1,100,1000; quick 1,10,50).
    #[arg(long, value_delimiter = ',')]
    sessions: Option<Vec<usize>>,
    /// Pause between two requests of one session.
    #[arg(long, default_value_t = 10)]
    interval_ms: u64,
    /// Round trips per session (default: 500 at 1 session, 50 at 100, 10 at 1,000).
    #[arg(long)]
    count: Option<u64>,
    /// Skip the bare loop (for profilers).
    #[arg(long)]
    no_bare: bool,
    /// Python of the venv with claude-agent-sdk (default .bench/venv).
    #[arg(long)]
    python: Option<PathBuf>,
    /// Skip the Python peer.
    #[arg(long)]
    no_python: bool,
    /// Skip the `cc-sdk` peer.
    #[arg(long)]
    no_cc_sdk: bool,
}

/// Round trips per session: enough samples at every level, a few seconds each.
fn per_session(n: usize) -> u64 {
    match n {
        0..=1 => 500,
        2..=10 => 100,
        11..=100 => 50,
        _ => 10,
    }
}

async fn allow_now(
    _req: PermissionRequest,
    _ctx: PermissionContext,
) -> std::result::Result<PermissionResult, CallbackError> {
    Ok(allow())
}

async fn one_turn(client: Client) -> Result<Client> {
    client
        .send("go")
        .await
        .map_err(|e| BenchError::Session(e.to_string()))?;
    let mut turn = client.receive_response();
    while let Some(m) = turn.next().await {
        if let Message::Result(_) = m.map_err(|e| BenchError::Session(e.to_string()))? {
            break;
        }
    }
    drop(turn);
    Ok(client)
}

/// One level: connect `n` sessions, start them all, collect the fake's
/// round-trip times (µs), shut everything down.
async fn level(fake: &Path, n: usize, count: u64, interval_ms: u64) -> Result<(Vec<f64>, f64)> {
    let dir = tempfile::tempdir().map_err(|source| BenchError::Io {
        what: "creating a temp dir".into(),
        source,
    })?;
    let outs: Vec<PathBuf> = (0..n)
        .map(|i| dir.path().join(format!("rtt-{i}.txt")))
        .collect();
    let clients: Vec<Client> = stream::iter(outs.iter().map(|out| {
        let opts = Options::new()
            .cli_path(fake)
            .env("FAKE_CLAUDE_SCRIPT_JSON", script(count, out, interval_ms));
        ClientBuilder::new(opts).can_use_tool(allow_now).connect()
    }))
    .buffer_unordered(64)
    .map_err(|e| BenchError::Session(e.to_string()))
    .try_collect()
    .await?;
    let t0 = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|c| tokio::spawn(one_turn(c)))
        .collect();
    let mut done = Vec::with_capacity(n);
    for t in tasks {
        done.push(
            t.await
                .map_err(|e| BenchError::Session(format!("task: {e}")))??,
        );
    }
    let wall = t0.elapsed();
    futures::future::join_all(done.iter().map(Client::shutdown)).await;
    let mut all = Vec::new();
    for out in &outs {
        all.extend(read_rtt_file(out)?);
    }
    Ok((all, ms(wall)))
}

fn row(side: &str, n: usize, s: &Summary, wall_ms: f64) -> Value {
    json!({"bench": "roundtrip", "side": side, "sessions": n, "round_trips": s.n,
        "p50_us": s.p50, "p99_us": s.p99, "max_us": s.max, "mean_us": s.mean,
        "wall_ms": wall_ms})
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Args::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("roundtrip: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<()> {
    let levels = args.sessions.clone().unwrap_or(if args.quick {
        vec![1, 10, 50]
    } else {
        vec![1, 100, 1000]
    });
    let fake = fake_cli()?;
    let max = levels.iter().copied().max().unwrap_or(1) as u64;
    raise_nofile(max * 8 + 256);
    let mut rust_rows = Vec::new();
    let mut bare_rows = Vec::new();
    let mut cc_rows = Vec::new();
    for &n in &levels {
        let count = args.count.unwrap_or_else(|| per_session(n));
        if !args.no_bare {
            let (rtts, wall) = bare_level(&fake, n, count, args.interval_ms).await?;
            let r = row("bare", n, &Summary::of(&rtts), wall);
            emit(&r);
            bare_rows.push(r);
        }
        let (rtts, wall) = level(&fake, n, count, args.interval_ms).await?;
        let r = row("rust", n, &Summary::of(&rtts), wall);
        emit(&r);
        rust_rows.push(r);
        if !args.no_cc_sdk {
            let (rtts, wall) = cc_sdk_level(&fake, n, count, args.interval_ms).await?;
            let r = row("cc-sdk", n, &Summary::of(&rtts), wall);
            emit(&r);
            cc_rows.push(r);
        }
    }
    let python = if args.no_python {
        None
    } else {
        args.python.clone().or_else(default_python)
    };
    let py_rows = match &python {
        Some(py) => {
            let levels_arg = levels
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(",");
            let mut py_args = vec![
                "--cli".into(),
                fake.to_string_lossy().into_owned(),
                "--sessions".into(),
                levels_arg,
                "--interval-ms".into(),
                args.interval_ms.to_string(),
            ];
            if let Some(c) = args.count {
                py_args.extend(["--count".into(), c.to_string()]);
            }
            let rows = run_python(py, "roundtrip.py", &py_args)?;
            for r in &rows {
                emit(r);
            }
            rows
        }
        None => Vec::new(),
    };
    eprintln!(
        "\n(c) control round trip (can_use_tool -> allow), timed by the fake CLI, {} ms apart per session",
        args.interval_ms
    );
    eprintln!(
        "{:>8} {:>7} | {:>15} | {:>15} | {:>15} | {:>15} | {:>8} {:>8} {:>8} {:>8}",
        "sessions",
        "rtts",
        "bare p50/p99",
        "ours p50/p99",
        "cc-sdk p50/p99",
        "py p50/p99",
        "50 /bare",
        "99 /py",
        "50 /cc",
        "99 /cc"
    );
    for r in &rust_rows {
        let n = r["sessions"].clone();
        let at = |rows: &[Value]| find(rows, &[("sessions", n.clone())]).cloned();
        let (bare, cc, py) = (at(&bare_rows), at(&cc_rows), at(&py_rows));
        let f = |v: &Option<Value>, k: &str| v.as_ref().and_then(|v| v[k].as_f64());
        let ours = Some(r.clone());
        let pair = |v: &Option<Value>| match (f(v, "p50_us"), f(v, "p99_us")) {
            (Some(a), Some(b)) => format!("{a:.0}/{b:.0} us"),
            _ => "-".to_owned(),
        };
        let p50 = f(&ours, "p50_us").unwrap_or(f64::NAN);
        let p99 = f(&ours, "p99_us").unwrap_or(f64::NAN);
        let ratios = (
            ratio(p50, f(&bare, "p50_us")),
            ratio(p99, f(&py, "p99_us")),
            ratio(p50, f(&cc, "p50_us")),
            ratio(p99, f(&cc, "p99_us")),
        );
        eprintln!(
            "{:>8} {:>7} | {:>15} | {:>15} | {:>15} | {:>15} | {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
            n,
            r["round_trips"],
            pair(&bare),
            pair(&ours),
            pair(&cc),
            pair(&py),
            ratios.0,
            ratios.1,
            ratios.2,
            ratios.3
        );
        emit(
            &json!({"bench": "roundtrip", "side": "ratio", "sessions": n,
            "p50_rust_over_bare": ratios.0, "p99_rust_over_python": ratios.1,
            "p50_rust_over_cc_sdk": ratios.2, "p99_rust_over_cc_sdk": ratios.3,
            "p50_rust_over_python": ratio(p50, f(&py, "p50_us"))}),
        );
    }
    Ok(())
}
