//! (b) 1,000 concurrent sessions on a light fake CLI (its default script:
//! answer `initialize`, answer each turn with three frames, exit on EOF):
//!
//! - jobs: 1,000 one-turn jobs through `Host::submit` (all admitted at
//!   once), wall time from the first submit to the last outcome;
//! - idle: 1,000 interactive sessions through `Host::spawn`, all connected
//!   and idle: host RSS delta / 1,000 (this process only, not the CLIs),
//!   open file descriptors per session, and host CPU per connect;
//! - drain: `Host::drain` of those 1,000, timed.
//!
//! The Rust peers `claude-agent-sdk-rs` 0.6.4 and `cc-sdk` 0.8.1 do the
//! same through their own APIs (`bench/src/sdkrs.rs`,
//! `bench/src/ccsdk_concurrent.rs`); host CPU per job counts this process
//! and its helper processes (our keeper), never the CLIs.
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
use claude_agent::{client::ClientBuilder, options::Options};
use claude_agent_bench::cpu::HostCpu;
use claude_agent_bench::{
    BenchError, Result, Summary, default_python, emit, fake_cli, find, ms, open_fds, raise_nofile,
    ratio, rss_kib, run_python,
};
use claude_agent_bench::{ccsdk_concurrent, ours_client, sdkrs};
use serde_json::{Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Phase {
    Jobs,
    Idle,
}

/// Which SDK a phase process drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Side {
    /// This SDK (`Host`).
    Rust,
    /// This SDK without the `Host`: `ClientBuilder::connect` per session,
    /// as the Rust peers connect theirs.
    Client,
    /// `claude-agent-sdk-rs` 0.6.4.
    Sdkrs,
    /// `cc-sdk` 0.8.1.
    Ccsdk,
}

impl Side {
    fn arg(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Client => "client",
            Self::Sdkrs => "sdkrs",
            Self::Ccsdk => "ccsdk",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Client => "rust (Client)",
            Self::Sdkrs => "claude-agent-sdk-rs",
            Self::Ccsdk => "cc-sdk",
        }
    }
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
    /// The SDK the phase drives (used internally).
    #[arg(long, value_enum, default_value = "rust")]
    side: Side,
    /// Skip the Rust peers.
    #[arg(long)]
    no_peers: bool,
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
    let cpu = HostCpu::start(fake);
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
    let (cpu_self_ms, cpu_helpers_ms) = (cpu.self_ms(), cpu.helpers_ms());
    let (sys_ms, switches) = (cpu.sys_ms(), cpu.switches());
    let cpu_ms = cpu_self_ms + cpu_helpers_ms;
    host.drain(DrainOptions::new(Duration::from_secs(10))).await;
    let t = Summary::of(&turn);
    Ok(
        json!({"bench": "concurrent", "side": "rust", "phase": "jobs", "sessions": n,
        "completed": ok, "wall_ms": ms(wall), "cpu_ms": cpu_ms, "cpu_self_ms": cpu_self_ms,
        "cpu_helpers_ms": cpu_helpers_ms, "cpu_ms_per_session": cpu_ms / n as f64,
        "sys_ms_per_session": sys_ms / n as f64, "switches_per_session": switches / n as f64, "turn_p50_ms": t.p50, "turn_p99_ms": t.p99}),
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
    let fds_before = open_fds().unwrap_or(0);
    let cpu = HostCpu::start(fake);
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
    let connect_cpu_ms = cpu.elapsed_ms();
    let after = rss_kib().unwrap_or(0);
    let fds_after = open_fds().unwrap_or(0);
    let t1 = Instant::now();
    let report = host.drain(DrainOptions::new(Duration::from_secs(30))).await;
    let drain = t1.elapsed();
    let per = after.saturating_sub(before) as f64 / n as f64;
    Ok(
        json!({"bench": "concurrent", "side": "rust", "phase": "idle", "sessions": n,
        "connect_all_ms": ms(connect), "rss_before_kib": before, "rss_after_kib": after,
        "kib_per_session": per,
        "fds_per_session": fds_after.saturating_sub(fds_before) as f64 / n as f64,
        "connect_cpu_ms_per_session": connect_cpu_ms / n as f64, "drain_ms": ms(drain),
        "drain_ended_in_time": report.ended_in_time,
        "drain_killed": report.killed_at_deadline, "drain_unresolved": report.unresolved}),
    )
}

/// Runs one phase in a fresh copy of this program; returns its JSON line.
fn child_phase(phase: &str, side: Side, n: usize) -> Result<Value> {
    let exe = std::env::current_exe().map_err(|source| BenchError::Io {
        what: "finding this program".into(),
        source,
    })?;
    let out = std::process::Command::new(exe)
        .args(["--phase", phase, "--sessions", &n.to_string()])
        .args(["--side", side.arg()])
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
            match (args.side, phase) {
                (Side::Rust, Phase::Jobs) => jobs(&fake, n).await,
                (Side::Rust, Phase::Idle) => idle(&fake, n).await,
                (Side::Client, Phase::Jobs) => {
                    Ok(ours_client::jobs(&fake, n).await?.row("client", n))
                }
                (Side::Client, Phase::Idle) => {
                    Ok(ours_client::idle(&fake, n).await?.row("client", n))
                }
                (Side::Sdkrs, Phase::Jobs) => {
                    Ok(sdkrs::jobs(&fake, n).await?.row("claude-agent-sdk-rs", n))
                }
                (Side::Sdkrs, Phase::Idle) => {
                    Ok(sdkrs::idle(&fake, n).await?.row("claude-agent-sdk-rs", n))
                }
                (Side::Ccsdk, Phase::Jobs) => {
                    Ok(ccsdk_concurrent::jobs(&fake, n).await?.row("cc-sdk", n))
                }
                (Side::Ccsdk, Phase::Idle) => {
                    Ok(ccsdk_concurrent::idle(&fake, n).await?.row("cc-sdk", n))
                }
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
    let sides: &[Side] = if args.no_peers {
        &[Side::Rust, Side::Client]
    } else {
        &[Side::Rust, Side::Client, Side::Sdkrs, Side::Ccsdk]
    };
    // Jobs repetitions interleave the sides, so a slow patch of the
    // machine does not land on one side only.
    let mut jobs_rows: Vec<Vec<Value>> = vec![Vec::new(); sides.len()];
    for _ in 0..reps {
        for (i, side) in sides.iter().enumerate() {
            jobs_rows[i].push(child_phase("jobs", *side, n)?);
        }
    }
    let mut rows = Vec::new();
    for (i, side) in sides.iter().enumerate() {
        let best = best_of(std::mem::take(&mut jobs_rows[i]));
        emit(&best);
        let idle = child_phase("idle", *side, n)?;
        emit(&idle);
        rows.push((side.label(), best, idle));
    }

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
    table(n, reps, &rows, &py_rows);
    Ok(())
}

/// One side's best jobs row and its idle row.
type SideRows = (&'static str, Value, Value);

fn table(n: usize, reps: usize, sides: &[SideRows], py_rows: &[Value]) {
    let f = |v: Option<&Value>, k: &str| v.and_then(|v| v[k].as_f64());
    let py_jobs = find(py_rows, &[("phase", json!("jobs"))]);
    let py_idle = find(py_rows, &[("phase", json!("idle"))]);
    let show = |v: Option<f64>| v.map_or("-".to_owned(), |v| format!("{v:.1}"));
    eprintln!(
        "\n(b) {n} concurrent sessions on the fake CLI's default script (jobs: best of {reps})"
    );
    let figures: [(&str, &str, &str); 9] = [
        ("jobs: wall time, all done (ms)", "jobs", "wall_ms"),
        ("jobs: host CPU per job (ms)", "jobs", "cpu_ms_per_session"),
        ("jobs: of which kernel (ms)", "jobs", "sys_ms_per_session"),
        (
            "jobs: context switches per job",
            "jobs",
            "switches_per_session",
        ),
        ("idle: connect all (ms)", "idle", "connect_all_ms"),
        (
            "idle: connect CPU per session (ms)",
            "idle",
            "connect_cpu_ms_per_session",
        ),
        (
            "idle: host memory per session (KiB)",
            "idle",
            "kib_per_session",
        ),
        (
            "idle: file descriptors per session",
            "idle",
            "fds_per_session",
        ),
        ("drain / disconnect all (ms)", "idle", "drain_ms"),
    ];
    let mut header = format!("{:<38}", "figure");
    for (label, _, _) in sides {
        header.push_str(&format!(" {label:>20}"));
    }
    eprintln!("{header} {:>10}", "python");
    let value = |side: &SideRows, phase: &str, key: &str| {
        f(Some(if phase == "jobs" { &side.1 } else { &side.2 }), key)
    };
    let mut ratios = serde_json::Map::new();
    for (name, phase, key) in figures {
        let mut line = format!("{name:<38}");
        for side in sides {
            line.push_str(&format!(" {:>20}", show(value(side, phase, key))));
        }
        let py = f(if phase == "jobs" { py_jobs } else { py_idle }, key);
        eprintln!("{line} {:>10}", show(py));
        // Each of our sides (the `Host`, then the bare `Client`) over
        // Python and each peer.
        for (ours_label, ours_side) in sides.iter().take(2).map(|s| (s.0, s)) {
            let Some(ours) = value(ours_side, phase, key) else {
                continue;
            };
            let mut r = serde_json::Map::new();
            r.insert("python".to_owned(), json!(ratio(ours, py)));
            for side in sides.iter().skip(2) {
                r.insert(
                    side.0.to_owned(),
                    json!(ratio(ours, value(side, phase, key))),
                );
            }
            ratios.insert(format!("{ours_label}: {key}/{phase}"), json!(r));
        }
    }
    eprintln!("ours / peer:");
    for (k, r) in &ratios {
        let parts: Vec<String> = r
            .as_object()
            .into_iter()
            .flatten()
            .map(|(peer, q)| format!("{peer} {:.3}", q.as_f64().unwrap_or(f64::NAN)))
            .collect();
        eprintln!("  {k:<32} {}", parts.join(", "));
    }
    // Not comparable, so not a ratio: the Rust figure is prompt -> result,
    // Python's query() -> result (spawn and initialize included).
    if let Some(ours) = sides.first() {
        eprintln!(
            "jobs: turn latency (prompt -> result), rust only: p50 {} ms p99 {} ms",
            show(f(Some(&ours.1), "turn_p50_ms")),
            show(f(Some(&ours.1), "turn_p99_ms"))
        );
    }
    emit(&json!({"bench": "concurrent", "side": "ratio", "sessions": n, "rust_over_peer": ratios}));
}
