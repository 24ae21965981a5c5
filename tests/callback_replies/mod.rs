//! Helpers for the `client_callbacks*` tests: scripts where the fake CLI
//! asks and waits for each answer, and reading those answers back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::client::Client;
use claude_agent_testkit::Script;
use futures::StreamExt;
use serde_json::Value;

use crate::common::{Fake, SOON, expect_reply, result};

/// After `initialize`: send each request and wait for our reply to it, then
/// end the turn with a result (so the test knows every reply is recorded).
pub(crate) fn ask(mut script: Script, requests: &[Value]) -> Script {
    for r in requests {
        script = script.emit(r.clone());
        script = script.step(expect_reply(r["request_id"].as_str().unwrap()));
    }
    script.emit(result("success", "done"))
}

/// Reads the current turn up to its result, bounded.
pub(crate) async fn finish_turn(client: &Client) {
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next())
        .await
        .expect("turn hung")
    {
        m.unwrap();
    }
}

/// The `response` object of a success reply to `id`, or the error text.
pub(crate) fn answer(fake: &Fake, id: &str) -> Result<Value, String> {
    let reply = fake
        .reply_to(id)
        .unwrap_or_else(|| panic!("no reply to {id}"));
    match reply["response"]["subtype"].as_str() {
        Some("success") => Ok(reply["response"]["response"].clone()),
        _ => Err(reply["response"]["error"].as_str().unwrap().to_owned()),
    }
}
