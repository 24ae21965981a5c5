//! (b) 1,000 concurrent sessions on a light fake CLI (its default script:
//! answer `initialize`, answer each turn with three frames, exit on EOF):
//!
//! - jobs: 1,000 one-turn jobs through `Host::submit` (all admitted at
//!   once), wall time from the first submit to the last outcome;
//! - idle: 1,000 interactive sessions through `Host::spawn`, all connected
//!   and idle: host RSS delta / 1,000 (this process only, not the CLIs);
//! - drain: `Host::drain` of those 1,000, timed.
//!
//! The Python SDK does the same with 1,000 `query()`s under
//! `asyncio.gather`, then 1,000 connected `ClaudeSDKClient`s and a
//! `disconnect()` of all of them (`bench/python/concurrent_sessions.py`; not `concurrent.py`, which would shadow the standard library's `concurrent` package). Each phase
//! runs in a fresh process (this program re-executes itself) so allocator
//! state from one phase does not flatter the next.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin concurrent [-- --quick]
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use claude_agent::host::{DrainOptions, Host, HostConfig, RestartPolicy, SessionHandle};
use claude_agent::{ClientBuilder, Options};
use claude_agent_bench::{
    BenchError, Result, Summary, default_python, emit, fake_cli, find, ms, raise_nofile, ratio,
    rss_kib, run_python,
};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Phase {
    Jobs,
    Idle,
}

#[derive(Parser, Debug)]
#[command(about = "1,000 concurrent sessions: wall time, memory per session, drain")]
struct Args {
    /// Small sizes, for a smoke run (100 sessions).
    #[arg(long)]
    quick: bool,
    /// Sessions (default 1000; quick 100).
    #[arg(long)]
    sessions: Option<usize>,
    /// Repetitions of the jobs phase (best is reported).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// Run one phase in this process and print its JSON (used internally).
    #[arg(long, value_enum)]
    phase: Option<Phase>,
    /// Python of the venv with claude-agent-sdk (default .bench/venv).
    #[arg(long)]
    python: Option<PathBuf>,
    /// Skip the Python peer.
    #[arg(long)]
    no_python: bool,
}

fn builder(fake: &Path) -> ClientBuilder {
    ClientBuilder::new(Options::new().cli_path(fake))
}

async fn host(n: usize) -> Result<Host> {
    Host::start(
        HostConfig::new()
            .max_sessions(n)
            .max_per_tenant(n)
            .max_queued(n)
            .max_queued_per_tenant(n)
            .restart(RestartPolicy::Never),
    )
    .await
    .map_err(|e| BenchError::Session(e.to_string()))
}

fn session_err(e: impl std::fmt::Display) -> BenchError {
    BenchError::Session(e.to_string())
}

async fn jobs(fake: &Path, n: usize) -> Result<Value> {
    let host = host(n).await?;
    // Warm up (lazy statics, the fake's page cache) outside the clock.
    let h = host
        .submit("warm", builder(fake), "hi")
        .await
        .map_err(session_err)?;
    h.outcome().await;
    let t0 = Instant::now();
    let mut handles = Vec::with_capacity(n);
    for i in 0..n {
        let tenant = format!("t{}", i % 10);
        handles.push(
            host.submit(tenant, builder(fake), "hi")
                .await
                .map_err(session_err)?,
        );
    }
    let mut ok = 0usize;
    let mut turn = Vec::with_capacity(n);
    for h in &handles {
        let out = h.outcome().await;
        if out.is_success() {
            ok += 1;
        }
        turn.extend(out.turn_latency.map(ms));
    }
    let wall = t0.elapsed();
    host.drain(DrainOptions::new(Duration::from_secs(10))).await;
    let t = Summary::of(&turn);
    Ok(
        json!({"bench": "concurrent", "side": "rust", "phase": "jobs", "sessions": n,
        "completed": ok, "wall_ms": ms(wall), "turn_p50_ms": t.p50, "turn_p99_ms": t.p99}),
    )
}

async fn idle(fake: &Path, n: usize) -> Result<Value> {
    let host = host(n).await?;
    let warm = host
        .spawn("warm", builder(fake))
        .await
        .map_err(session_err)?;
    warm.client().await.map_err(session_err)?.shutdown().await;
    warm.outcome().await;
    let before = rss_kib().unwrap_or(0);
    let t0 = Instant::now();
    let mut handles: Vec<SessionHandle> = Vec::with_capacity(n);
    for i in 0..n {
        let tenant = format!("t{}", i % 10);
        handles.push(
            host.spawn(tenant, builder(fake))
                .await
                .map_err(session_err)?,
        );
    }
    for h in &handles {
        h.client().await.map_err(session_err)?;
    }
    let connect = t0.elapsed();
    let after = rss_kib().unwrap_or(0);
    let t1 = Instant::now();
    let report = host.drain(DrainOptions::new(Duration::from_secs(30))).await;
    let drain = t1.elapsed();
    let per = after.saturating_sub(before) as f64 / n as f64;
    Ok(
        json!({"bench": "concurrent", "side": "rust", "phase": "idle", "sessions": n,
        "connect_all_ms": ms(connect), "rss_before_kib": before, "rss_after_kib": after,
        "kib_per_session": per, "drain_ms": ms(drain),
        "drain_ended_in_time": report.ended_in_time,
        "drain_killed": report.killed_at_deadline, "drain_unresolved": report.unresolved}),
    )
}

/// Runs one phase in a fresh copy of this program; returns its JSON line.
fn child_phase(phase: &str, n: usize) -> Result<Value> {
    let exe = std::env::current_exe().map_err(|source| BenchError::Io {
        what: "finding this program".into(),
        source,
    })?;
    let out = std::process::Command::new(exe)
        .args(["--phase", phase, "--sessions", &n.to_string()])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|source| BenchError::Io {
            what: format!("running phase {phase}"),
            source,
        })?;
    if !out.status.success() {
        return Err(BenchError::Session(format!(
            "phase {phase} failed: {}",
            out.status
        )));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| BenchError::Session(format!("phase {phase} printed no figure")))
}

fn main() -> std::process::ExitCode {
    match run(Args::parse()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("concurrent: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(args: Args) -> Result<()> {
    let n = args.sessions.unwrap_or(if args.quick { 100 } else { 1000 });
    raise_nofile(n as u64 * 8 + 256);
    if let Some(phase) = args.phase {
        let fake = fake_cli()?;
        let rt = tokio::runtime::Runtime::new().map_err(|source| BenchError::Io {
            what: "starting the runtime".into(),
            source,
        })?;
        let v = rt.block_on(async {
            match phase {
                Phase::Jobs => jobs(&fake, n).await,
                Phase::Idle => idle(&fake, n).await,
            }
        })?;
        emit(&v);
        return Ok(());
    }
    let fake = fake_cli()?;
    let reps = if args.quick { 1 } else { args.reps.max(1) };
    let best_of = |rows: Vec<Value>| {
        rows.into_iter()
            .min_by(|a, b| {
                let w = |v: &Value| v["wall_ms"].as_f64().unwrap_or(f64::MAX);
                w(a).total_cmp(&w(b))
            })
            .unwrap_or(Value::Null)
    };
    let mut rust_jobs = Vec::new();
    for _ in 0..reps {
        rust_jobs.push(child_phase("jobs", n)?);
    }
    let rust_jobs = best_of(rust_jobs);
    emit(&rust_jobs);
    let rust_idle = child_phase("idle", n)?;
    emit(&rust_idle);

    let python = if args.no_python {
        None
    } else {
        args.python.clone().or_else(default_python)
    };
    let mut py_rows = Vec::new();
    if let Some(py) = &python {
        let base = vec![
            "--cli".to_owned(),
            fake.to_string_lossy().into_owned(),
            "--sessions".to_owned(),
            n.to_string(),
        ];
        let mut jobs = Vec::new();
        for _ in 0..reps {
            let mut a = base.clone();
            a.extend(["--phase".to_owned(), "jobs".to_owned()]);
            jobs.extend(run_python(py, "concurrent_sessions.py", &a)?);
        }
        let best = best_of(jobs);
        emit(&best);
        py_rows.push(best);
        let mut a = base.clone();
        a.extend(["--phase".to_owned(), "idle".to_owned()]);
        for r in run_python(py, "concurrent_sessions.py", &a)? {
            emit(&r);
            py_rows.push(r);
        }
    }
    table(n, reps, &rust_jobs, &rust_idle, &py_rows);
    Ok(())
}

fn table(n: usize, reps: usize, jobs: &Value, idle: &Value, py_rows: &[Value]) {
    let f = |v: Option<&Value>, k: &str| v.and_then(|v| v[k].as_f64());
    let py_jobs = find(py_rows, &[("phase", json!("jobs"))]);
    let py_idle = find(py_rows, &[("phase", json!("idle"))]);
    let show = |v: Option<f64>, unit: &str| v.map_or("-".to_owned(), |v| format!("{v:.1} {unit}"));
    eprintln!(
        "\n(b) {n} concurrent sessions on the fake CLI's default script (jobs: best of {reps})"
    );
    eprintln!(
        "{:<34} {:>14} {:>14} {:>12}",
        "figure", "rust", "python", "rust/python"
    );
    let rows = [
        (
            "jobs: wall time, all done",
            f(Some(jobs), "wall_ms"),
            f(py_jobs, "wall_ms"),
            "ms",
        ),
        (
            "idle: host memory per session",
            f(Some(idle), "kib_per_session"),
            f(py_idle, "kib_per_session"),
            "KiB",
        ),
        (
            "idle: connect all",
            f(Some(idle), "connect_all_ms"),
            f(py_idle, "connect_all_ms"),
            "ms",
        ),
        (
            "drain / disconnect all",
            f(Some(idle), "drain_ms"),
            f(py_idle, "drain_ms"),
            "ms",
        ),
    ];
    let mut ratios = serde_json::Map::new();
    for (name, r, p, unit) in rows {
        let q = ratio(r.unwrap_or(f64::NAN), p);
        eprintln!(
            "{:<34} {:>14} {:>14} {:>12.3}",
            name,
            show(r, unit),
            show(p, unit),
            q
        );
        ratios.insert(name.to_owned(), json!(q));
    }
    // Not comparable, so not a ratio: the Rust figure is prompt -> result,
    // Python's query() -> result (spawn and initialize included).
    eprintln!(
        "jobs: turn latency (prompt -> result), rust only: p50 {} p99 {}",
        show(f(Some(jobs), "turn_p50_ms"), "ms"),
        show(f(Some(jobs), "turn_p99_ms"), "ms")
    );
    emit(
        &json!({"bench": "concurrent", "side": "ratio", "sessions": n,
        "rust_over_python": ratios}),
    );
}
