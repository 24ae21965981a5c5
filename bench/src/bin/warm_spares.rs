//! Warm spares with the real Claude Code CLI (offline: the testkit's
//! scripted Messages API on 127.0.0.1): time from `Host::spawn` plus the
//! first `send` to the first frame of the turn, and to its result, with a
//! warm spare waiting vs a cold start. Reps alternate warm and cold so both
//! see the same machine load; before each warm rep the pool is back to one
//! ready spare.
//!
//! ```text
//! cargo run --release -p claude-agent-bench --bin warm_spares [-- --reps 10 --cli PATH]
//! ```

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use claude_agent::host::{DrainOptions, HostConfig};
use claude_agent::protocol::Message;
use claude_agent::{client::ClientBuilder, host::Host, options::Options};
use claude_agent_bench::{BenchError, Result, Summary, emit, ms, workspace_root};
use claude_agent_testkit::model::{ModelScript, ModelServer, Reply};
use futures::StreamExt;
use serde_json::json;

#[derive(Parser, Debug)]
struct Args {
    /// Reps per side.
    #[arg(long, default_value_t = 10)]
    reps: usize,
    /// The real CLI (default: `.cli/node_modules/.bin/claude`).
    #[arg(long)]
    cli: Option<PathBuf>,
}

fn err(e: impl std::fmt::Display) -> BenchError {
    BenchError::Session(e.to_string())
}

/// One rep: (to the first frame, to the result), in ms.
async fn rep(host: &Host, builder: ClientBuilder) -> Result<(f64, f64)> {
    let t0 = Instant::now();
    let h = host.spawn("t", builder).await.map_err(err)?;
    let client = h.send("say hello").await.map_err(err)?;
    let mut messages = client.receive_response();
    let mut first = None;
    let bound = Duration::from_secs(60);
    while let Some(m) = tokio::time::timeout(bound, messages.next())
        .await
        .map_err(|_| err("no frame within 60 s"))?
    {
        let m = m.map_err(err)?;
        first.get_or_insert_with(|| t0.elapsed());
        if let Message::Result(r) = m {
            if r.result.as_deref() != Some("warm or cold") {
                return Err(err(format!("unexpected answer {:?}", r.result)));
            }
            let done = t0.elapsed();
            drop(messages);
            h.cancel();
            h.outcome().await;
            return Ok((ms(first.unwrap_or(done)), ms(done)));
        }
    }
    Err(err("the turn ended without a result"))
}

async fn spares_ready(host: &Host) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(60);
    while host.metrics().await.map_err(err)?.spares < 1 {
        if Instant::now() > deadline {
            return Err(err("the spare never became ready"));
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<()> {
    let args = Args::parse();
    let cli = args
        .cli
        .unwrap_or_else(|| workspace_root().join(".cli/node_modules/.bin/claude"));
    if !cli.is_file() {
        return Err(err(format!(
            "no real CLI at {} (scripts/install-cli.sh)",
            cli.display()
        )));
    }
    let server = ModelServer::start(ModelScript::new().fallback(Reply::text("warm or cold")))
        .await
        .map_err(err)?;
    let home = tempfile::tempdir().map_err(err)?;
    let cwd = tempfile::tempdir().map_err(err)?;
    let mut options = Options::new()
        .cli_path(&cli)
        .cwd(cwd.path())
        .env("HOME", home.path());
    for (k, v) in server.env() {
        options = options.env(k, v);
    }
    let builder = ClientBuilder::new(options).initialize_timeout(Duration::from_secs(60));
    let warm = Host::start(HostConfig::new().warm_spares(1, builder.clone()))
        .await
        .map_err(err)?;
    let cold = Host::start(HostConfig::new()).await.map_err(err)?;
    let (mut wf, mut wr, mut cf, mut cr) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..args.reps {
        spares_ready(&warm).await?;
        let (f, r) = rep(&warm, builder.clone()).await?;
        wf.push(f);
        wr.push(r);
        let (f, r) = rep(&cold, builder.clone()).await?;
        cf.push(f);
        cr.push(r);
    }
    let used = warm.metrics().await.map_err(err)?.spares_used;
    warm.drain(DrainOptions::new(Duration::from_secs(30))).await;
    cold.drain(DrainOptions::new(Duration::from_secs(30))).await;
    let (wf, wr, cf, cr) = (
        Summary::of(&wf),
        Summary::of(&wr),
        Summary::of(&cf),
        Summary::of(&cr),
    );
    emit(
        &json!({"side": "warm", "reps": args.reps, "spares_used": used,
        "first_frame_ms": wf, "result_ms": wr}),
    );
    emit(&json!({"side": "cold", "reps": args.reps, "first_frame_ms": cf, "result_ms": cr}));
    emit(
        &json!({"side": "ratio", "first_frame_p50_cold_over_warm": cf.p50 / wf.p50,
        "result_p50_cold_over_warm": cr.p50 / wr.p50}),
    );
    eprintln!(
        "first frame p50: warm {:.0} ms, cold {:.0} ms ({:.1}x); result p50: warm {:.0} ms, cold {:.0} ms",
        wf.p50,
        cf.p50,
        cf.p50 / wf.p50,
        wr.p50,
        cr.p50
    );
    Ok(())
}
