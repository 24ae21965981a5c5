//! The requests the TypeScript SDK declares for its other hosts and never
//! sends, against the real CLI 2.1.332: six answer and decode typed and
//! take effect; `set_color` is refused as unsupported by the CLI's
//! stream-json mode (a CLI limit, asserted here as the evidence).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::options::McpServerConfig;
use claude_agent::{Error, runtime::ControlError};
use claude_agent_testkit::model::ModelScript;
use claude_agent_testkit::{MCP_ECHO_ENV_ARG, fake_cli_path};
use real_cli::{Rig, shutdown};
use serde_json::{Map, json};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_cost_text_and_the_binary_version_come_back_typed() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let cost = client.get_session_cost().await.unwrap();
    assert!(cost.starts_with("Estimated cost:"), "{cost}");
    assert!(cost.contains("Usage:"), "{cost}");

    let version = client.get_binary_version().await.unwrap();
    assert_eq!(version.version.as_deref(), Some("2.1.332"), "{version:?}");
    assert!(version.build_time.is_some(), "{version:?}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn file_suggestions_list_the_working_directorys_entries() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    std::fs::write(rig.cwd.path().join("program.rs"), "fn main() {}").unwrap();
    std::fs::create_dir(rig.cwd.path().join("sub")).unwrap();
    let client = rig.connect(rig.options()).await;
    let reply = client.file_suggestions("").await.unwrap();
    let paths = reply.paths();
    assert!(paths.contains(&"program.rs"), "{paths:?}");
    assert!(paths.contains(&"sub/"), "{paths:?}");
    let cwd = std::fs::canonicalize(rig.cwd.path()).unwrap();
    let said = std::fs::canonicalize(reply.cwd.as_deref().unwrap()).unwrap();
    assert_eq!(said, cwd);
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_registered_repo_root_is_a_workspace_directory_and_a_second_time_is_refused() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let sub = rig.cwd.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let sub = std::fs::canonicalize(sub).unwrap().display().to_string();
    let client = rig.connect(rig.options()).await;

    assert_eq!(client.register_repo_root(&sub).await.unwrap(), sub);
    let state = client.list_permission_rules().await.unwrap();
    let dirs: Vec<String> = state
        .workspace_directories
        .iter()
        .flatten()
        .filter_map(|d| d.path.clone())
        .collect();
    assert!(dirs.contains(&sub), "{dirs:?}");

    let err = client.register_repo_root(&sub).await.unwrap_err();
    let Error::Control(ControlError::Remote { message }) = &err else {
        panic!("not the CLI's error reply: {err}");
    };
    assert!(
        message.contains("already a registered working directory"),
        "{message}"
    );
    let err = client.register_repo_root("/").await.unwrap_err();
    assert!(
        matches!(err, Error::Control(ControlError::Remote { .. })),
        "{err}"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_mcp_call_runs_an_external_servers_tool_without_a_turn() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let server = McpServerConfig::stdio(
        fake_cli_path().unwrap().display().to_string(),
        [MCP_ECHO_ENV_ARG],
    )
    .env("ECHO_WORD", "from-the-server");
    let client = rig.connect(rig.options().mcp_server("echo", server)).await;
    let mut arguments = Map::new();
    arguments.insert("name".into(), json!("ECHO_WORD"));
    let result = client
        .mcp_call("mcp__echo__echo_env", arguments)
        .await
        .unwrap();
    assert_eq!(
        result.content,
        Some(json!([{"type": "text", "text": "from-the-server"}]))
    );
    // No model turn ran for it.
    assert!(rig.server.main_requests().is_empty());
    let err = client
        .mcp_call("mcp__nowhere__tool", Map::new())
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Control(ControlError::Remote { .. })),
        "{err}"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn set_has_subscribers_is_accepted_for_each_answer_and_set_color_is_unsupported() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    for watched in [Some(false), Some(true), None] {
        client.set_has_subscribers(watched).await.unwrap();
    }
    // The evidence for the CLI limit: stream-json mode has no accent colour.
    let err = client
        .control(json!({"subtype": "set_color", "color": "blue"}), None)
        .await
        .unwrap_err();
    let Error::Control(ControlError::Remote { message }) = &err else {
        panic!("not the CLI's error reply: {err}");
    };
    assert_eq!(message, "Unsupported control request subtype: set_color");
    shutdown(&client).await;
}
