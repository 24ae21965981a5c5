//! `claude-agent submit`: publish a jobs file to the fleet's queue and,
//! with `--wait`, collect the outcomes into `host`'s summary (plus
//! `duplicates`: outcomes recorded more than once for one job id).
//!
//! Every line is checked before anything is published: a bad line (or an
//! id used twice) is one error each, and nothing is published. While it
//! waits, a progress bar on a terminal's stderr. A job with no outcome
//! when the wait ends is pending (still queued or running), not failed;
//! `--no-publish` waits for such jobs again. Exit codes: 0 published
//! (with `--wait`: every job completed); 1 some job failed; 2 the queue
//! could not be reached; 64 usage error; 75 none failed but some are
//! still pending after `--timeout`; 130/143 interrupted while waiting.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use claude_agent::fleet::{Fleet, JobId, JobSpec, StreamLayout};
use futures::StreamExt;
use serde_json::{Value, json};

use crate::args::seconds;
use crate::fleet_args::LayoutArgs;
use crate::host::progress::Progress;
use crate::host::summary::Summary;
use crate::signals::StopSignals;

/// Arguments of `claude-agent submit`.
#[derive(Debug, clap::Args)]
pub(crate) struct SubmitArgs {
    /// The NATS server: nats://HOST:PORT.
    #[arg(long, value_name = "URL")]
    queue: String,
    /// NDJSON file of jobs in the `host` format; a job may also carry
    /// `session_id` (continue that session) and `on_redelivery` (after
    /// its worker died: "resume" its session from the store, the default,
    /// or "start_over"). `-` reads stdin.
    #[arg(long, value_name = "FILE")]
    jobs: PathBuf,
    /// Wait for every job's outcome and print the summary.
    #[arg(long)]
    wait: bool,
    /// With --wait: seconds to wait for the outcomes.
    #[arg(long, value_name = "SECS", default_value_t = 600.0)]
    timeout: f64,
    /// With --wait: publish nothing, only wait for the outcomes of the
    /// file's jobs (submitted before; every line needs its `id`).
    #[arg(long, requires = "wait")]
    no_publish: bool,
    #[command(flatten)]
    layout: LayoutArgs,
    /// One JSON object per submitted job and outcome, the summary last.
    #[arg(long)]
    json: bool,
}

/// Publishes in flight at once.
const IN_FLIGHT: usize = 64;

/// Exit code when no job failed but some are still pending (BSD
/// `EX_TEMPFAIL`: try again later).
const EXIT_PENDING: u8 = 75;

/// A job of the file: its line, the job, its id, and whether the id was
/// in the file (else generated).
struct Numbered {
    line: usize,
    job: JobSpec,
    id: JobId,
    id_given: bool,
}

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
    let jobs = match with_ids(&text, args.no_publish) {
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

/// Every job with its id (generated when absent, unless `need_ids`: then
/// a missing id is an error); an id given twice is an error on the later
/// line (the queue would drop that job as a duplicate).
fn with_ids(text: &str, need_ids: bool) -> Result<Vec<Numbered>, Vec<String>> {
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
            let given = job.job_id()?;
            let id_given = given.is_some();
            let id = given.unwrap_or_else(JobId::generate);
            job.id = Some(Value::String(id.to_string()));
            Ok(Numbered {
                line,
                job,
                id,
                id_given,
            })
        });
        match job {
            Err(e) => errors.push(format!("line {line}: {e}")),
            Ok(j) if need_ids && !j.id_given => errors.push(format!(
                "line {line}: no \"id\" (--no-publish waits for jobs by their id)"
            )),
            Ok(j) if seen.contains_key(&j.id) => {
                let first = seen[&j.id];
                errors.push(format!(
                    "line {line}: the id \"{}\" is also on line {first}",
                    j.id
                ));
            }
            Ok(j) => {
                seen.insert(j.id.clone(), line);
                jobs.push(j);
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
    jobs: Vec<Numbered>,
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
    let lines: HashMap<JobId, (usize, bool)> = jobs
        .iter()
        .map(|j| (j.id.clone(), (j.line, j.id_given)))
        .collect();
    if !args.no_publish {
        if let Err(code) = publish(args, &fleet, jobs).await {
            return code;
        }
    }
    if !args.wait {
        return ExitCode::SUCCESS;
    }
    let mut out = std::io::stdout().lock();
    let mut summary = Summary::for_submit();
    let mut seen: HashMap<JobId, usize> = HashMap::new();
    let mut results = match fleet.results().await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("claude-agent submit: {}", crate::store::with_causes(&e));
            return ExitCode::from(2);
        }
    };
    let progress = Progress::new(lines.len(), args.json);
    progress.draw(0, format!("0 failed, {} pending", lines.len()));
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    let mut signalled = None;
    loop {
        tokio::select! {
            next = results.next() => match next {
                Some(Ok(r)) => {
                    let Some(&(line, _)) = lines.get(&r.outcome.job_id) else { continue };
                    let n = seen.entry(r.outcome.job_id.clone()).or_default();
                    *n += 1;
                    if *n == 1 {
                        summary.add_fleet(&r.outcome, Some(line));
                        progress.draw(seen.len(), format!(
                            "{} failed, {} pending", summary.failed(), lines.len() - seen.len()
                        ));
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
                Some(Err(e)) => progress.println(&format!(
                    "claude-agent submit: reading outcomes: {}", crate::store::with_causes(&e)
                )),
                None => break,
            },
            () = &mut deadline => break,
            signal = stop.recv() => { signalled = Some(signal); break; }
        }
    }
    progress.finish();
    let mut pending: Vec<(&JobId, usize)> = lines
        .iter()
        .filter(|(id, _)| !seen.contains_key(*id))
        .map(|(id, (l, _))| (id, *l))
        .collect();
    pending.sort_by_key(|(_, l)| *l);
    for (id, line) in &pending {
        summary.add_pending(id.as_str(), *line);
    }
    summary.duplicates = Some(seen.values().map(|n| n - 1).sum());
    summary.elapsed = started.elapsed();
    if args.json {
        let _ = writeln!(out, "{}", summary.json_line());
    } else {
        drop(out);
        summary.print_human();
    }
    if !pending.is_empty() {
        let ids: Vec<&str> = pending.iter().map(|(id, _)| id.as_str()).collect();
        // `--no-publish` needs every line's id in the file.
        let all_in_file = lines.values().all(|(_, given)| *given);
        eprintln!("{}", wait_again_hint(args, &ids, all_in_file));
    }
    match signalled {
        Some(s) => ExitCode::from(s.exit_code()),
        None if summary.failed() > 0 => ExitCode::from(1),
        None if summary.pending() > 0 => ExitCode::from(EXIT_PENDING),
        None => ExitCode::SUCCESS,
    }
}

/// Publishes every job (at most [`IN_FLIGHT`] at once); the exit code
/// when one cannot be.
async fn publish(args: &SubmitArgs, fleet: &Fleet, jobs: Vec<Numbered>) -> Result<(), ExitCode> {
    let mut published = futures::stream::iter(jobs.into_iter().map(|j| {
        let fleet = fleet.clone();
        async move { (j.line, fleet.submit(j.job).await) }
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
                return Err(ExitCode::from(2));
            }
        }
    }
    if !args.json {
        let _ = writeln!(
            out,
            "submitted {count} jobs ({duplicates_queued} already queued or recorded within the dedup window)"
        );
    }
    Ok(())
}

/// What to do about jobs still pending: the command that waits for them
/// again when the file gives every job's id, else the pending ids.
fn wait_again_hint(args: &SubmitArgs, ids: &[&str], all_in_file: bool) -> String {
    let n = ids.len();
    let head = format!(
        "claude-agent submit: {n} job(s) still pending (queued or running, not failed) after {:.1} s",
        args.timeout
    );
    if all_in_file {
        let mut command = format!(
            "claude-agent submit --queue {} --jobs {} --wait --no-publish",
            args.queue,
            args.jobs.display()
        );
        if args.layout.prefix != crate::fleet_args::DEFAULT_PREFIX {
            command.push_str(&format!(" --prefix {}", args.layout.prefix));
        }
        format!("{head}; wait for them again with: {command}")
    } else {
        format!(
            "{head}; their ids (give every job an \"id\" to wait again with --no-publish): {}",
            ids.join(", ")
        )
    }
}
