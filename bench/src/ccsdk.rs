//! The `cc-sdk` peer of the control round-trip benchmark (c): the same fake
//! CLI and script, driven through `cc-sdk`'s `ClaudeSDKClient` with a
//! permission callback that allows at once, as ours does.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use cc_sdk::transport::SubprocessTransport;
use cc_sdk::{
    CanUseTool, ClaudeCodeOptions, ClaudeSDKClient, Message, PermissionResult,
    PermissionResultAllow, ToolPermissionContext,
};
use futures::StreamExt;

use crate::rtt::script;
use crate::{BenchError, Result, ms, read_rtt_file};

/// `cc-sdk`'s channels between its reader, its control handler and its
/// writer hold this many messages (its default is 100); raised so that no
/// level of the benchmark can be slowed by a full channel.
const CHANNEL_BUFFER: usize = 10_000;

struct AllowNow;

#[async_trait::async_trait]
impl CanUseTool for AllowNow {
    async fn can_use_tool(
        &self,
        _tool_name: &str,
        _input: &serde_json::Value,
        _context: &ToolPermissionContext,
    ) -> PermissionResult {
        PermissionResult::Allow(PermissionResultAllow {
            updated_input: None,
            updated_permissions: None,
        })
    }
}

fn failed(what: &str) -> impl Fn(cc_sdk::SdkError) -> BenchError + '_ {
    move |e| BenchError::Session(format!("cc-sdk {what}: {e}"))
}

async fn connect(fake: &Path, out: &Path, count: u64, interval_ms: u64) -> Result<ClaudeSDKClient> {
    let mut options = ClaudeCodeOptions::builder()
        .cli_channel_buffer_size(CHANNEL_BUFFER)
        .build();
    options.can_use_tool = Some(Arc::new(AllowNow));
    options.env.insert(
        "FAKE_CLAUDE_SCRIPT_JSON".to_owned(),
        script(count, out, interval_ms),
    );
    let transport = SubprocessTransport::with_cli_path(options.clone(), fake);
    let mut client = ClaudeSDKClient::with_transport(options, Box::new(transport));
    client.connect(None).await.map_err(failed("connect"))?;
    Ok(client)
}

async fn one_turn(mut client: ClaudeSDKClient) -> Result<ClaudeSDKClient> {
    client
        .send_user_message("go".to_owned())
        .await
        .map_err(failed("send"))?;
    {
        let mut turn = client.receive_response().await;
        while let Some(m) = turn.next().await {
            if let Message::Result { .. } = m.map_err(failed("receive"))? {
                break;
            }
        }
    }
    Ok(client)
}

/// One level through `cc-sdk`: connect `n` clients, run their turns at
/// once, collect the fake's round-trip times (µs) and the wall time (ms).
pub async fn cc_sdk_level(
    fake: &Path,
    n: usize,
    count: u64,
    interval_ms: u64,
) -> Result<(Vec<f64>, f64)> {
    let dir = tempfile::tempdir().map_err(|source| BenchError::Io {
        what: "creating a temp dir".into(),
        source,
    })?;
    let outs: Vec<PathBuf> = (0..n)
        .map(|i| dir.path().join(format!("rtt-{i}.txt")))
        .collect();
    let mut clients = Vec::with_capacity(n);
    for out in &outs {
        clients.push(connect(fake, out, count, interval_ms).await?);
    }
    let t0 = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|c| tokio::spawn(one_turn(c)))
        .collect();
    let mut done = Vec::with_capacity(n);
    for t in tasks {
        done.push(
            t.await
                .map_err(|e| BenchError::Session(format!("task: {e}")))??,
        );
    }
    let wall = t0.elapsed();
    for mut c in done {
        c.disconnect().await.map_err(failed("disconnect"))?;
    }
    let mut all = Vec::new();
    for out in &outs {
        all.extend(read_rtt_file(out)?);
    }
    Ok((all, ms(wall)))
}
