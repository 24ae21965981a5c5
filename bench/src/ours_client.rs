//! This SDK without its `Host`, in the concurrent-sessions benchmark (b):
//! `ClientBuilder::connect` in a task per session, exactly as the Rust
//! peers connect theirs (`sdkrs.rs`, `ccsdk_concurrent.rs`), so the
//! per-session figures compare like with like. The `Host` side
//! (`concurrent.rs`) adds admission, a supervising task and events per
//! session on top of this.

use std::path::Path;

use claude_agent::protocol::Message;
use claude_agent::{client::Client, client::ClientBuilder, options::Options};
use futures::StreamExt;

use crate::peer_figures::{IdleFigure, JobsFigure, idle_phase, jobs_phase};
use crate::{BenchError, Result};

fn failed(what: &str) -> impl Fn(claude_agent::Error) -> BenchError + '_ {
    move |e| BenchError::Session(format!("claude-agent {what}: {e}"))
}

async fn connected(fake: &Path) -> Result<Client> {
    ClientBuilder::new(Options::new().cli_path(fake))
        .connect()
        .await
        .map_err(failed("connect"))
}

/// One one-turn job: connect, prompt, every message to the result, shut
/// down.
async fn one_job(fake: &Path) -> Result<bool> {
    let client = connected(fake).await?;
    client.send("hi").await.map_err(failed("send"))?;
    let mut ok = false;
    {
        let mut turn = client.receive_response();
        while let Some(m) = turn.next().await {
            if let Message::Result(r) = m.map_err(failed("receive"))? {
                ok = !r.is_error();
                break;
            }
        }
    }
    client.shutdown().await;
    Ok(ok)
}

/// `n` one-turn jobs at once (a task each); wall time to the last result.
pub async fn jobs(fake: &Path, n: usize) -> Result<JobsFigure> {
    let fake = fake.to_path_buf();
    jobs_phase(&fake.clone(), n, move || {
        let fake = fake.clone();
        async move { one_job(&fake).await }
    })
    .await
}

/// `n` clients connected at once (a task each), idle; then all shut down
/// at once.
pub async fn idle(fake: &Path, n: usize) -> Result<IdleFigure> {
    let fake = fake.to_path_buf();
    idle_phase(
        &fake.clone(),
        n,
        move || {
            let fake = fake.clone();
            async move { connected(&fake).await }
        },
        |c: Client| async move {
            c.shutdown().await;
            Ok(())
        },
    )
    .await
}
