//! Claude Code's MCP hints, as the official SDKs send them: a tool's
//! `searchHint`, `alwaysLoad` and `maxResultSizeChars` in its listing's
//! `_meta`, a server's `alwaysLoad` on every tool, its `instructions` in the
//! `initialize` reply and its `timeout` in the `sdk` config the CLI reads.

use std::time::Duration;

use serde_json::{Value, json};

use super::{SdkMcpServer, Tool, ToolResult};
use crate::options::McpServerConfig;
use claude_agent_actors::CancellationToken;

fn tool(name: &str) -> Tool {
    Tool::new(
        name,
        "d",
        json!({"type": "object"}),
        |_args: Value, _ctx| async { Ok(ToolResult::text("ok")) },
    )
}

async fn ask(server: &SdkMcpServer, method: &str) -> Value {
    let msg = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {}});
    server.handle_message(&msg, CancellationToken::new()).await["result"].clone()
}

#[tokio::test]
async fn tool_hints_travel_in_meta_and_a_plain_tool_has_none() {
    let server = SdkMcpServer::new("box", "1")
        .tool(
            tool("find")
                .search_hint("grep files by content")
                .always_load(true)
                .max_result_size_chars(500_000),
        )
        .tool(tool("plain"));
    let tools = ask(&server, "tools/list").await["tools"].clone();
    assert_eq!(
        tools[0]["_meta"],
        json!({"anthropic/searchHint": "grep files by content",
               "anthropic/alwaysLoad": true,
               "anthropic/maxResultSizeChars": 500_000})
    );
    assert_eq!(tools[1].get("_meta"), None);
}

#[tokio::test]
async fn a_server_that_always_loads_marks_every_tool() {
    let server = SdkMcpServer::new("box", "1")
        .always_load(true)
        .tool(tool("a"))
        .tool(tool("b").search_hint("b things"));
    let tools = ask(&server, "tools/list").await["tools"].clone();
    assert_eq!(tools[0]["_meta"], json!({"anthropic/alwaysLoad": true}));
    assert_eq!(
        tools[1]["_meta"],
        json!({"anthropic/searchHint": "b things", "anthropic/alwaysLoad": true})
    );
}

#[tokio::test]
async fn instructions_are_in_the_initialize_reply_only_when_set() {
    let with = SdkMcpServer::new("box", "1").instructions("Call find before read.");
    assert_eq!(
        ask(&with, "initialize").await["instructions"],
        json!("Call find before read.")
    );
    let without = SdkMcpServer::new("box", "1");
    assert_eq!(ask(&without, "initialize").await.get("instructions"), None);
}

#[test]
fn the_timeout_is_in_the_sdk_config_in_milliseconds() {
    let server = SdkMcpServer::new("box", "1").timeout(Duration::from_secs(5));
    let config = serde_json::to_value(server.cli_config()).unwrap();
    assert_eq!(
        config,
        json!({"type": "sdk", "name": "box", "timeout": 5000})
    );
    assert_eq!(
        SdkMcpServer::new("box", "1").cli_config(),
        McpServerConfig::sdk("box")
    );
}
