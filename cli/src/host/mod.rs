//! `claude-agent host`: run an NDJSON file of jobs through a [`Host`].
//!
//! Exit codes: 0 every job completed; 1 some failed; 2 the host could not
//! start (or its session store could not be opened); 64 usage error (bad flags or a bad jobs file, nothing run); 130
//! SIGINT or 143 SIGTERM drained the host (a further signal during the
//! drain cuts every session's current shutdown wait short, a session store
//! flush included). After a drain the tool exits without waiting for
//! sessions the drain could not resolve (it bounds its own wait).

mod failure;
mod jobs;
pub(crate) mod progress;
pub(crate) mod summary;

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use claude_agent::host::{
    DrainOptions, DrainReport, HostConfig, HostEvent, RestartPolicy, SessionId,
};
use claude_agent::{client::ClientBuilder, host::Host, options::Options};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::{Value, json};

use crate::args::seconds;
use crate::signals::{StopSignal, StopSignals};
use claude_agent::transcript::SkippedLine;
use jobs::Job;
use progress::Progress;
use summary::Summary;

/// Arguments of `claude-agent host`.
#[derive(Debug, clap::Args)]
pub(crate) struct HostArgs {
    /// NDJSON file of jobs, one per line: {"tenant": "...", "prompt": "...", ...options}
    /// (options: model, fallback_model, permission_mode, max_turns,
    /// max_budget_usd, cwd, system_prompt, append_system_prompt,
    /// allowed_tools, disallowed_tools, add_dirs, env, settings; `id` is
    /// echoed). `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    jobs: PathBuf,
    /// Sessions running at once, all tenants together.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// Sessions running at once per tenant (default: --concurrency).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    per_tenant: Option<u32>,
    /// Path to the `claude` executable (default: discovery).
    #[arg(long, value_name = "PATH")]
    cli: Option<PathBuf>,
    /// Restart a crashed session with --resume, up to N times per minute.
    #[arg(long, value_name = "N", default_value_t = 0)]
    restarts: u32,
    /// Seconds a CLI gets to exit after EOF before SIGTERM.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    grace: f64,
    /// Seconds a CLI gets after SIGTERM before SIGKILL.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    term_grace: f64,
    /// Seconds to wait for `initialize` and for each control reply.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// On SIGINT/SIGTERM: seconds before what is still running is killed.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    drain_deadline: f64,
    /// Stdout lines longer than this are skipped (and reported) without
    /// being held in memory.
    #[arg(long, value_name = "N", default_value_t = claude_agent_actors::framing::DEFAULT_MAX_LINE_BYTES)]
    max_line_bytes: usize,
    /// Mirror every session's transcript into this session store (memory:,
    /// file:///folder, postgres://..., redis://...); restarts resume from it.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    #[command(flatten)]
    store_timeout: crate::store::StoreTimeout,
    #[command(flatten)]
    store_overflow: crate::store::StoreOverflowArg,
    /// Keep K CLIs started and initialised ahead of demand; a job without
    /// options of its own (only tenant, prompt and id) gets one instead of
    /// a cold start. Spares count against --concurrency. Not with --store
    /// (a mirrored session is wired up as its CLI starts).
    #[arg(long, value_name = "K", default_value_t = 0)]
    warm_spares: u32,
    /// Events as NDJSON on stdout, the summary as the last line.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    faults: crate::fault::FaultArgs,
}

/// Skipped-line reports the queue had no room for.
static DROPPED_REPORTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Skipped-line reports waiting to be printed; beyond this many, further
/// ones are counted but not printed.
const DIAGNOSTIC_QUEUE: usize = 1024;
/// How long outcomes may still come in once the drain report is in. The
/// drain saw those sessions end, but each outcome is published by the
/// session's own task a moment later; only a session stuck past its kill
/// makes the exit wait this long (it is then counted `unresolved`).
const OUTCOME_SETTLE: Duration = Duration::from_secs(1);

struct Settings {
    grace: Duration,
    term_grace: Duration,
    timeout: Duration,
    drain_deadline: Duration,
    store_timeout: Duration,
}

pub(crate) fn run(args: HostArgs) -> ExitCode {
    let settings = (|| {
        Ok::<_, String>(Settings {
            grace: seconds("grace", args.grace)?,
            term_grace: seconds("term-grace", args.term_grace)?,
            timeout: seconds("timeout", args.timeout)?,
            drain_deadline: seconds("drain-deadline", args.drain_deadline)?,
            store_timeout: args.store_timeout.get()?,
        })
    })();
    let settings = match settings {
        Ok(s) => s,
        Err(e) => return usage(&e),
    };
    if args.warm_spares > 0 && args.store.is_some() {
        return usage("--warm-spares cannot serve sessions mirrored to --store");
    }
    let text = if args.jobs.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(&args.jobs)
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => return usage(&format!("cannot read {}: {e}", args.jobs.display())),
    };
    let mut base = Options::new();
    if let Some(cli) = &args.cli {
        base = base.cli_path(cli);
    }
    let jobs = match jobs::parse(&text, &base) {
        Ok(j) => j,
        Err(errors) => {
            for e in &errors {
                eprintln!("claude-agent host: {}: {e}", args.jobs.display());
            }
            return ExitCode::from(crate::EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("claude-agent host: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(run_jobs(&args, &settings, jobs, base))
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("claude-agent host: {msg}");
    ExitCode::from(crate::EXIT_USAGE)
}

async fn run_jobs(args: &HostArgs, s: &Settings, jobs: Vec<Job>, base: Options) -> ExitCode {
    let mut stop = StopSignals::register();
    let started = Instant::now();
    let concurrency = args.concurrency as usize;
    let restart = if args.restarts > 0 {
        RestartPolicy::on_crash(args.restarts, Duration::from_secs(60))
    } else {
        RestartPolicy::Never
    };
    let store = match &args.store {
        Some(url) => match crate::store::open(url, s.store_timeout, "host").await {
            Ok(store) => Some(store),
            Err(e) if e.bad_url => return usage(&e.message),
            Err(e) => {
                eprintln!("claude-agent host: {}", e.message);
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let mut config = HostConfig::new()
        .max_sessions(concurrency)
        .max_per_tenant(args.per_tenant.map_or(concurrency, |n| n as usize))
        .max_queued(jobs.len())
        .max_queued_per_tenant(jobs.len())
        .restart(restart)
        .event_capacity((jobs.len() * 8).clamp(1024, 1 << 20));
    if args.warm_spares > 0 {
        // A job's builder matches when its options are the base's: the
        // same settings as below, minus the per-job diagnostics observer
        // (which a spare takes over when handed out).
        let template = runtime_settings(ClientBuilder::new(base.clone()), args, s);
        config = config.warm_spares(args.warm_spares as usize, template);
    }
    let host = match Host::start(config).await {
        Ok(h) => h,
        Err(e) => {
            eprintln!("claude-agent host: {}", crate::store::with_causes(&e));
            return ExitCode::from(2);
        }
    };
    let mut events = host.events();
    let mut by_session: HashMap<SessionId, (usize, Option<Value>)> = HashMap::new();
    let mut pending = FuturesUnordered::new();
    let progress = Progress::new(jobs.len(), args.json);
    let mut summary = Summary::default();
    let (diag_tx, mut diag_rx) =
        tokio::sync::mpsc::channel::<(usize, SkippedLine)>(DIAGNOSTIC_QUEUE);
    for job in jobs {
        let (tx, line) = (diag_tx.clone(), job.line);
        let mut builder = ClientBuilder::new(job.options);
        if let Some(store) = &store {
            builder = builder
                .session_store(store.clone())
                .store_overflow(args.store_overflow.get());
        }
        let builder = runtime_settings(builder, args, s).on_diagnostic(move |d| {
            if let Some(skipped) = SkippedLine::from_diagnostic(d) {
                // Full queue: the summary still counts it (below).
                if tx.try_send((line, skipped)).is_err() {
                    DROPPED_REPORTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        });
        match host.submit(job.tenant, builder, job.prompt).await {
            Ok(handle) => {
                by_session.insert(handle.id(), (job.line, job.id));
                pending.push(async move { handle.outcome().await });
            }
            Err(e) => {
                // Only a drain refuses here (the queue is sized for the file).
                summary.jobs += 1;
                *summary
                    .failed_by_cause
                    .entry("rejected".into())
                    .or_default() += 1;
                eprintln!(
                    "claude-agent host: job on line {}: {}",
                    job.line,
                    crate::store::with_causes(&e)
                );
            }
        }
    }
    let mut out = std::io::stdout().lock();
    // `ended` events waiting for their outcome (see `failure::incomplete`),
    // and the failures of the outcomes in so far.
    let mut held: HashMap<SessionId, Value> = HashMap::new();
    let mut failures: HashMap<SessionId, claude_agent::host::Failure> = HashMap::new();
    let (mut running, mut drain_report) = (0usize, None);
    let mut drain: Option<tokio::task::JoinHandle<DrainReport>> = None;
    let mut signalled: Option<StopSignal> = None;
    let mut settle: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
    while !pending.is_empty() {
        // Biased: once the drain report is in, the outcomes that are ready
        // are taken before the last arm stops the loop.
        tokio::select! {
            biased;
            Some((line, skipped)) = diag_rx.recv() => {
                summary.skipped_lines += 1;
                let prefix: String = skipped.prefix.chars().take(80).collect();
                if args.json {
                    let _ = writeln!(out, "{}", json!({"kind": "diagnostic", "diagnostic": "line_skipped",
                        "line": line, "reason": skipped.reason, "len": skipped.len, "prefix": prefix}));
                } else {
                    let len = skipped.len.map_or_else(String::new, |n| format!(", {n} bytes"));
                    progress.println(&format!("claude-agent host: job on line {line}: skipped a stdout line ({}{len}): {prefix}",
                        skipped.reason.replace('_', " ")));
                }
            }
            Some(outcome) = pending.next() => {
                summary.add(&outcome, by_session.get(&outcome.id));
                if args.json {
                    if let Some(line) = crate::fault::outcome_line(&outcome) {
                        let _ = writeln!(out, "{line}");
                    }
                }
                if let Some(f) = &outcome.failure {
                    if let Some(mut ev) = held.remove(&outcome.id) {
                        failure::fill(&mut ev, f);
                        let _ = writeln!(out, "{ev}");
                    }
                    failures.insert(outcome.id, f.clone());
                }
                progress.draw(summary.jobs, format!("{running} running, {} failed", summary.failed()));
            }
            ev = events.recv() => match ev {
                Ok(ev) => {
                    match &ev {
                        HostEvent::Admitted { .. } => running += 1,
                        HostEvent::Ended { .. } => running = running.saturating_sub(1),
                        _ => {}
                    }
                    if args.json {
                        let mut v = with_job(&ev, &by_session);
                        // A start failure's exit is in its outcome: fill it
                        // in from there, now or when the outcome comes.
                        if failure::incomplete(&v) {
                            let id = event_session(&v);
                            match id.and_then(|id| failures.get(&id)) {
                                Some(f) => failure::fill(&mut v, f),
                                None => {
                                    if let Some(id) = id {
                                        held.insert(id, v);
                                        continue;
                                    }
                                }
                            }
                        }
                        let _ = writeln!(out, "{v}");
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    if args.json {
                        let _ = writeln!(out, "{}", json!({"kind": "events_skipped", "count": n}));
                    }
                }
                Err(tokio::sync::broadcast::error::RecvError::Closed) => {}
            },
            signal = stop.recv() => {
                if signalled.is_some() {
                    // A further signal: every session's shutdown skips its
                    // current wait (SIGTERM now, then SIGKILL; a stalled
                    // store's flush ends too).
                    eprintln!("claude-agent host: {}: cutting every shutdown short", signal.name());
                    if let Ok(sessions) = host.sessions().await {
                        for session in sessions {
                            if let Some(client) = session.current_client() {
                                client.hurry();
                            }
                        }
                    }
                    continue;
                }
                signalled = Some(signal);
                progress.finish();
                eprintln!("claude-agent host: {}: draining {} running sessions (deadline {:.1} s; again to cut it short)",
                    signal.name(), running, s.drain_deadline.as_secs_f64());
                let host = host.clone();
                let opts = DrainOptions::new(s.drain_deadline).interrupt(true);
                drain = Some(tokio::spawn(async move { host.drain(opts).await }));
            }
            Some(Ok(report)) = async {
                match drain.as_mut() {
                    Some(task) => Some(task.await),
                    None => None,
                }
            }, if drain.is_some() && drain_report.is_none() => {
                drain_report = Some(report);
                settle = Some(Box::pin(tokio::time::sleep(OUTCOME_SETTLE)));
            }
            // The drain bounded its wait for every session: what has no
            // outcome after the settle is unresolved, and waiting on would
            // let a stuck session hold the exit past the deadline.
            () = async {
                match settle.as_mut() {
                    Some(s) => s.as_mut().await,
                    None => std::future::pending().await,
                }
            }, if settle.is_some() => break,
        }
    }
    if let (Some(task), None) = (drain, &drain_report) {
        drain_report = task.await.ok();
    }
    let unresolved = pending.len();
    drop(pending);
    if unresolved > 0 {
        summary.jobs += unresolved;
        *summary
            .failed_by_cause
            .entry("unresolved".into())
            .or_default() += unresolved;
        eprintln!(
            "claude-agent host: {unresolved} sessions had not ended when the drain finished; \
             exiting without their outcomes"
        );
    }
    // Each session's events were sent before its outcome was published:
    // print what the loop has not.
    while let Ok(ev) = events.try_recv() {
        if args.json {
            let mut v = with_job(&ev, &by_session);
            let found = event_session(&v).and_then(|id| failures.get(&id));
            if let (true, Some(f)) = (failure::incomplete(&v), found) {
                failure::fill(&mut v, f);
            }
            let _ = writeln!(out, "{v}");
        }
    }
    // Every outcome is in (or unresolved): never drop an event.
    for ev in held.into_values() {
        let _ = writeln!(out, "{ev}");
    }
    drop(diag_tx);
    while let Ok((_, _)) = diag_rx.try_recv() {
        summary.skipped_lines += 1;
    }
    summary.skipped_lines += DROPPED_REPORTS.load(std::sync::atomic::Ordering::Relaxed);
    if args.warm_spares > 0 {
        summary.spares_used = host.metrics().await.ok().map(|m| m.spares_used);
        if signalled.is_none() {
            // Every job has ended; the spares still wait: shut them down
            // in order.
            host.drain(DrainOptions::new(s.drain_deadline)).await;
        }
    }
    // Everything submitted has ended (or the drain gave up on it); the
    // host has nothing left to stop.
    drop(host);
    progress.finish();
    summary.elapsed = started.elapsed();
    summary.drained = drain_report.is_some();
    if args.json {
        let mut line = summary.json_line();
        if let (Some(r), Some(o)) = (&drain_report, line.as_object_mut()) {
            o.insert("drain".into(), r.to_json());
        }
        let _ = writeln!(out, "{line}");
    } else {
        summary.print_human();
    }
    let _ = out.flush();
    ExitCode::from(if let Some(signal) = signalled {
        signal.exit_code()
    } else if summary.failed() > 0 {
        1
    } else {
        0
    })
}

/// The settings every job's builder (and the warm spares' template) gets.
fn runtime_settings(builder: ClientBuilder, args: &HostArgs, s: &Settings) -> ClientBuilder {
    args.faults
        .apply(builder)
        .max_line_bytes(args.max_line_bytes)
        .grace(s.grace)
        .term_grace(s.term_grace)
        .initialize_timeout(s.timeout)
        .control_timeout(s.timeout)
}

/// The session an event's JSON names.
fn event_session(v: &Value) -> Option<SessionId> {
    v.get("id").and_then(Value::as_u64).map(SessionId)
}

/// The event's JSON with the job's line (and `id`, when the job had one).
fn with_job(ev: &HostEvent, jobs: &HashMap<SessionId, (usize, Option<Value>)>) -> Value {
    let mut v = ev.to_json();
    let id = v.get("id").and_then(Value::as_u64).map(SessionId);
    if let (Some((line, job_id)), Some(o)) = (id.and_then(|id| jobs.get(&id)), v.as_object_mut()) {
        o.insert("line".into(), json!(line));
        if let Some(job_id) = job_id {
            o.insert("job_id".into(), job_id.clone());
        }
    }
    v
}
