//! (f) The fleet: jobs per second through `claude-agent submit --wait` with
//! 1, 2 and 3 `claude-agent worker` processes on this machine (fake CLI),
//! against the local `claude-agent host` command on the same jobs file; and
//! the time from a worker's SIGKILL until the jobs it held are recorded by
//! another worker, against the configured ack wait plus one turn.
//!
//! ```text
//! cargo build --release -p claude-agent-cli -p claude-agent-bench --bins
//! target/release/fleet [--quick] [--jobs 400] [--concurrency 4] [--reps 5]
//!                      [--turn-ms 0] [--nats nats://127.0.0.1:4222] [--store URL]
//!                      [--split [--nats-server /usr/sbin/nats-server]]
//! ```
//!
//! Every side uses the same session store (default: a file store in a
//! temp dir; `--store postgres://...` for PostgreSQL). The sides run
//! interleaved (host, 1, 2, 3 workers, then again), so a machine whose
//! speed drifts between runs weighs on every side alike; each side reports
//! its best and median rate, and the CPU it used per job: `host` and its
//! CLIs, or the workers and theirs, and `submit`, from
//! `getrusage(RUSAGE_CHILDREN)`; the local `nats-server`'s from `/proc`
//! when it can be found. `--split` keeps the server and `submit` off the
//! core the rest runs on: the worker's machine alone.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use claude_agent::fleet::{Fleet, StreamLayout};
use claude_agent_bench::cores::{PinnedNats, online_cores, pin_child, pin_self};
use claude_agent_bench::cpu::{find_process, process_cpu_ms, reaped_children_cpu_ms};
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
    /// How long each throughput job's turn takes in the fake CLI (0: an
    /// empty turn, the fleet's overhead at its most visible).
    #[arg(long, default_value_t = 0)]
    turn_ms: u64,
    /// Runs per side, interleaved (best and median reported).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// The NATS server.
    #[arg(long, default_value = "nats://127.0.0.1:4222")]
    nats: String,
    /// The session store every side uses (default: a file store in a temp dir).
    #[arg(long)]
    store: Option<String>,
    /// Measure the worker's machine alone: this program, `host`, the
    /// workers and their CLIs on core 0; a private `nats-server` and
    /// `submit` (which stand for other machines) on core 1. Throughput
    /// only (no recovery runs); `--nats` is ignored.
    #[arg(long)]
    split: bool,
    /// The `nats-server` binary `--split` starts.
    #[arg(long, default_value = "/usr/sbin/nats-server")]
    nats_server: PathBuf,
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
    /// The local `nats-server` behind `nats`, when found (its CPU is the
    /// fleet's too).
    nats_pid: Option<u32>,
    /// `--split`: the core `submit` runs on.
    submit_core: Option<usize>,
    store: String,
    concurrency: usize,
    /// The throughput jobs' turn.
    turn_ms: u64,
}

/// One timed run of a side.
#[derive(Debug, Clone, Copy)]
struct Run {
    jobs_per_s: f64,
    /// CPU per job of `host` and its CLIs, or of the workers (start and
    /// drain included) and their CLIs.
    cpu_ms_per_job: f64,
    /// `submit`'s CPU per job (fleet only).
    submit_cpu_ms_per_job: Option<f64>,
    /// The local `nats-server`'s CPU per job over the run (fleet only).
    nats_cpu_ms_per_job: Option<f64>,
}

/// Timestamped `--json` event lines of a worker, parsed only when looked
/// at (the throughput runs never do: no bench work on their clock).
type Events = Arc<(Mutex<Vec<(Instant, String)>>, Condvar)>;

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
                if let Ok(mut e) = sink.0.lock() {
                    e.push((Instant::now(), line));
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
        while !cond(&parsed(&guard)) {
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
        self.events.0.lock().map(|e| parsed(&e)).unwrap_or_default()
    }

    fn stop(mut self, signal: i32) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, signal) };
        let _ = self.child.wait();
    }
}

fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(0.0, f64::max)
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

fn parsed(lines: &[(Instant, String)]) -> Vec<(Instant, Value)> {
    lines
        .iter()
        .map(|(t, l)| (*t, serde_json::from_str(l).unwrap_or(Value::Null)))
        .collect()
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

/// `host` on `n` jobs.
fn host_rate(ctx: &Ctx, dir: &Path, n: usize, rep: usize) -> Result<Run> {
    let jobs = write_jobs(dir, n, &format!("host{rep}"))?;
    let cpu0 = reaped_children_cpu_ms();
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
            .env("FAKE_CLAUDE_SCRIPT_JSON", script(ctx.turn_ms)),
        "host",
    )?;
    Ok(Run {
        jobs_per_s: n as f64 / t0.elapsed().as_secs_f64(),
        cpu_ms_per_job: (reaped_children_cpu_ms() - cpu0) / n as f64,
        submit_cpu_ms_per_job: None,
        nats_cpu_ms_per_job: None,
    })
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

/// `submit --wait` through `workers` workers on `n` jobs (workers
/// started and pulling before the clock starts).
fn fleet_rate(ctx: &Ctx, dir: &Path, n: usize, workers: usize, rep: usize) -> Result<Run> {
    let prefix = format!("bench-fleet-{}-{workers}-{rep}", std::process::id());
    let jobs = write_jobs(dir, n, &prefix)?;
    let cpu0 = reaped_children_cpu_ms();
    let started: Vec<Worker> = (0..workers)
        .map(|_| Worker::start(ctx, &prefix, ctx.turn_ms, &[]))
        .collect::<Result<_>>()?;
    let nats0 = ctx.nats_pid.and_then(process_cpu_ms);
    let mut submit = Command::new(&ctx.bin);
    if let Some(core) = ctx.submit_core {
        pin_child(&mut submit, core);
    }
    let submit0 = reaped_children_cpu_ms();
    let t0 = Instant::now();
    let result = run_ok(
        submit
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
    // Only `submit` was reaped meanwhile: the workers still run.
    let submit_cpu = reaped_children_cpu_ms() - submit0;
    let nats1 = ctx.nats_pid.and_then(process_cpu_ms);
    for w in started {
        w.stop(libc::SIGTERM);
    }
    delete_streams(&ctx.nats, &prefix);
    let summary = result?;
    if summary["duplicates"] != 0 {
        return Err(fail(format!("duplicates: {summary}")));
    }
    Ok(Run {
        jobs_per_s: n as f64 / elapsed.as_secs_f64(),
        cpu_ms_per_job: (reaped_children_cpu_ms() - cpu0 - submit_cpu) / n as f64,
        submit_cpu_ms_per_job: Some(submit_cpu / n as f64),
        nats_cpu_ms_per_job: nats0.zip(nats1).map(|(a, b)| (b - a) / n as f64),
    })
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

/// The local `nats-server` serving `url`'s port (started with `-p PORT`,
/// or any when the port is the default).
fn nats_server_pid(url: &str) -> Option<u32> {
    let port = url
        .trim_end_matches('/')
        .rsplit_once(':')
        .map(|(_, p)| p)
        .filter(|p| p.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or("4222");
    find_process("nats-server", Some(port)).or_else(|| {
        (port == "4222")
            .then(|| find_process("nats-server", None))
            .flatten()
    })
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
    // `--split`: the server (and `submit`) on core 1 stand for the other
    // machines of a fleet; everything of the worker's machine on core 0.
    let private = if args.split {
        if online_cores() < 2 {
            return Err(fail("--split needs two cores"));
        }
        let server = PinnedNats::start(&args.nats_server, 1)?;
        pin_self(0)?;
        Some(server)
    } else {
        None
    };
    let ctx = Ctx {
        bin,
        fake: fake_cli()?,
        nats: private
            .as_ref()
            .map_or_else(|| args.nats.clone(), PinnedNats::url),
        nats_pid: match &private {
            Some(server) => Some(server.pid()),
            None => nats_server_pid(&args.nats),
        },
        submit_core: private.as_ref().map(|_| 1),
        store,
        concurrency: args.concurrency,
        turn_ms: args.turn_ms,
    };
    // Interleaved: host, 1, 2, 3 workers, then the next rep.
    let mut runs: [Vec<Run>; 4] = Default::default();
    for rep in 0..args.reps {
        for (workers, side) in runs.iter_mut().enumerate() {
            side.push(if workers == 0 {
                host_rate(&ctx, dir.path(), args.jobs, rep)?
            } else {
                fleet_rate(&ctx, dir.path(), args.jobs, workers, rep)?
            });
        }
    }
    let mut lines = vec![format!(
        "  {:<10} {:>9} {:>9} {:>10} {:>13}   {}",
        "side", "best/s", "median/s", "best/best", "paired median", "CPU ms/job"
    )];
    let host = &runs[0];
    for (workers, side) in runs.iter().enumerate() {
        let rates: Vec<f64> = side.iter().map(|r| r.jobs_per_s).collect();
        let paired: Vec<f64> = side
            .iter()
            .zip(host)
            .map(|(r, h)| r.jobs_per_s / h.jobs_per_s)
            .collect();
        let (best, host_best) = (
            max(&rates),
            max(&host.iter().map(|r| r.jobs_per_s).collect::<Vec<_>>()),
        );
        let cpu = median(&side.iter().map(|r| r.cpu_ms_per_job).collect::<Vec<_>>());
        let part = |f: fn(&Run) -> Option<f64>| {
            let v: Vec<f64> = side.iter().filter_map(f).collect();
            (!v.is_empty()).then(|| median(&v))
        };
        let submit = part(|r| r.submit_cpu_ms_per_job);
        let nats = part(|r| r.nats_cpu_ms_per_job);
        emit(
            &json!({"bench": "fleet", "side": if workers == 0 { "host" } else { "fleet" },
            "workers": workers, "jobs": args.jobs, "concurrency": args.concurrency, "turn_ms": args.turn_ms,
            "jobs_per_s": best, "median_jobs_per_s": median(&rates), "runs_jobs_per_s": rates,
            "vs_host": best / host_best, "vs_host_paired_median": median(&paired),
            "cpu_ms_per_job": cpu, "nats_cpu_ms_per_job": nats}),
        );
        let name = match workers {
            0 => "host".to_owned(),
            1 => "1 worker".to_owned(),
            n => format!("{n} workers"),
        };
        lines.push(format!(
            "  {name:<10} {best:>9.1} {:>9.1} {:>9.2}x {:>12.2}x   {}",
            median(&rates),
            best / host_best,
            median(&paired),
            [Some(cpu), submit, nats]
                .iter()
                .map(|p| p.map_or_else(|| "-".to_owned(), |v| format!("{v:.2}")))
                .collect::<Vec<_>>()
                .join(" + ")
        ));
    }
    // Long enough that the victim is surely mid-turn when it is killed.
    let turn_ms = 2000;
    let mut rec = Vec::new();
    for ack_wait in [2_u64, 5].into_iter().filter(|_| !args.split) {
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
        "\n(h) fleet: {} jobs (turns of {} ms), {} at once per worker (host: same), {} interleaved runs per side; store {}{}\n  (CPU ms/job: host or workers, with their CLIs + submit + nats-server)",
        args.jobs,
        args.turn_ms,
        args.concurrency,
        args.reps,
        if args.store.is_some() {
            "given"
        } else {
            "file"
        },
        if args.split {
            "; split: host, workers and CLIs on core 0, nats-server and submit on core 1"
        } else {
            ""
        }
    );
    for l in &lines {
        eprintln!("{l}");
    }
    if !args.split {
        eprintln!(
            "recovery after a worker's SIGKILL ({} jobs held):",
            args.concurrency
        );
    }
    for l in &rec {
        eprintln!("{l}");
    }
    Ok(())
}
