//! Time from `shutdown()` to the report, for a CLI that exits on EOF and for
//! one that ignores EOF and SIGTERM (killed after grace + term_grace).
//!
//! ```text
//! cargo run --release -p claude-agent-actors --example shutdown_timing [-- GRACE_MS]
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use claude_agent_actors::process::ProcessSpec;
use claude_agent_actors::{Session, SessionConfig, ShutdownReport};
use claude_agent_testkit::{Script, fake_cli_path};

async fn once(script: &Script, grace: Duration) -> (Duration, ShutdownReport) {
    let mut spec = ProcessSpec::new(fake_cli_path().unwrap());
    spec.env
        .push(("FAKE_CLAUDE_SCRIPT_JSON".into(), script.to_json().into()));
    let cfg = SessionConfig::subprocess(spec)
        .grace(grace)
        .term_grace(grace);
    let (session, _stream) = Session::start(cfg).await.unwrap();
    let t0 = Instant::now();
    let report = session.shutdown().await;
    (t0.elapsed(), report)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    let grace_ms: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let grace = Duration::from_millis(grace_ms);
    let polite = Script::new().expect_initialize().loop_turns("x");
    let stubborn = Script::new()
        .expect_initialize()
        .ignore_signal("TERM")
        .hang();

    let mut fast = vec![];
    for _ in 0..20 {
        let (t, r) = once(&polite, grace).await;
        assert_eq!(r.escalation, claude_agent_actors::Escalation::None);
        fast.push(t);
    }
    let mut slow = vec![];
    for _ in 0..5 {
        let (t, r) = once(&stubborn, grace).await;
        assert_eq!(r.escalation, claude_agent_actors::Escalation::Kill);
        slow.push(t);
    }
    println!("grace = term_grace = {grace:?}");
    println!(
        "exits on EOF          : median {:?} (20 runs), escalation none",
        median(fast)
    );
    let m = median(slow);
    println!(
        "ignores EOF + SIGTERM : median {m:?} (5 runs), escalation kill; {:?} past grace + term_grace",
        m.saturating_sub(2 * grace)
    );
}
