//! Changing a live session's MCP servers: each change sends the whole set
//! in `mcp_set_servers`, a server added in-process answers the CLI's
//! `mcp_message` right away, a removed one no longer does, and a refused
//! change leaves the set as it was. The fake CLI records what it got.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[allow(dead_code)]
mod callback_replies;
mod common;

use callback_replies::{answer, finish_turn};
use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::client::LiveMcpServer;
use claude_agent::options::McpServerConfig;
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn server(name: &str, text: &'static str) -> SdkMcpServer {
    SdkMcpServer::new(name, "1.0.0").tool(Tool::new(
        "hello",
        "Says hello",
        json!({"type": "object"}),
        move |_: Value, _: ToolContext| async move {
            Ok::<_, CallbackError>(ToolResult::text(text))
        },
    ))
}

fn call_hello(id: &str, server: &str) -> Value {
    cli_request(
        id,
        json!({"subtype": "mcp_message", "server_name": server,
               "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": "hello", "arguments": {}}}}),
    )
}

fn set_reply(added: &[&str], removed: &[&str]) -> Value {
    json!({"added": added, "removed": removed, "errors": {}})
}

fn external() -> McpServerConfig {
    McpServerConfig::stdio("srv", Vec::<String>::new()).env("TOKEN", "t")
}

#[tokio::test]
async fn live_changes_send_the_whole_set_and_the_router_follows_them() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("mcp_set_servers", set_reply(&["live"], &[]))
            .emit(call_hello("m1", "live"))
            .step(expect_reply("m1"))
            .emit(result("success", "one"))
            .expect_control("mcp_set_servers", set_reply(&["ext"], &[]))
            .expect_control("mcp_set_servers", set_reply(&[], &["live"]))
            .emit(call_hello("m2", "live"))
            .step(expect_reply("m2"))
            .emit(result("success", "two"))
            .step(json!({"op": "expect", "type": "control_request",
                         "subtype": "mcp_set_servers", "reply_error": "no more servers"}))
            .loop_turns("hi"),
    );
    let client = fake
        .builder()
        .mcp_server(server("calc", "from calc"))
        .connect()
        .await
        .unwrap();
    assert_eq!(client.in_process_mcp_servers(), ["calc"]);

    let added = client
        .add_mcp_server(server("live", "from live"))
        .await
        .unwrap();
    assert_eq!(added.added.as_deref(), Some(&["live".to_string()][..]));
    finish_turn(&client).await;
    client
        .add_external_mcp_server("ext", external())
        .await
        .unwrap();
    let removed = client.remove_mcp_server("live").await.unwrap();
    assert_eq!(removed.removed.as_deref(), Some(&["live".to_string()][..]));
    finish_turn(&client).await;
    assert_eq!(client.in_process_mcp_servers(), ["calc"]);

    let refused = client
        .mcp_set_servers([("other", LiveMcpServer::from(server("other", "x")))])
        .await
        .unwrap_err();
    assert!(
        format!("{refused:?}").contains("no more servers"),
        "{refused:?}"
    );
    assert_eq!(client.in_process_mcp_servers(), ["calc"]);
    client.shutdown().await;

    let sets: Vec<Value> = fake
        .received()
        .into_iter()
        .filter(|l| l["request"]["subtype"] == "mcp_set_servers")
        .map(|l| l["request"]["servers"].clone())
        .collect();
    let sdk = |name: &str| json!({"type": "sdk", "name": name});
    let ext = json!({"type": "stdio", "command": "srv", "env": {"TOKEN": "t"}});
    assert_eq!(
        sets,
        [
            json!({"calc": sdk("calc"), "live": sdk("live")}),
            json!({"calc": sdk("calc"), "live": sdk("live"), "ext": ext}),
            json!({"calc": sdk("calc"), "ext": ext}),
            json!({"other": sdk("other")}),
        ]
    );
    let m1 = answer(&fake, "m1").unwrap();
    assert_eq!(
        m1["mcp_response"]["result"]["content"][0]["text"],
        "from live"
    );
    let m2 = answer(&fake, "m2").unwrap();
    assert_eq!(m2["mcp_response"]["error"]["code"], -32601, "{m2}");
}

#[tokio::test]
async fn an_in_process_server_keyed_by_another_name_is_refused_before_sending() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let client = fake.builder().connect().await.unwrap();
    let err = client
        .mcp_set_servers([("alias", LiveMcpServer::from(server("real", "x")))])
        .await
        .unwrap_err();
    assert!(
        format!("{err:?}").contains("its key must be its name"),
        "{err}"
    );
    client.shutdown().await;
    assert!(
        fake.received()
            .iter()
            .all(|l| l["request"]["subtype"] != "mcp_set_servers")
    );
}
