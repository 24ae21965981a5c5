//! `workspace_trust` on a spare, as the TypeScript SDK sends it: a
//! prewarmed spare's `initialize` never carries the options' attestation
//! (it is per session), and the claim's accepted one travels in
//! `claim_session` as `workspace_trust`. The fake CLI records both.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::client::Claim;
use claude_agent::options::WorkspaceTrust;
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

#[tokio::test]
async fn a_spare_sends_trust_only_in_its_claim() {
    let claimed = tempfile::tempdir().unwrap();
    let dir = claimed.path().to_str().unwrap().to_owned();
    let reply = json!({"status": "ok", "cwd": dir, "session_id": "s-1",
                       "workspace_trust_recorded": true});
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("claim_session", reply),
    );
    let options = fake
        .options()
        .workspace_trust(WorkspaceTrust::accepted("/not/this/one"));
    let spare = quick_builder(options).prewarm().await.unwrap();
    let claim =
        Claim::new(claimed.path()).workspace_trust(WorkspaceTrust::accepted(claimed.path()));
    let (client, reply) = spare.claim(claim).await.unwrap();
    assert_eq!(reply.workspace_trust_recorded, Some(true));
    client.shutdown().await;

    let sent = fake.received();
    let init = sent
        .iter()
        .find(|l| l["request"]["subtype"] == "initialize")
        .unwrap();
    assert_eq!(init["request"].get("workspaceTrust"), None, "{init}");
    let claim = sent
        .iter()
        .find(|l| l["request"]["subtype"] == "claim_session")
        .unwrap();
    assert_eq!(
        claim["request"]["workspace_trust"],
        json!({"accepted": true, "directory": dir})
    );
}
