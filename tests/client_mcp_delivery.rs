//! External MCP servers reach the CLI in the `initialize` request, not on
//! its command line, and a CLI that does not confirm it read them is
//! refused before any prompt. The fake CLI records its argv and stdin.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent::Error;
use claude_agent::options::{CapabilityError, McpDelivery, McpServerConfig};
use claude_agent::runtime::live_sessions;
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

const SECRET: &str = "token-that-must-stay-off-argv";

fn secret_server() -> McpServerConfig {
    McpServerConfig::stdio("srv", ["--stdio"]).env("API_TOKEN", SECRET)
}

fn header_server() -> McpServerConfig {
    McpServerConfig::http("http://127.0.0.1:1/mcp")
        .header("Authorization", format!("Bearer {SECRET}"))
}

/// The fake's usual builder settings around `options`.
fn builder(options: claude_agent::options::Options) -> claude_agent::client::ClientBuilder {
    claude_agent::client::ClientBuilder::new(options)
        .grace(Duration::from_millis(300))
        .term_grace(Duration::from_millis(300))
        .initialize_timeout(SOON)
        .control_timeout(SOON)
}

#[tokio::test]
async fn env_and_headers_travel_in_initialize_and_never_in_argv() {
    let fake = fake(
        Script::new()
            .expect_initialize_reply(json!({"commands": [], "mcp_servers_applied": true}))
            .loop_turns("hi"),
    );
    let options = fake
        .options()
        .mcp_server("files", secret_server())
        .mcp_server("web", header_server());
    let client = builder(options).connect().await.unwrap();
    client.shutdown().await;

    let argv = fake.cli.recorded_argv().unwrap();
    assert!(
        argv.iter().all(|a| !a.contains(SECRET)),
        "secret on argv: {argv:?}"
    );
    assert!(argv.iter().any(|a| a == "--await-initialize"), "{argv:?}");
    assert!(argv.iter().all(|a| a != "--mcp-config"), "{argv:?}");
    let received = fake.received();
    // The CLI reads it at startup, so it must be the very first line.
    let init = &received[0];
    assert_eq!(init["request"]["subtype"], "initialize", "{init}");
    assert_eq!(
        init["request"]["mcpServers"],
        json!({
            "files": {"type": "stdio", "command": "srv", "args": ["--stdio"],
                      "env": {"API_TOKEN": SECRET}},
            "web": {"type": "http", "url": "http://127.0.0.1:1/mcp",
                    "headers": {"Authorization": format!("Bearer {SECRET}")}},
        })
    );
}

#[tokio::test]
async fn argv_delivery_keeps_the_old_command_line_form() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hi"));
    let options = fake
        .options()
        .mcp_server("files", secret_server())
        .mcp_delivery(McpDelivery::Argv);
    let client = builder(options).connect().await.unwrap();
    client.shutdown().await;
    let argv = fake.cli.recorded_argv().unwrap();
    let at = argv.iter().position(|a| a == "--mcp-config").unwrap();
    let config: Value = serde_json::from_str(&argv[at + 1]).unwrap();
    assert_eq!(config["mcpServers"]["files"]["env"]["API_TOKEN"], SECRET);
    assert!(argv.iter().all(|a| a != "--await-initialize"), "{argv:?}");
    assert!(fake.received()[0]["request"].get("mcpServers").is_none());
}

#[tokio::test]
async fn a_cli_that_does_not_confirm_it_read_the_servers_is_refused() {
    let fake = fake(
        Script::new()
            .expect_initialize_reply(json!({"commands": [], "claude_code_version": "2.1.200"}))
            .loop_turns("hi"),
    );
    let options = fake.options().mcp_server("files", secret_server());
    let err = builder(options)
        .label("mcp-delivery-old-cli")
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(
            &err,
            Error::Capability(CapabilityError::McpServersNotRead { version }) if version.contains("2.1.200")
        ),
        "{err}"
    );
    assert!(
        live_sessions()
            .iter()
            .all(|s| s.label.as_deref() != Some("mcp-delivery-old-cli")),
        "the refused session is still alive"
    );
    // Refused before any prompt: only the initialize request was written.
    assert!(
        fake.received().iter().all(|l| l["type"] != "user"),
        "{:?}",
        fake.received()
    );
}
