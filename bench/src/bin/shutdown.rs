//! (d) Shutdown accuracy: time from `shutdown()` to the report for a fake
//! CLI that ignores stdin EOF and SIGTERM (`ignore_signal TERM` + `hang`),
//! against the configured ladder. Our ladder is EOF -> `grace` -> SIGTERM
//! to the group -> `term_grace` -> SIGKILL -> reap; here `term_grace =
//! grace`, so the configured total is `2 x grace`, and the overshoot is
//! measured minus that. Also: a fake that exits on EOF (no escalation), and
//! the Python SDK's fixed 5 s + 5 s ladder next to ours set to the same.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin shutdown [-- --quick]
//! ```

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Parser;
use claude_agent::{
    client::Client, client::ClientBuilder, options::Options, runtime::Escalation,
    runtime::ShutdownReport,
};
use claude_agent_bench::{
    BenchError, Result, Summary, default_python, emit, fake_cli, find, ms, run_python,
};
use serde_json::{Value, json};

#[derive(Parser, Debug)]
#[command(about = "shutdown escalation time against the configured grace")]
struct Args {
    /// Small sizes, for a smoke run (skips the 5 s + 5 s comparison).
    #[arg(long)]
    quick: bool,
    /// Graces to test, in ms (term_grace = grace); default 100,500,1000,2000.
    #[arg(long, value_delimiter = ',')]
    graces: Option<Vec<u64>>,
    /// Python of the venv with claude-agent-sdk (default .bench/venv).
    #[arg(long)]
    python: Option<PathBuf>,
    /// Skip the Python peer.
    #[arg(long)]
    no_python: bool,
}

fn stubborn() -> String {
    json!([
        {"op": "expect", "type": "control_request", "subtype": "initialize"},
        {"op": "ignore_signal", "signal": "TERM"},
        {"op": "hang"}
    ])
    .to_string()
}

fn polite() -> String {
    json!([
        {"op": "expect", "type": "control_request", "subtype": "initialize"},
        {"op": "loop_turns", "text": "x"}
    ])
    .to_string()
}

async fn connect(fake: &Path, script: String, grace: Duration) -> Result<Client> {
    let opts = Options::new()
        .cli_path(fake)
        .env("FAKE_CLAUDE_SCRIPT_JSON", script);
    ClientBuilder::new(opts)
        .grace(grace)
        .term_grace(grace)
        .connect()
        .await
        .map_err(|e| BenchError::Session(e.to_string()))
}

async fn timed(client: &Client) -> (f64, ShutdownReport) {
    let t0 = Instant::now();
    let report = client.shutdown().await;
    (ms(t0.elapsed()), report.runtime)
}

fn check(report: &ShutdownReport, want: Escalation) -> Result<()> {
    if report.escalation == want {
        Ok(())
    } else {
        Err(BenchError::Session(format!(
            "expected escalation {want:?}, report says {:?}",
            report.escalation
        )))
    }
}

/// `runs` stubborn sessions, one after another (or all at once).
async fn stubborn_case(
    fake: &Path,
    grace: Duration,
    runs: usize,
    concurrent: bool,
) -> Result<Value> {
    let mut times = Vec::new();
    let mut term = Vec::new();
    let mut kill = Vec::new();
    let mut record = |(t, r): (f64, ShutdownReport)| -> Result<()> {
        check(&r, Escalation::Kill)?;
        times.push(t);
        term.extend(r.timings.term_sent.map(ms));
        kill.extend(r.timings.kill_sent.map(ms));
        Ok(())
    };
    if concurrent {
        let mut clients = Vec::new();
        for _ in 0..runs {
            clients.push(connect(fake, stubborn(), grace).await?);
        }
        for r in futures::future::join_all(clients.iter().map(timed)).await {
            record(r)?;
        }
    } else {
        for _ in 0..runs {
            let c = connect(fake, stubborn(), grace).await?;
            record(timed(&c).await)?;
        }
    }
    let g = ms(grace);
    let total = 2.0 * g;
    let s = Summary::of(&times);
    Ok(
        json!({"bench": "shutdown", "side": "rust", "case": "stubborn",
        "grace_ms": g, "term_grace_ms": g, "configured_total_ms": total,
        "runs": s.n, "median_ms": s.p50, "max_ms": s.max,
        "overshoot_ms": s.p50 - total, "max_overshoot_ms": s.max - total,
        "term_sent_median_ms": Summary::of(&term).p50,
        "kill_sent_median_ms": Summary::of(&kill).p50}),
    )
}

async fn polite_case(fake: &Path, runs: usize) -> Result<Value> {
    let grace = Duration::from_secs(5);
    let mut times = Vec::new();
    for _ in 0..runs {
        let c = connect(fake, polite(), grace).await?;
        let (t, r) = timed(&c).await;
        check(&r, Escalation::None)?;
        times.push(t);
    }
    let s = Summary::of(&times);
    Ok(
        json!({"bench": "shutdown", "side": "rust", "case": "polite",
        "grace_ms": ms(grace), "term_grace_ms": ms(grace),
        "configured_total_ms": 2.0 * ms(grace), "runs": s.n,
        "median_ms": s.p50, "max_ms": s.max}),
    )
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    match run(Args::parse()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("shutdown: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(args: Args) -> Result<()> {
    let fake = fake_cli()?;
    let graces = args.graces.clone().unwrap_or(if args.quick {
        vec![100, 300]
    } else {
        vec![100, 500, 1000, 2000]
    });
    let mut rows = Vec::new();
    rows.push(polite_case(&fake, if args.quick { 5 } else { 20 }).await?);
    for &g in &graces {
        let runs = match (args.quick, g) {
            (true, _) => 2,
            (false, 0..=1000) => 5,
            (false, _) => 3,
        };
        rows.push(stubborn_case(&fake, Duration::from_millis(g), runs, false).await?);
    }
    if !args.quick {
        // The Python SDK's fixed ladder, 3 sessions shut down together.
        rows.push(stubborn_case(&fake, Duration::from_secs(5), 3, true).await?);
    }
    for r in &rows {
        emit(r);
    }
    let python = if args.no_python {
        None
    } else {
        args.python.clone().or_else(default_python)
    };
    let py_rows = match &python {
        Some(py) => {
            let (stubborn_n, polite_n) = if args.quick { ("1", "5") } else { ("3", "20") };
            let rows = run_python(
                py,
                "shutdown.py",
                &[
                    "--cli".into(),
                    fake.to_string_lossy().into_owned(),
                    "--stubborn".into(),
                    stubborn_n.into(),
                    "--polite".into(),
                    polite_n.into(),
                ],
            )?;
            for r in &rows {
                emit(r);
            }
            rows
        }
        None => Vec::new(),
    };
    table(&rows, &py_rows);
    Ok(())
}

fn table(rows: &[Value], py_rows: &[Value]) {
    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    eprintln!(
        "\n(d) shutdown() -> report; term_grace = grace; configured total = grace + term_grace"
    );
    eprintln!(
        "{:>6} {:>8} {:>10} {:>5} | {:>10} {:>10} {:>10} | {:>9} {:>9}",
        "side", "case", "configured", "runs", "median", "max", "overshoot", "TERM at", "KILL at"
    );
    let python_case = |case: &str| find(py_rows, &[("case", json!(case))]);
    let all = rows
        .iter()
        .chain(python_case("polite"))
        .chain(python_case("stubborn"));
    for r in all {
        let opt = |k: &str| {
            r[k].as_f64()
                .map_or("-".to_owned(), |v| format!("{v:.1} ms"))
        };
        eprintln!(
            "{:>6} {:>8} {:>10} {:>5} | {:>10} {:>10} {:>10} | {:>9} {:>9}",
            r["side"].as_str().unwrap_or("?"),
            r["case"].as_str().unwrap_or("?"),
            format!("{:.0} ms", f(r, "configured_total_ms")),
            r["runs"],
            format!("{:.1} ms", f(r, "median_ms")),
            format!("{:.1} ms", f(r, "max_ms")),
            opt("overshoot_ms"),
            opt("term_sent_median_ms"),
            opt("kill_sent_median_ms"),
        );
    }
    // Same configured ladder (5 s + 5 s) on both sides.
    let rust10 = rows
        .iter()
        .find(|r| r["case"] == "stubborn" && f(r, "grace_ms") == 5000.0);
    if let (Some(r), Some(p)) = (rust10, python_case("stubborn")) {
        let (ro, po) = (f(r, "overshoot_ms"), f(p, "overshoot_ms"));
        eprintln!("5 s + 5 s ladder: overshoot rust {ro:.1} ms, python {po:.1} ms");
        emit(
            &json!({"bench": "shutdown", "side": "ratio", "case": "stubborn_5s_5s",
            "overshoot_rust_ms": ro, "overshoot_python_ms": po}),
        );
    }
    if let (Some(r), Some(p)) = (
        rows.iter().find(|r| r["case"] == "polite"),
        python_case("polite"),
    ) {
        let ratio = f(r, "median_ms") / f(p, "median_ms");
        eprintln!("exits on EOF: median rust/python = {ratio:.3}");
        emit(
            &json!({"bench": "shutdown", "side": "ratio", "case": "polite",
            "median_rust_over_python": ratio}),
        );
    }
}
