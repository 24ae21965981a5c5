//! Typed control replies from the real CLI: the interrupt receipt, the
//! effective permission mode, MCP status, context usage, and the supported
//! commands and models.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::time::Duration;

use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::client::ContextDetail;
use claude_agent::options::PermissionMode;
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{Block, ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Value, json};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn interrupt_returns_a_receipt_with_the_still_queued_list() {
    let script = ModelScript::new().reply(Reply::Hang {
        blocks_before: vec![Block::text("partial ")],
    });
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("talk slowly").await.unwrap();
    assert!(
        rig.server
            .wait_for_main_requests(1, Duration::from_secs(30))
            .await
    );
    let receipt = client.interrupt().await.unwrap();
    assert_eq!(
        receipt.still_queued.as_deref(),
        Some(&[][..]),
        "{receipt:?}"
    );
    assert_eq!(receipt.cancelled, None);
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::ErrorDuringExecution);
    let err = result.into_result().unwrap_err();
    assert_eq!(err.subtype(), &ResultSubtype::ErrorDuringExecution);
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn set_permission_mode_replies_with_the_effective_mode() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let reply = client
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await
        .unwrap();
    assert_eq!(
        reply.effective_mode(),
        Some(PermissionMode::AcceptEdits),
        "{reply:?}"
    );
    let reply = client
        .set_permission_mode(PermissionMode::Plan)
        .await
        .unwrap();
    assert_eq!(
        reply.effective_mode(),
        Some(PermissionMode::Plan),
        "{reply:?}"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn mcp_status_lists_an_in_process_server_as_connected_with_its_tools() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("ok"))).await else {
        return;
    };
    let add = Tool::new(
        "add",
        "Add two numbers",
        json!({"type": "object", "properties": {"a": {"type": "number"}}}),
        |_args: Value, _ctx: ToolContext| async { Ok::<_, CallbackError>(ToolResult::text("0")) },
    );
    let client = rig
        .builder(rig.options())
        .mcp_server(SdkMcpServer::new("calc", "1.0.0").tool(add))
        .connect()
        .await
        .unwrap();
    // 2.1.332 lists in-process servers once a turn has set them up.
    client.send("hello").await.unwrap();
    turn(&client).await;
    let servers = client.mcp_status().await.unwrap();
    let calc = servers
        .iter()
        .find(|s| s.name.as_deref() == Some("calc"))
        .unwrap_or_else(|| panic!("{servers:?}"));
    assert_eq!(calc.status.as_deref(), Some("connected"), "{calc:?}");
    let tools: Vec<_> = calc
        .tools
        .iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(tools, ["add"], "{calc:?}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn context_usage_reports_categories_within_the_window() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("ok"))).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("hello").await.unwrap();
    turn(&client).await;
    let usage = client
        .get_context_usage_with(ContextDetail::Summary)
        .await
        .unwrap();
    let total = usage.total_tokens.unwrap();
    let max = usage.max_tokens.unwrap();
    assert!(total > 0 && total <= max, "{usage:?}");
    let categories = usage.categories.unwrap();
    assert!(
        categories.iter().any(|c| c.kind.as_deref() == Some("free")),
        "{categories:?}"
    );
    assert!(usage.is_auto_compact_enabled.is_some(), "{:?}", usage.extra);
    let full = client.get_context_usage().await.unwrap();
    assert!(full.total_tokens.unwrap() > 0, "{full:?}");
    assert_eq!(full.max_tokens, Some(max));
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn supported_commands_and_models_come_from_the_initialize_reply() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let commands = client.supported_commands().unwrap();
    assert!(
        commands
            .iter()
            .any(|c| c.name.as_deref() == Some("compact")),
        "{commands:?}"
    );
    let models = client.supported_models().unwrap();
    assert!(!models.is_empty());
    assert!(models.iter().all(|m| m.value.is_some()), "{models:?}");
    let agents = client.supported_agents().unwrap();
    assert!(agents.iter().all(|a| a.name.is_some()), "{agents:?}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn rewind_files_dry_run_reports_the_change_and_the_rewind_undoes_it() {
    let script = |cwd: &std::path::Path| {
        ModelScript::new()
            .reply(Reply::tool_use(
                "toolu_w",
                "Write",
                json!({"file_path": cwd.join("made.txt"), "content": "new\n"}),
            ))
            .reply(Reply::text("Written."))
    };
    let Some(rig) = Rig::start_with(script).await else {
        return;
    };
    let options = rig
        .options()
        .enable_file_checkpointing(true)
        .permission_mode(PermissionMode::AcceptEdits);
    let client = rig.connect(options).await;
    let mut prompt = claude_agent::protocol::UserMessage::prompt("write a file");
    let uuid = "6f1c9a52-3c1e-4f7e-9d2a-0b8e5a4c7d10";
    prompt.uuid = Some(uuid.to_owned());
    client.send(prompt).await.unwrap();
    turn(&client).await;
    assert!(rig.cwd_has("made.txt"), "the write did not run");

    let dry = client.rewind_files_dry_run(uuid).await.unwrap();
    assert_eq!(dry.can_rewind, Some(true), "{dry:?}");
    let changed = dry.files_changed.clone().unwrap_or_default();
    assert!(changed.iter().any(|f| f.ends_with("made.txt")), "{dry:?}");
    assert!(rig.cwd_has("made.txt"), "a dry run changed nothing");

    let done = client.rewind_files(uuid).await.unwrap();
    assert_eq!(done.can_rewind, Some(true), "{done:?}");
    assert!(!rig.cwd_has("made.txt"), "the rewind removed the new file");
    shutdown(&client).await;
}
