//! `workspaceTrust` against the real CLI 2.1.332: an accepted attestation
//! for the session's directory, sent in `initialize` or in a spare's
//! `claim_session`, is persisted as the CLI's own trust grant
//! (`hasTrustDialogAccepted` for the directory in `~/.claude.json`) and
//! reported as `workspace_trust_recorded`; without one nothing is granted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::path::Path;

use claude_agent::client::Claim;
use claude_agent::options::WorkspaceTrust;
use claude_agent_testkit::model::ModelScript;
use real_cli::{Rig, shutdown};
use serde_json::Value;

/// Whether the CLI's global config in `home` records `dir` as trusted.
fn trusted(home: &Path, dir: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(home.join(".claude.json")) else {
        return false;
    };
    let config: Value = serde_json::from_str(&text).unwrap();
    let key = std::fs::canonicalize(dir).unwrap();
    config["projects"][key.to_str().unwrap()]["hasTrustDialogAccepted"] == Value::Bool(true)
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_accepted_trust_in_initialize_is_recorded_and_persisted() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let cwd = std::fs::canonicalize(rig.cwd.path()).unwrap();
    let client = rig
        .connect(
            rig.options()
                .workspace_trust(WorkspaceTrust::accepted(&cwd)),
        )
        .await;
    let info = client.server_info().unwrap();
    assert_eq!(
        info.workspace_trust_recorded,
        Some(true),
        "{:?}",
        info.extra
    );
    shutdown(&client).await;
    assert!(trusted(rig.home.path(), &cwd), "no grant persisted");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn without_an_attestation_nothing_is_recorded_or_persisted() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let info = client.server_info().unwrap();
    assert_eq!(info.workspace_trust_recorded, None);
    shutdown(&client).await;
    assert!(!trusted(rig.home.path(), rig.cwd.path()));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_claims_accepted_trust_is_recorded_for_the_claimed_directory() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let cwd = std::fs::canonicalize(rig.cwd.path()).unwrap();
    let options = rig.options_without_cwd();
    let spare = rig.builder(options).prewarm().await.unwrap();
    let claim = Claim::new(&cwd).workspace_trust(WorkspaceTrust::accepted(&cwd));
    let (client, reply) = spare.claim(claim).await.unwrap();
    assert_eq!(reply.workspace_trust_recorded, Some(true), "{reply:?}");
    shutdown(&client).await;
    assert!(trusted(rig.home.path(), &cwd), "no grant persisted");
}
