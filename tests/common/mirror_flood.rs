//! A turn that floods the session-store mirror, and the shutdown that
//! collects what the client still has: shared by the overflow tests.

use std::path::Path;

use claude_agent::protocol::Message;
use claude_agent::{client::Client, extensions::SessionReport};
use claude_agent_testkit::Script;
use futures::StreamExt;
use serde_json::{Value, json};

use super::SOON;

/// Transcript entry `n` of `session`, about 1 KiB.
pub fn padded_entry(session: &str, n: u32) -> Value {
    json!({"type": "user", "uuid": format!("{session}-{n}"), "sessionId": session, "n": n,
        "pad": "x".repeat(900)})
}

/// One turn mirroring `frames` frames of one padded entry each into
/// `project`/`session` under the config folder `config`, then its answer.
pub fn flooding_turn(config: &Path, project: &str, session: &str, frames: u32) -> Script {
    let path = format!("{}/projects/{project}/{session}.jsonl", config.display());
    let mut script = Script::new().expect_initialize().expect("user", None);
    for n in 0..frames {
        script = script.emit(json!({"type": "transcript_mirror", "filePath": path,
            "entries": [padded_entry(session, n)]}));
    }
    script
        .emit(super::assistant("done"))
        .emit(super::result("success", "done"))
        .expect_eof()
}

/// The shutdown: every message the client still yields after `seen`, and
/// the report.
pub async fn finish(client: Client, mut seen: Vec<Message>) -> (Vec<Message>, SessionReport) {
    let closing = {
        let c = client.clone();
        tokio::spawn(async move { c.shutdown().await })
    };
    let mut rest = client.receive_messages();
    while let Some(m) = tokio::time::timeout(SOON * 2, rest.next()).await.unwrap() {
        seen.push(m.unwrap());
    }
    let report = tokio::time::timeout(SOON * 2, closing)
        .await
        .unwrap()
        .unwrap();
    (seen, report)
}
