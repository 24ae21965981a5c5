//! The `cc-sdk` peer of the concurrent-sessions benchmark (b): the same fake
//! CLI and its default script, each job a `ClaudeSDKClient` that connects,
//! sends one prompt, reads to the result and disconnects (its one-shot
//! `query()` runs `--print` mode on the CLI it finds on `PATH`, so it cannot
//! be pointed at the fake).
//!
//! The fake runs its default script minus the `initialize` step, which
//! `cc-sdk` does not send (see `SCRIPT`).
//!
//! `cc-sdk` runs `<cli> --version` before every connect and has no switch
//! to turn that off; its figures include that extra process per session.

use std::path::Path;

use cc_sdk::transport::SubprocessTransport;
use cc_sdk::{ClaudeCodeOptions, ClaudeSDKClient, Message};
use futures::StreamExt;

use crate::peer_figures::{IdleFigure, JobsFigure, idle_phase, jobs_phase};
use crate::{BenchError, Result};

fn failed(what: &str) -> impl Fn(cc_sdk::SdkError) -> BenchError + '_ {
    move |e| BenchError::Session(format!("cc-sdk {what}: {e}"))
}

/// The fake's default script without its `initialize` step: with no
/// callbacks configured, `cc-sdk` does not send `initialize` (the real CLI
/// does not need one), so the fake must not wait for it.
const SCRIPT: &str = r#"{"steps": [
    {"op": "auto", "rules": [{"subtype": "interrupt", "reply": {"still_queued": []}}]},
    {"op": "loop_turns", "text": "Hello from the fake CLI."}
], "on_end": "wait_eof"}"#;

async fn connected(fake: &Path) -> Result<ClaudeSDKClient> {
    let mut options = ClaudeCodeOptions::builder().build();
    options
        .env
        .insert("FAKE_CLAUDE_SCRIPT_JSON".to_owned(), SCRIPT.to_owned());
    let transport = SubprocessTransport::with_cli_path(options.clone(), fake);
    let mut client = ClaudeSDKClient::with_transport(options, Box::new(transport));
    client.connect(None).await.map_err(failed("connect"))?;
    Ok(client)
}

async fn step<T>(what: &str, f: impl std::future::Future<Output = Result<T>>) -> Result<T> {
    tokio::time::timeout(std::time::Duration::from_secs(15), f)
        .await
        .map_err(|_| BenchError::Session(format!("cc-sdk {what}: stalled for 15 s")))?
}

/// One job. The receiver is installed before the prompt is sent (`cc-sdk`
/// moves its buffered messages to a new receiver and then installs it; a
/// message arriving in between is lost). Its channels keep their default
/// size: raising them to 10,000 messages (as (c) does) did not stop the
/// stalls below and cost it about 3.7 MiB per session. With a few hundred
/// sessions at once
/// a session's result sometimes never arrives: each step gives up after
/// 15 s, and the job counts as not completed.
async fn one_job(fake: &Path) -> Result<bool> {
    let mut client = step("connect", connected(fake)).await?;
    let mut turn = client.receive_messages().await;
    client
        .send_user_message("hi".to_owned())
        .await
        .map_err(failed("send"))?;
    let mut ok = false;
    while let Some(m) = step("receive", async { Ok(turn.next().await) }).await? {
        if let Message::Result { is_error, .. } = m.map_err(failed("receive"))? {
            ok = !is_error;
            break;
        }
    }
    drop(turn);
    step("disconnect", async {
        client.disconnect().await.map_err(failed("disconnect"))
    })
    .await?;
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
        |mut c: ClaudeSDKClient| async move { c.disconnect().await.map_err(failed("disconnect")) },
    )
    .await
}
