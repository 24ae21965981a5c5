//! An in-process MCP server added to a live session through the real CLI:
//! the model calls its tool on the next turn, and once removed the server
//! is gone from the session's status.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Value, json};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_server_added_on_a_live_session_serves_the_models_call() {
    let script = ModelScript::new()
        .reply(Reply::text("first"))
        .reply(Reply::tool_use("toolu_live", "mcp__live__hello", json!({})))
        .reply(Reply::text("second"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig
        .connect(rig.options().allowed_tools(["mcp__live__hello"]))
        .await;
    client.send("hello").await.unwrap();
    let (_, first) = turn(&client).await;
    assert_eq!(first.subtype, ResultSubtype::Success, "{first:?}");

    let hello = Tool::new(
        "hello",
        "Says hello",
        json!({"type": "object"}),
        |_: Value, _: ToolContext| async {
            Ok::<_, CallbackError>(ToolResult::text("hi from live"))
        },
    );
    let added = client
        .add_mcp_server(SdkMcpServer::new("live", "1.0.0").tool(hello))
        .await
        .unwrap();
    assert_eq!(
        added.added.as_deref(),
        Some(&["live".to_string()][..]),
        "{added:?}"
    );
    assert!(added.errors.unwrap_or_default().is_empty());

    client.send("call it").await.unwrap();
    let (_, second) = turn(&client).await;
    assert_eq!(second.subtype, ResultSubtype::Success, "{second:?}");
    let main = rig.server.main_requests();
    let results = main[2].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_live");
    assert!(!results[0].is_error, "{results:?}");
    assert_eq!(results[0].text(), "hi from live");

    let removed = client.remove_mcp_server("live").await.unwrap();
    assert_eq!(
        removed.removed.as_deref(),
        Some(&["live".to_string()][..]),
        "{removed:?}"
    );
    let status = client.mcp_status().await.unwrap();
    assert!(
        status.iter().all(|s| s.name.as_deref() != Some("live")),
        "{status:?}"
    );
    shutdown(&client).await;
}
