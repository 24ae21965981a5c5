//! `claude-agent submit`: publish a jobs file to the fleet's queue and,
//! with `--wait`, collect the outcomes into `host`'s summary (plus
//! `duplicates`: outcomes recorded more than once for one job id).
//!
//! Every line is checked before anything is published: a bad line (or an
//! id used twice) is one error each, and nothing is published. Exit codes:
//! 0 published (with `--wait`: every job completed); 1 some job failed or
//! had no outcome within `--timeout`; 2 the queue could not be reached;
//! 64 usage error; 130/143 interrupted while waiting.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use claude_agent::fleet::{JobId, JobSpec, StreamLayout};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::args::seconds;
use crate::fleet_args::LayoutArgs;
use crate::host::summary::Summary;
use crate::signals::StopSignals;

/// Arguments of `claude-agent submit`.
#[derive(Debug, clap::Args)]
pub(crate) struct SubmitArgs {
    /// The NATS server: nats://HOST:PORT.
    #[arg(long, value_name = "URL")]
    queue: String,
    /// NDJSON file of jobs in the `host` format; a job may also carry
    /// `session_id` (continue that session). `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    jobs: PathBuf,
    /// Wait for every job's outcome and print the summary.
    #[arg(long)]
    wait: bool,
    /// With --wait: seconds to wait for the outcomes.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    timeout: f64,
    #[command(flatten)]
    layout: LayoutArgs,
    /// One JSON object per submitted job and outcome, the summary last.
    #[arg(long)]
    json: bool,
}

/// Publishes in flight at once.
const IN_FLIGHT: usize = 64;

pub(crate) fn run(args: SubmitArgs) -> ExitCode {
    let (timeout, layout) = match (seconds("timeout", args.timeout), args.layout.layout()) {
        (Ok(t), Ok(l)) => (t, l),
        (Err(e), _) | (_, Err(e)) => return usage(&e),
    };
    let text = if args.jobs.as_os_str() == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(&args.jobs)
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => return usage(&format!("cannot read {}: {e}", args.jobs.display())),
    };
    let jobs = match with_ids(&text) {
        Ok(j) => j,
        Err(errors) => {
            for e in &errors {
                eprintln!("claude-agent submit: {}: {e}", args.jobs.display());
            }
            eprintln!("claude-agent submit: nothing was published");
            return ExitCode::from(crate::EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("claude-agent submit: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(submit(&args, layout, timeout, jobs))
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("claude-agent submit: {msg}");
    ExitCode::from(crate::EXIT_USAGE)
}

/// Every job with its id (generated when absent); an id given twice is an
/// error on the later line (the queue would drop that job as a duplicate).
fn with_ids(text: &str) -> Result<Vec<(usize, JobSpec, JobId)>, Vec<String>> {
    let mut errors = Vec::new();
    let mut seen: HashMap<JobId, usize> = HashMap::new();
    let mut jobs = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let job = JobSpec::parse(trimmed).and_then(|mut job| {
            let id = job.job_id()?.unwrap_or_else(JobId::generate);
            job.id = Some(Value::String(id.to_string()));
            Ok((job, id))
        });
        match job {
            Err(e) => errors.push(format!("line {line}: {e}")),
            Ok((_, id)) if seen.contains_key(&id) => {
                let first = seen[&id];
                errors.push(format!(
                    "line {line}: the id \"{id}\" is also on line {first}"
                ));
            }
            Ok((job, id)) => {
                seen.insert(id.clone(), line);
                jobs.push((line, job, id));
            }
        }
    }
    if errors.is_empty() {
        Ok(jobs)
    } else {
        Err(errors)
    }
}

async fn submit(
    args: &SubmitArgs,
    layout: StreamLayout,
    timeout: Duration,
    jobs: Vec<(usize, JobSpec, JobId)>,
) -> ExitCode {
    let mut stop = StopSignals::register();
    let started = Instant::now();
    let fleet = match crate::fleet_args::connect(&args.queue, layout).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("claude-agent submit: {e}");
            return ExitCode::from(2);
        }
    };
    let lines: HashMap<JobId, usize> = jobs
        .iter()
        .map(|(line, _, id)| (id.clone(), *line))
        .collect();
    let mut published = futures::stream::iter(jobs.into_iter().map(|(line, job, _)| {
        let fleet = fleet.clone();
        async move { (line, fleet.submit(job).await) }
    }))
    .buffer_unordered(IN_FLIGHT);
    let mut out = std::io::stdout().lock();
    let (mut count, mut duplicates_queued) = (0usize, 0usize);
    while let Some((line, result)) = published.next().await {
        match result {
            Ok(s) => {
                count += 1;
                duplicates_queued += usize::from(s.duplicate);
                if args.json {
                    let _ = writeln!(
                        out,
                        "{}",
                        json!({"kind": "submitted", "line": line, "job_id": s.job_id, "duplicate": s.duplicate})
                    );
                }
            }
            Err(e) => {
                eprintln!(
                    "claude-agent submit: line {line}: {}",
                    crate::store::with_causes(&e)
                );
                return ExitCode::from(2);
            }
        }
    }
    if !args.json {
        let _ = writeln!(
            out,
            "submitted {count} jobs ({duplicates_queued} already queued or recorded within the dedup window)"
        );
    }
    if !args.wait {
        return ExitCode::SUCCESS;
    }
    let mut summary = Summary::default();
    let mut seen: HashMap<JobId, usize> = HashMap::new();
    let mut results = match fleet.results().await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("claude-agent submit: {}", crate::store::with_causes(&e));
            return ExitCode::from(2);
        }
    };
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut signalled = None;
    loop {
        tokio::select! {
            next = results.next() => match next {
                Some(Ok(r)) => {
                    let Some(&line) = lines.get(&r.outcome.job_id) else { continue };
                    let n = seen.entry(r.outcome.job_id.clone()).or_default();
                    *n += 1;
                    if *n == 1 {
                        summary.add_fleet(&r.outcome, Some(line));
                        if args.json {
                            let mut v = serde_json::to_value(&r.outcome).unwrap_or(Value::Null);
                            if let Some(o) = v.as_object_mut() {
                                o.insert("kind".into(), json!("outcome"));
                                o.insert("line".into(), json!(line));
                            }
                            let _ = writeln!(out, "{v}");
                        }
                    }
                    // Every job has its outcome and the stream has nothing
                    // newer: later copies could only be duplicates, counted.
                    if seen.len() == lines.len() && r.pending == 0 {
                        break;
                    }
                }
                Some(Err(e)) => eprintln!("claude-agent submit: reading outcomes: {}", crate::store::with_causes(&e)),
                None => break,
            },
            () = &mut deadline => break,
            signal = stop.recv() => { signalled = Some(signal); break; }
        }
    }
    let mut missing: Vec<(&JobId, usize)> = lines
        .iter()
        .filter(|(id, _)| !seen.contains_key(*id))
        .map(|(id, l)| (id, *l))
        .collect();
    missing.sort_by_key(|(_, l)| *l);
    for (id, line) in missing {
        summary.add_missing(id.as_str(), line);
    }
    summary.duplicates = Some(seen.values().map(|n| n - 1).sum());
    summary.elapsed = started.elapsed();
    if args.json {
        let _ = writeln!(out, "{}", summary.json_line());
    } else {
        drop(out);
        summary.print_human();
    }
    match signalled {
        Some(s) => ExitCode::from(s.exit_code()),
        None if summary.failed() > 0 => ExitCode::from(1),
        None => ExitCode::SUCCESS,
    }
}
