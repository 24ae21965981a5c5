//! `claude-agent worker`: pull jobs from the fleet's JetStream work queue
//! and run them through a local [`Host`], recording each outcome.
//!
//! The pull loop keeps up to twice `--concurrency` jobs: the running ones
//! and as many again queued in the host, so a slot whose CLI exits takes
//! the next job at once instead of idling through a pull round trip, and
//! each waiting job's look-ups (is its outcome recorded, has its session a
//! transcript) run while other jobs' turns do. While jobs wait in the
//! host, the loop gathers free places into one pull of at least half
//! `--concurrency`, rather than one request per finished job. Each job runs in its own
//! task ([`job`]), which marks it in progress while it waits, so the ack
//! wait can stay short. SIGTERM (or SIGINT) drains: the loop stops pulling, the
//! host finishes running turns within `--drain-deadline` and kills what
//! is left, and every job that did not finish is released (negatively
//! acknowledged) for another worker. A further signal during the drain
//! cuts it short: each running CLI gets SIGTERM at once (SIGKILL on the
//! signal after), its job is released, and the worker exits.
//!
//! Exit codes: 2 the fleet, store or host could not be opened (an
//! incompatible stream layout included); 64 usage error; 130/143 stopped
//! by SIGINT/SIGTERM.

mod connection;
mod job;
mod out;
mod verdict;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::fleet::Fleet;
use claude_agent::fleet::async_nats::jetstream::consumer::PullConsumer;
use claude_agent::host::{DrainOptions, HostConfig, RestartPolicy};
use claude_agent::store::SessionStore;
use claude_agent::{host::Host, options::Options};
use futures::StreamExt;
use serde_json::json;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::args::seconds;
use crate::fleet_args::LayoutArgs;
use crate::signals::{StopSignal, StopSignals};
use out::Out;

/// Arguments of `claude-agent worker`.
#[derive(Debug, clap::Args)]
pub(crate) struct WorkerArgs {
    /// The NATS server: nats://HOST:PORT.
    #[arg(long, value_name = "URL")]
    queue: String,
    /// The session store every worker shares (postgres://..., redis://...,
    /// file:///folder): transcripts are mirrored there, and a job continuing
    /// a session (or rerun after its worker died) resumes from it.
    #[arg(long, value_name = "URL")]
    store: String,
    #[command(flatten)]
    store_timeout: crate::store::StoreTimeout,
    #[command(flatten)]
    store_overflow: crate::store::StoreOverflowArg,
    /// Jobs running at once.
    #[arg(long, value_name = "N", default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..))]
    concurrency: u32,
    /// Jobs running at once per tenant (default: --concurrency).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    per_tenant: Option<u32>,
    /// Path to the `claude` executable (default: discovery).
    #[arg(long, value_name = "PATH")]
    cli: Option<PathBuf>,
    /// This worker's name in outcomes (default: host name and pid).
    #[arg(long, value_name = "NAME")]
    name: Option<String>,
    #[command(flatten)]
    layout: LayoutArgs,
    /// On SIGINT/SIGTERM: seconds running turns get to finish before they
    /// are killed and their jobs released to other workers.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    drain_deadline: f64,
    /// Seconds a CLI gets to exit after EOF before SIGTERM.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    grace: f64,
    /// Seconds a CLI gets after SIGTERM before SIGKILL.
    #[arg(long, value_name = "SECS", default_value_t = 5.0)]
    term_grace: f64,
    /// Seconds to wait for `initialize`, each control reply, and the store.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    timeout: f64,
    /// One JSON object per job event on stdout.
    #[arg(long)]
    json: bool,
}

/// Settings every job task reads.
pub(crate) struct Ctx {
    fleet: Fleet,
    host: Host,
    store: Arc<dyn SessionStore>,
    store_overflow: claude_agent::store::StoreOverflow,
    base: Options,
    worker: String,
    out: Out,
    /// Cancelled when the worker drains: jobs that did not finish are released.
    draining: CancellationToken,
    ack_wait: Duration,
    max_deliveries: u64,
    grace: Duration,
    term_grace: Duration,
    timeout: Duration,
}

// The pull loop's timings are fixed, not options: none bounds a job (the
// job's own `--timeout`, the graces and the ack wait do, and those are
// options); they decide only how often an idle worker asks for work and
// how soon it notices a server that went away.

/// How long one pull waits for jobs before asking again.
const PULL_EXPIRES: Duration = Duration::from_secs(1);
/// What a pull (and the batch it returns) may take past
/// [`PULL_EXPIRES`] before the worker counts the server gone and pulls
/// again: a batch normally ends at `PULL_EXPIRES`, this covers a server
/// that vanished mid-batch.
const PULL_MARGIN: Duration = Duration::from_secs(2);
/// Bound on sending what is buffered before exiting (with the server
/// gone the releases and acks are lost anyway, and the jobs redelivered).
const FLUSH: Duration = Duration::from_secs(5);
/// Pause after a failed pull (the server is restarting, say).
const PULL_RETRY: Duration = Duration::from_millis(250);
/// Jobs held per slot: one running, one queued behind it in the host.
const AHEAD: usize = 2;

pub(crate) fn run(args: WorkerArgs) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("claude-agent worker: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    // Read before the runtime: it touches the filesystem.
    let worker = args.name.clone().unwrap_or_else(default_name);
    runtime.block_on(serve(args, worker))
}

fn usage(msg: &str) -> ExitCode {
    eprintln!("claude-agent worker: {msg}");
    ExitCode::from(crate::EXIT_USAGE)
}

fn fatal(msg: &str) -> ExitCode {
    eprintln!("claude-agent worker: {msg}");
    ExitCode::from(2)
}

async fn serve(args: WorkerArgs, worker: String) -> ExitCode {
    let mut stop = StopSignals::register();
    let durations = (|| {
        Ok::<_, String>((
            seconds("drain-deadline", args.drain_deadline)?,
            seconds("grace", args.grace)?,
            seconds("term-grace", args.term_grace)?,
            seconds("timeout", args.timeout)?,
            args.store_timeout.get()?,
        ))
    })();
    let ((drain_deadline, grace, term_grace, timeout, store_timeout), layout) =
        match (durations, args.layout.layout()) {
            (Ok(d), Ok(l)) => (d, l),
            (Err(e), _) | (_, Err(e)) => return usage(&e),
        };
    let (ack_wait, max_deliveries) = (layout.ack_wait, u64::from(layout.max_deliveries));
    let store = match crate::store::open(&args.store, store_timeout, "worker").await {
        Ok(s) => s,
        Err(e) if e.bad_url => return usage(&e.message),
        Err(e) => return fatal(&e.message),
    };
    let out = Out::start(args.json);
    let options = connection::options(out.clone(), &args.queue);
    let fleet = match crate::fleet_args::connect_with(&args.queue, layout, options).await {
        Ok(f) => f,
        Err(e) => return fatal(&e),
    };
    let consumer = match fleet.consumer().await {
        Ok(c) => c,
        Err(e) => return fatal(&crate::store::with_causes(&e)),
    };
    let concurrency = args.concurrency as usize;
    let config = HostConfig::new()
        .max_sessions(concurrency)
        .max_per_tenant(args.per_tenant.map_or(concurrency, |n| n as usize))
        // Room for every job pulled ahead (see `pull`).
        .max_queued(AHEAD * concurrency)
        .max_queued_per_tenant(AHEAD * concurrency)
        // A crash is retried by redelivery (on any worker), not here.
        .restart(RestartPolicy::Never);
    let host = match Host::start(config).await {
        Ok(h) => h,
        Err(e) => return fatal(&e.to_string()),
    };
    let mut base = Options::new();
    if let Some(cli) = &args.cli {
        base = base.cli_path(cli);
    }
    let ctx = Arc::new(Ctx {
        fleet,
        host,
        store,
        store_overflow: args.store_overflow.get(),
        base,
        worker: worker.clone(),
        out: out.clone(),
        draining: CancellationToken::new(),
        ack_wait,
        max_deliveries,
        grace,
        term_grace,
        timeout,
    });
    out.emit(
        json!({"kind": "worker_started", "worker": worker, "concurrency": concurrency}),
        format!("worker {worker}: pulling jobs ({concurrency} at once)"),
    )
    .await;
    let mut tasks = JoinSet::new();
    let signal = pull(&ctx, &consumer, concurrency, &mut stop, &mut tasks).await;
    ctx.draining.cancel();
    while tasks.try_join_next().is_some() {}
    out.emit(
        json!({"kind": "worker_draining", "signal": signal.name(), "running": tasks.len()}),
        format!(
            "worker {worker}: {}: draining {} jobs (deadline {:.1} s)",
            signal.name(),
            tasks.len(),
            drain_deadline.as_secs_f64()
        ),
    )
    .await;
    let host = ctx.host.clone();
    let drain = tokio::spawn(async move { host.drain(DrainOptions::new(drain_deadline)).await });
    // Each job task ends once its session has: within the drain deadline
    // plus the shutdown's own bounded waits.
    let bound = drain_deadline + grace + term_grace + timeout;
    {
        let joined = async { while tasks.join_next().await.is_some() {} };
        tokio::pin!(joined);
        let end = tokio::time::Instant::now() + bound;
        loop {
            tokio::select! {
                () = &mut joined => break,
                () = tokio::time::sleep_until(end) => break,
                again = stop.recv() => hurry(&ctx, again).await,
            }
        }
    }
    tasks.abort_all();
    let _ = tokio::time::timeout(bound, drain).await;
    // Releases and acks are in the client's buffer: send them (briefly:
    // with the server gone they are lost anyway, and redelivered later).
    let _ = tokio::time::timeout(FLUSH, ctx.fleet.client().flush()).await;
    out.emit(
        json!({"kind": "worker_stopped", "signal": signal.name()}),
        format!("worker {worker}: stopped"),
    )
    .await;
    out.close().await;
    ExitCode::from(signal.exit_code())
}

/// Pulls jobs until a stop signal, which it returns: at most
/// [`AHEAD`] × `concurrency` held at once (a job is held from its delivery
/// until its CLI is gone; recording its outcome overlaps the next job).
async fn pull(
    ctx: &Arc<Ctx>,
    consumer: &PullConsumer,
    concurrency: usize,
    stop: &mut StopSignals,
    tasks: &mut JoinSet<()>,
) -> StopSignal {
    let slots = Arc::new(Semaphore::new(AHEAD * concurrency));
    // Pull at least this many at once while jobs wait in the host: half
    // the server's pull requests for the same jobs.
    let min_batch = (concurrency / 2).max(1);
    loop {
        while tasks.try_join_next().is_some() {}
        let first = tokio::select! {
            signal = stop.recv() => return signal,
            permit = slots.clone().acquire_owned() => match permit {
                Ok(p) => p,
                // Never closed; stop rather than spin if it were.
                Err(_) => return StopSignal::Terminate,
            },
        };
        let mut permits = vec![first];
        loop {
            while let Ok(p) = slots.clone().try_acquire_owned() {
                permits.push(p);
            }
            // Jobs held now; more than `concurrency` means some wait in
            // the host's queue, so the slots stay busy while we gather a
            // larger pull (fewer requests for the server to serve).
            let held = AHEAD * concurrency - permits.len();
            if permits.len() >= min_batch || held <= concurrency {
                break;
            }
            tokio::select! {
                signal = stop.recv() => return signal,
                permit = slots.clone().acquire_owned() => match permit {
                    Ok(p) => permits.push(p),
                    Err(_) => return StopSignal::Terminate,
                },
            }
        }
        let request = consumer
            .batch()
            .max_messages(permits.len())
            .expires(PULL_EXPIRES)
            .messages();
        // A server that is down must not keep the worker from its signals.
        let batch = tokio::select! {
            signal = stop.recv() => return signal,
            batch = tokio::time::timeout(PULL_EXPIRES + PULL_MARGIN, request) => batch,
        };
        let mut batch = match batch {
            Ok(Ok(b)) => b,
            Err(_) => continue,
            Ok(Err(e)) => {
                ctx.out.note(&format!("pulling jobs failed: {e}")).await;
                tokio::select! {
                    signal = stop.recv() => return signal,
                    () = tokio::time::sleep(PULL_RETRY) => continue,
                }
            }
        };
        let bound = PULL_EXPIRES + PULL_MARGIN;
        loop {
            let next = tokio::select! {
                signal = stop.recv() => {
                    release_rest(ctx, batch, bound).await;
                    return signal;
                }
                next = tokio::time::timeout(bound, batch.next()) => next,
            };
            match next {
                Ok(Some(Ok(message))) => {
                    let Some(permit) = permits.pop() else {
                        // More than asked for: let another worker have it.
                        let _ = message.ack_with(job::NAK_NOW).await;
                        continue;
                    };
                    tasks.spawn(job::handle(ctx.clone(), message, permit));
                }
                Ok(Some(Err(e))) => {
                    ctx.out.note(&format!("pulling jobs failed: {e}")).await;
                    break;
                }
                Ok(None) | Err(_) => break,
            }
        }
    }
}

/// A further signal during the drain: every session's shutdown skips its
/// current wait (SIGTERM to the CLI now; SIGKILL on the next signal), as
/// `host` does. Their jobs end drained and are released at once.
async fn hurry(ctx: &Ctx, signal: StopSignal) {
    let sessions = ctx.host.sessions().await.unwrap_or_default();
    ctx.out
        .emit(
            json!({"kind": "worker_hurried", "signal": signal.name(), "sessions": sessions.len()}),
            format!(
                "{}: cutting the drain short ({} sessions)",
                signal.name(),
                sessions.len()
            ),
        )
        .await;
    for session in sessions {
        if let Some(client) = session.current_client() {
            client.hurry();
        }
    }
}

/// Jobs of the current pull that arrive after the stop signal go back at
/// once, so another worker need not wait for their ack wait.
async fn release_rest(
    ctx: &Arc<Ctx>,
    mut batch: claude_agent::fleet::async_nats::jetstream::consumer::pull::Batch,
    bound: Duration,
) {
    while let Ok(Some(Ok(message))) = tokio::time::timeout(bound, batch.next()).await {
        let _ = message.ack_with(job::NAK_NOW).await;
        ctx.out
            .note("released a job pulled as the drain began")
            .await;
    }
}

/// `<host name>-<pid>`.
fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".into());
    format!("{host}-{}", std::process::id())
}
