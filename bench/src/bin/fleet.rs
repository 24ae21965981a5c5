//! (f) The fleet: jobs per second through `claude-agent submit --wait` with
//! 1, 2 and 3 `claude-agent worker` processes on this machine (fake CLI),
//! against the local `claude-agent host` command on the same jobs file; and
//! the time from a worker's SIGKILL until the jobs it held are recorded by
//! another worker, against the configured ack wait plus one turn.
//!
//! ```text
//! cargo build --release -p claude-agent-cli -p claude-agent-bench --bins
//! target/release/fleet [--quick] [--jobs 400] [--concurrency 4] [--reps 3]
//!                      [--nats nats://127.0.0.1:4222] [--store URL]
//! ```
//!
//! Every side uses the same session store (default: a file store in a
//! temp dir; `--store postgres://...` for PostgreSQL).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use claude_agent::fleet::{Fleet, StreamLayout};
use claude_agent_bench::{BenchError, Result, emit, fake_cli};
use serde_json::{Value, json};

#[derive(Parser, Debug)]
#[command(about = "fleet throughput against host, and recovery after a worker's SIGKILL")]
struct Args {
    /// Small sizes, for a smoke run.
    #[arg(long)]
    quick: bool,
    /// Jobs per run.
    #[arg(long, default_value_t = 400)]
    jobs: usize,
    /// Sessions at once, per worker and for host.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Runs per side (the best is reported).
    #[arg(long, default_value_t = 3)]
    reps: usize,
    /// The NATS server.
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    nats: String,
    /// The session store every side uses (default: a file store in a temp dir).
    #[arg(long)]
    store: Option<String>,
    /// The `claude-agent` binary (default: beside this program).
    #[arg(long)]
    claude_agent: Option<PathBuf>,
}

const WAIT: Duration = Duration::from_secs(300);

fn io(what: &str) -> impl FnOnce(std::io::Error) -> BenchError + '_ {
    move |source| BenchError::Io {
        what: what.to_owned(),
        source,
    }
}

fn fail(msg: impl Into<String>) -> BenchError {
    BenchError::Session(msg.into())
}

/// A fake CLI script: initialize, one turn after `ms`, exit on EOF.
fn script(turn_ms: u64) -> String {
    json!([
        {"op": "expect", "type": "control_request", "subtype": "initialize"},
        {"op": "expect", "type": "user"},
        {"op": "sleep", "ms": turn_ms},
        {"op": "emit", "frame": {"type": "result", "subtype": "success", "is_error": false,
            "session_id": "s", "result": "done", "duration_ms": turn_ms, "num_turns": 1}}
    ])
    .to_string()
}

struct Ctx {
    bin: PathBuf,
    fake: PathBuf,
    nats: String,
    store: String,
    concurrency: usize,
}

/// Timestamped `--json` events of a worker.
type Events = Arc<(Mutex<Vec<(Instant, Value)>>, Condvar)>;

struct Worker {
    child: Child,
    events: Events,
    _home: tempfile::TempDir,
}

impl Worker {
    fn start(ctx: &Ctx, prefix: &str, turn_ms: u64, extra: &[&str]) -> Result<Self> {
        let home = tempfile::tempdir().map_err(io("tempdir"))?;
        let mut child = Command::new(&ctx.bin)
            .args([
                "worker", "--json", "--queue", &ctx.nats, "--store", &ctx.store, "--prefix", prefix,
            ])
            .arg("--cli")
            .arg(&ctx.fake)
            .args([
                "--concurrency",
                &ctx.concurrency.to_string(),
                "--grace",
                "0.5",
                "--term-grace",
                "0.5",
            ])
            .args(extra)
            .env("HOME", home.path())
            .env("CLAUDE_CONFIG_DIR", home.path().join(".claude"))
            .env("FAKE_CLAUDE_SCRIPT_JSON", script(turn_ms))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io("start a worker"))?;
        let events: Events = Arc::new((Mutex::new(Vec::new()), Condvar::new()));
        let sink = events.clone();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| fail("no worker stdout"))?;
        std::thread::spawn(move || {
            for line in BufReader::new(stdout)
                .lines()
                .map_while(std::result::Result::ok)
            {
                let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
                if let Ok(mut e) = sink.0.lock() {
                    e.push((Instant::now(), v));
                }
                sink.1.notify_all();
            }
        });
        let worker = Self {
            child,
            events,
            _home: home,
        };
        worker.wait_for(|e| e.iter().any(|(_, v)| v["kind"] == "worker_started"))?;
        Ok(worker)
    }

    fn wait_for(&self, cond: impl Fn(&[(Instant, Value)]) -> bool) -> Result<()> {
        let end = Instant::now() + WAIT;
        let (lock, cvar) = &*self.events;
        let mut guard = lock.lock().map_err(|_| fail("poisoned"))?;
        while !cond(&guard) {
            let now = Instant::now();
            if now >= end {
                return Err(fail("a worker event did not come"));
            }
            guard = cvar
                .wait_timeout(guard, end - now)
                .map_err(|_| fail("poisoned"))?
                .0;
        }
        Ok(())
    }

    fn events(&self) -> Vec<(Instant, Value)> {
        self.events.0.lock().map(|e| e.clone()).unwrap_or_default()
    }

    fn stop(mut self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        let _ = self.child.wait();
    }
}

fn write_jobs(dir: &Path, n: usize, tag: &str) -> Result<PathBuf> {
    let path = dir.join(format!("jobs-{tag}.ndjson"));
    let text: String = (0..n)
        .map(|i| {
            format!(
                "{}\n",
                json!({"tenant": format!("t{}", i % 8), "prompt": "p", "id": format!("{tag}-{i}")})
            )
        })
        .collect();
    std::fs::write(&path, text).map_err(io("write the jobs"))?;
    Ok(path)
}

fn run_ok(cmd: &mut Command, what: &str) -> Result<Value> {
    let out = cmd.stdin(Stdio::null()).output().map_err(io(what))?;
    let last = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_owned();
    let summary: Value = serde_json::from_str(&last).unwrap_or(Value::Null);
    if !out.status.success() || summary["completed"] != summary["jobs"] {
        return Err(fail(format!("{what} failed: {}: {last}", out.status)));
    }
    Ok(summary)
}

/// Jobs/s of `host` on `n` jobs.
fn host_rate(ctx: &Ctx, dir: &Path, n: usize, rep: usize) -> Result<f64> {
    let jobs = write_jobs(dir, n, &format!("host{rep}"))?;
    let t0 = Instant::now();
    run_ok(
        Command::new(&ctx.bin)
            .args([
                "host",
                "--json",
                "--store",
                &ctx.store,
                "--concurrency",
                &ctx.concurrency.to_string(),
            ])
            .args(["--grace", "0.5", "--term-grace", "0.5"])
            .arg("--jobs")
            .arg(&jobs)
            .arg("--cli")
            .arg(&ctx.fake)
            .env("FAKE_CLAUDE_SCRIPT_JSON", script(0)),
        "host",
    )?;
    Ok(n as f64 / t0.elapsed().as_secs_f64())
}

fn delete_streams(nats: &str, prefix: &str) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build();
    if let Ok(rt) = rt {
        rt.block_on(async {
            if let Ok(f) = Fleet::connect(nats, StreamLayout::with_prefix(prefix)).await {
                let _ = f.delete_streams().await;
            }
        });
    }
}

/// Jobs/s of `submit --wait` through `workers` workers on `n` jobs
/// (workers started and pulling before the clock starts).
fn fleet_rate(ctx: &Ctx, dir: &Path, n: usize, workers: usize, rep: usize) -> Result<f64> {
    let prefix = format!("bench-fleet-{}-{workers}-{rep}", std::process::id());
    let jobs = write_jobs(dir, n, &prefix)?;
    let started: Vec<Worker> = (0..workers)
        .map(|_| Worker::start(ctx, &prefix, 0, &[]))
        .collect::<Result<_>>()?;
    let t0 = Instant::now();
    let result = run_ok(
        Command::new(&ctx.bin)
            .args([
                "submit",
                "--json",
                "--wait",
                "--timeout",
                "600",
                "--queue",
                &ctx.nats,
                "--prefix",
                &prefix,
            ])
            .arg("--jobs")
            .arg(&jobs),
        "submit",
    );
    let elapsed = t0.elapsed();
    for w in started {
        w.stop(libc::SIGTERM);
    }
    delete_streams(&ctx.nats, &prefix);
    let summary = result?;
    if summary["duplicates"] != 0 {
        return Err(fail(format!("duplicates: {summary}")));
    }
    Ok(n as f64 / elapsed.as_secs_f64())
}

/// Seconds from SIGKILL of a worker holding jobs until the last of them is
/// recorded by the other worker.
fn recovery(ctx: &Ctx, dir: &Path, ack_wait: u64, turn_ms: u64, rep: usize) -> Result<f64> {
    let prefix = format!("bench-recover-{}-{ack_wait}-{rep}", std::process::id());
    let extra = ["--ack-wait", &ack_wait.to_string()];
    let victim = Worker::start(ctx, &prefix, turn_ms, &extra)?;
    let jobs = write_jobs(dir, ctx.concurrency, &prefix)?;
    let submitter = Command::new(&ctx.bin)
        .args([
            "submit",
            "--json",
            "--wait",
            "--timeout",
            "600",
            "--queue",
            &ctx.nats,
            "--prefix",
            &prefix,
        ])
        .arg("--jobs")
        .arg(&jobs)
        .stdout(Stdio::null())
        .spawn()
        .map_err(io("submit"))?;
    // The victim takes every job before the rescuer exists.
    let all = ctx.concurrency;
    victim.wait_for(|e| e.iter().filter(|(_, v)| v["kind"] == "job_started").count() == all)?;
    let rescuer = Worker::start(ctx, &prefix, turn_ms, &extra)?;
    let killed_at = Instant::now();
    victim.stop(libc::SIGKILL);
    rescuer.wait_for(|e| {
        e.iter()
            .filter(|(_, v)| v["kind"] == "job_recorded")
            .count()
            == all
    })?;
    let last = rescuer
        .events()
        .iter()
        .filter(|(_, v)| v["kind"] == "job_recorded")
        .map(|(t, _)| *t)
        .max()
        .unwrap_or(killed_at);
    rescuer.stop(libc::SIGTERM);
    let _ = submitter.wait_with_output();
    delete_streams(&ctx.nats, &prefix);
    Ok(last.duration_since(killed_at).as_secs_f64())
}

fn main() -> Result<()> {
    let mut args = Args::parse();
    if args.quick {
        args.jobs = args.jobs.min(60);
        args.reps = 1;
    }
    let bin = match args.claude_agent.clone() {
        Some(p) => p,
        None => std::env::current_exe()
            .map_err(io("current exe"))?
            .with_file_name("claude-agent"),
    };
    if !bin.is_file() {
        return Err(fail(format!(
            "{} is missing: build it (cargo build --release -p claude-agent-cli)",
            bin.display()
        )));
    }
    let dir = tempfile::tempdir().map_err(io("tempdir"))?;
    let store = match &args.store {
        Some(s) => s.clone(),
        None => {
            let path = dir.path().join("store");
            std::fs::create_dir_all(&path).map_err(io("store dir"))?;
            format!("file://{}", path.display())
        }
    };
    let ctx = Ctx {
        bin,
        fake: fake_cli()?,
        nats: args.nats.clone(),
        store,
        concurrency: args.concurrency,
    };
    let best = |f: &dyn Fn(usize) -> Result<f64>| -> Result<f64> {
        (0..args.reps)
            .map(f)
            .try_fold(0.0_f64, |b, r| r.map(|r| b.max(r)))
    };
    let mut lines = Vec::new();
    let host = best(&|rep| host_rate(&ctx, dir.path(), args.jobs, rep))?;
    emit(
        &json!({"bench": "fleet", "side": "host", "workers": 0, "jobs": args.jobs, "concurrency": args.concurrency, "jobs_per_s": host}),
    );
    lines.push(format!("  host       {:>8.1} jobs/s   1.00x", host));
    for workers in 1..=3 {
        let rate = best(&|rep| fleet_rate(&ctx, dir.path(), args.jobs, workers, rep))?;
        emit(
            &json!({"bench": "fleet", "side": "fleet", "workers": workers, "jobs": args.jobs, "concurrency": args.concurrency, "jobs_per_s": rate, "vs_host": rate / host}),
        );
        lines.push(format!(
            "  {workers} worker{} {:>8.1} jobs/s   {:.2}x",
            if workers == 1 { " " } else { "s" },
            rate,
            rate / host
        ));
    }
    // Long enough that the victim is surely mid-turn when it is killed.
    let turn_ms = 2000;
    let mut rec = Vec::new();
    for ack_wait in [2_u64, 5] {
        let reps = if args.quick { 1 } else { 3 };
        let times: Vec<f64> = (0..reps)
            .map(|rep| recovery(&ctx, dir.path(), ack_wait, turn_ms, rep))
            .collect::<Result<_>>()?;
        let worst = times.iter().copied().fold(0.0, f64::max);
        let bound = ack_wait as f64 + turn_ms as f64 / 1e3;
        emit(
            &json!({"bench": "fleet_recovery", "ack_wait_s": ack_wait, "turn_ms": turn_ms, "recovery_s": times, "bound_s": bound}),
        );
        rec.push(format!(
            "  ack wait {ack_wait} s, turn {turn_ms} ms: recovered in {} s (max {:.2} s; ack wait + one turn = {bound:.1} s)",
            times.iter().map(|t| format!("{t:.2}")).collect::<Vec<_>>().join(", "),
            worst
        ));
    }
    eprintln!(
        "\n(f) fleet: {} jobs, {} at once per worker (host: same), best of {}; store {}",
        args.jobs,
        args.concurrency,
        args.reps,
        if args.store.is_some() {
            "given"
        } else {
            "file"
        }
    );
    for l in &lines {
        eprintln!("{l}");
    }
    eprintln!(
        "recovery after a worker's SIGKILL ({} jobs held):",
        args.concurrency
    );
    for l in &rec {
        eprintln!("{l}");
    }
    Ok(())
}
