//! The `claude-agent-sdk-rs` peer of the concurrent-sessions benchmark (b):
//! the same fake CLI and its default script, driven through that crate's
//! `ClaudeClient` (one connect, one turn, one disconnect per job; idle
//! sessions).
//!
//! Its per-session `--version` probe is turned off (`skip_version_check`),
//! as the Python peer's is, so no side pays for an extra process.

use std::path::Path;

use claude_agent_sdk_rs::{ClaudeAgentOptions, ClaudeClient, Message};
use futures::StreamExt;

use crate::peer_figures::{IdleFigure, JobsFigure, idle_phase, jobs_phase};
use crate::{BenchError, Result};

fn options(fake: &Path) -> ClaudeAgentOptions {
    ClaudeAgentOptions::builder()
        .cli_path(fake)
        .skip_version_check(true)
        .build()
}

fn failed(what: &str) -> impl Fn(claude_agent_sdk_rs::ClaudeError) -> BenchError + '_ {
    move |e| BenchError::Session(format!("claude-agent-sdk-rs {what}: {e}"))
}

/// One one-turn job: connect (spawn, initialize), prompt, every message to
/// the result, disconnect. Its one-shot `query()` writes the prompt as plain
/// text (`--print` input), which the fake, like this SDK, does not speak.
async fn one_job(fake: &Path) -> Result<bool> {
    let mut client = connected(fake).await?;
    client.query("hi").await.map_err(failed("query"))?;
    let mut ok = false;
    {
        let mut turn = client.receive_response();
        while let Some(m) = turn.next().await {
            if let Message::Result(r) = m.map_err(failed("receive"))? {
                ok = !r.is_error;
                break;
            }
        }
    }
    client.disconnect().await.map_err(failed("disconnect"))?;
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

async fn connected(fake: &Path) -> Result<ClaudeClient> {
    let mut client = ClaudeClient::new(options(fake));
    client.connect().await.map_err(failed("connect"))?;
    Ok(client)
}

/// `n` clients connected at once (a task each), idle; RSS delta per
/// session; then all disconnected at once.
pub async fn idle(fake: &Path, n: usize) -> Result<IdleFigure> {
    let fake = fake.to_path_buf();
    idle_phase(
        &fake.clone(),
        n,
        move || {
            let fake = fake.clone();
            async move { connected(&fake).await }
        },
        |mut c: ClaudeClient| async move { c.disconnect().await.map_err(failed("disconnect")) },
    )
    .await
}
