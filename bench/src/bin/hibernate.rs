//! Hibernation at scale: N logical sessions (default 10,000) on a host
//! with at most `--live` (default 200) CLIs, each session doing two turns
//! with hibernation between them, against a peer that cold-starts a CLI
//! per turn (the same 2N turns, the same slot limit). Each session's fake
//! CLI answers `answer-<i>` under session id `sess-<i>`, so an answer after
//! a revival is checked to come from that session's own CLI, resumed.
//!
//! Reports total time per side and the ratio, peak live CLIs (the host's
//! count, and this process's children running the CLI, counted in
//! `/proc`), and the
//! hibernate latency (the ordered shutdown) and revive latency (request to
//! `initialize` answered, admission wait included; and without it), p50 /
//! p99.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin hibernate [-- --sessions 10000 --live 200]
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use clap::Parser;
use claude_agent::host::{DrainOptions, HostConfig, HostEvent, SessionHandle};
use claude_agent::protocol::Message;
use claude_agent::{client::Client, client::ClientBuilder, host::Host, options::Options};
use claude_agent_bench::{BenchError, Result, Summary, emit, fake_cli, joined, ms, raise_nofile};
use claude_agent_testkit::{ENV_SCRIPT_JSON, Script};
use futures::StreamExt;
use serde_json::json;

#[derive(Parser, Debug)]
struct Args {
    /// Logical sessions.
    #[arg(long, default_value_t = 10_000)]
    sessions: usize,
    /// Live CLIs at most (the host's max_sessions).
    #[arg(long, default_value_t = 200)]
    live: usize,
    /// hibernate_after, in milliseconds.
    #[arg(long, default_value_t = 20)]
    hibernate_after_ms: u64,
    /// Tenants the sessions are spread over.
    #[arg(long, default_value_t = 10)]
    tenants: usize,
}

fn err(e: impl std::fmt::Display) -> BenchError {
    BenchError::Session(e.to_string())
}

/// Session `i`'s builder: a fake CLI answering every turn `answer-<i>`
/// under session id `sess-<i>`, resumed or not.
fn builder(fake: &std::path::Path, i: usize) -> ClientBuilder {
    let script = Script::new()
        .expect_initialize()
        .step(json!({"op": "loop_turns",
        "text": format!("answer-{i}"), "session_id": format!("sess-{i}")}));
    let options = Options::new()
        .cli_path(fake)
        .env(ENV_SCRIPT_JSON, script.to_json());
    ClientBuilder::new(options)
        .grace(Duration::from_secs(2))
        .term_grace(Duration::from_secs(2))
}

/// One turn's answer and the session id the CLI reported.
async fn turn(client: &Client) -> Result<(String, Option<String>)> {
    let mut messages = client.receive_response();
    while let Some(m) = messages.next().await {
        if let Message::Result(r) = m.map_err(err)? {
            return Ok((r.result.clone().unwrap_or_default(), r.session_id.clone()));
        }
    }
    Err(err("the turn ended without a result"))
}

fn check(i: usize, got: (String, Option<String>)) -> Result<()> {
    let want = (format!("answer-{i}"), Some(format!("sess-{i}")));
    if got == want {
        Ok(())
    } else {
        Err(err(format!("session {i}: got {got:?}, want {want:?}")))
    }
}

/// Children of this process running `cli` now (`/proc/self/task/*/children`,
/// each child's `exe`). The one other child, the process keeper the first
/// spawn starts (a shell), is not a CLI and is not counted.
fn cli_children(cli: &std::path::Path) -> usize {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|s| {
            s.split_whitespace()
                .map(|pid| std::fs::read_link(format!("/proc/{pid}/exe")))
                .collect::<Vec<_>>()
        })
        .filter(|exe| exe.as_deref().is_ok_and(|e| e == cli))
        .count()
}

/// `p` with symlinks resolved, as `/proc/PID/exe` shows it.
fn real_path(p: &std::path::Path) -> std::path::PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Samples the live count until `stop`; returns (host's peak, children peak).
fn sample_peaks(
    host: Host,
    stop: Arc<tokio::sync::Notify>,
    cli: std::path::PathBuf,
) -> tokio::task::JoinHandle<(usize, usize)> {
    tokio::spawn(async move {
        let (mut live, mut kids) = (0, 0);
        loop {
            if let Ok(m) = host.metrics().await {
                live = live.max(m.live);
            }
            let cli = cli.clone();
            let now = tokio::task::spawn_blocking(move || cli_children(&cli)).await;
            kids = kids.max(now.unwrap_or(0));
            tokio::select! {
                () = stop.notified() => return (live, kids),
                () = tokio::time::sleep(Duration::from_millis(5)) => {}
            }
        }
    })
}

fn config(args: &Args) -> HostConfig {
    HostConfig::new()
        .max_sessions(args.live)
        .max_per_tenant(args.live)
        .max_queued(args.sessions * 2)
        .max_queued_per_tenant(args.sessions * 2)
        .event_capacity(1 << 17)
}

/// Waits (polling the host's counters, bounded) until `hibernated` sessions are.
async fn until_hibernated(host: &Host, n: usize) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let m = host.metrics().await.map_err(err)?;
        if m.hibernated >= n {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(err(format!("only {} of {n} hibernated", m.hibernated)));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn hibernating(args: &Args, fake: &std::path::Path) -> Result<serde_json::Value> {
    let host =
        Host::start(config(args).hibernate_after(Duration::from_millis(args.hibernate_after_ms)))
            .await
            .map_err(err)?;
    let mut events = host.events();
    let collector = tokio::spawn(async move {
        let (mut hib, mut rev, mut rev_start, mut lagged) =
            (Vec::new(), Vec::new(), Vec::new(), 0u64);
        loop {
            match events.recv().await {
                Ok(HostEvent::Hibernated { took, .. }) => hib.push(ms(took)),
                Ok(HostEvent::Revived { took, waited, .. }) => {
                    rev.push(ms(took));
                    rev_start.push(ms(took.saturating_sub(waited)));
                }
                Ok(HostEvent::Drained(_)) => break,
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => lagged += n,
                Err(_) => break,
            }
        }
        (hib, rev, rev_start, lagged)
    });
    let stop = Arc::new(tokio::sync::Notify::new());
    let peaks = sample_peaks(host.clone(), stop.clone(), real_path(fake));
    let t0 = Instant::now();
    let mut handles: Vec<(usize, SessionHandle)> = Vec::with_capacity(args.sessions);
    for i in 0..args.sessions {
        let h = host
            .spawn(format!("t{}", i % args.tenants), builder(fake, i))
            .await
            .map_err(err)?;
        handles.push((i, h));
    }
    let handles = Arc::new(handles);
    let revived_ok = Arc::new(AtomicUsize::new(0));
    for round in 0..2 {
        let tasks: Vec<_> = (0..handles.len())
            .map(|k| {
                let (handles, ok) = (handles.clone(), revived_ok.clone());
                tokio::spawn(async move {
                    let (i, h) = &handles[k];
                    let client = h.send(format!("turn {round}")).await.map_err(err)?;
                    check(*i, turn(&client).await?)?;
                    if round == 1 {
                        ok.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(())
                })
            })
            .collect();
        for t in tasks {
            joined(t.await)?;
        }
        if round == 0 {
            until_hibernated(&host, args.sessions).await?;
        }
    }
    let total = t0.elapsed();
    let m = host.metrics().await.map_err(err)?;
    stop.notify_one();
    let (peak_live, peak_children) = peaks.await.map_err(err)?;
    host.drain(DrainOptions::new(Duration::from_secs(30))).await;
    let (hib, rev, rev_start, lagged) = collector.await.map_err(err)?;
    Ok(json!({
        "side": "hibernate", "sessions": args.sessions, "live_limit": args.live,
        "turns": 2 * args.sessions, "total_ms": ms(total),
        "revived_answers_ok": revived_ok.load(Ordering::Relaxed),
        "peak_live": peak_live, "peak_children": peak_children,
        "hibernations": m.hibernations, "revivals": m.revivals,
        "hibernate_ms": Summary::of(&hib), "revive_ms": Summary::of(&rev),
        "revive_start_ms": Summary::of(&rev_start), "events_lagged": lagged,
    }))
}

/// The peer: each turn a job of its own (cold start, one turn, shutdown).
async fn cold(args: &Args, fake: &std::path::Path) -> Result<serde_json::Value> {
    let host = Host::start(config(args)).await.map_err(err)?;
    let stop = Arc::new(tokio::sync::Notify::new());
    let peaks = sample_peaks(host.clone(), stop.clone(), real_path(fake));
    let t0 = Instant::now();
    for round in 0..2 {
        let mut jobs = Vec::with_capacity(args.sessions);
        for i in 0..args.sessions {
            let job = host
                .submit(
                    format!("t{}", i % args.tenants),
                    builder(fake, i),
                    format!("turn {round}"),
                )
                .await
                .map_err(err)?;
            jobs.push((i, job));
        }
        for (i, job) in jobs {
            let out = job.outcome().await;
            let r = out
                .result
                .as_ref()
                .ok_or_else(|| err(format!("job {i}: {:?}", out.failure)))?;
            check(
                i,
                (r.result.clone().unwrap_or_default(), r.session_id.clone()),
            )?;
        }
    }
    let total = t0.elapsed();
    stop.notify_one();
    let (peak_live, peak_children) = peaks.await.map_err(err)?;
    host.drain(DrainOptions::new(Duration::from_secs(30))).await;
    Ok(
        json!({"side": "cold_per_turn", "sessions": args.sessions, "live_limit": args.live,
        "turns": 2 * args.sessions, "total_ms": ms(total),
        "peak_live": peak_live, "peak_children": peak_children}),
    )
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    raise_nofile(65_536);
    let fake = fake_cli()?;
    let hib = hibernating(&args, &fake).await?;
    emit(&hib);
    let peer = cold(&args, &fake).await?;
    emit(&peer);
    let ratio = hib["total_ms"].as_f64().unwrap_or(f64::NAN)
        / peer["total_ms"].as_f64().unwrap_or(f64::NAN);
    emit(&json!({"side": "ratio", "hibernate_over_cold_total": ratio}));
    eprintln!(
        "{} sessions, {} live at most: hibernate {:.0} ms, cold per turn {:.0} ms, ratio {ratio:.2}",
        args.sessions, args.live, hib["total_ms"], peer["total_ms"]
    );
    Ok(())
}
