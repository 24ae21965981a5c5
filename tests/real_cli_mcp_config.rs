//! An external MCP server's `timeout`, `alwaysLoad` and `tools` policies
//! change what the real CLI does: a call past the timeout fails at it, an
//! always-loaded server's tools are in the first request, and the policies
//! of a server set on a live session are its permission rules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::time::{Duration, Instant};

use claude_agent::options::{McpPermissionPolicy, McpServerConfig};
use claude_agent::{Error, runtime::ControlError};
use claude_agent_testkit::model::{ModelScript, Reply};
use claude_agent_testkit::{MCP_ECHO_ENV_ARG, fake_cli_path};
use real_cli::{Rig, shutdown, turn};
use serde_json::Map;

fn echo_server() -> McpServerConfig {
    McpServerConfig::stdio(
        fake_cli_path().unwrap().display().to_string(),
        [MCP_ECHO_ENV_ARG],
    )
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_call_past_the_servers_timeout_fails_at_the_timeout() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let server = echo_server().timeout(Duration::from_millis(1500));
    let client = rig.connect(rig.options().mcp_server("echo", server)).await;
    let started = Instant::now();
    // The tool never answers: only the server's timeout can end the call
    // (the CLI's default is far beyond the control timeout of 20 s).
    let err = client
        .mcp_call("mcp__echo__never_answers", Map::new())
        .await
        .unwrap_err();
    let Error::Control(ControlError::Remote { message }) = &err else {
        panic!("not the CLI's error reply: {err}");
    };
    assert!(message.contains("timed out after 1s"), "{message}");
    assert!(started.elapsed() >= Duration::from_millis(1500), "{err}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_always_loaded_servers_tools_are_in_the_first_request_and_others_are_deferred() {
    let script = ModelScript::new()
        .reply(Reply::text("a"))
        .reply(Reply::text("b"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    for (always, name) in [(true, "loaded"), (false, "deferred")] {
        let server = echo_server().always_load(always);
        let client = rig.connect(rig.options().mcp_server(name, server)).await;
        client.send("hi").await.unwrap();
        turn(&client).await;
        shutdown(&client).await;
    }
    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2);
    let loaded = main[0].tool_names();
    assert!(loaded.contains(&"mcp__loaded__echo_env"), "{loaded:?}");
    let deferred = main[1].tool_names();
    assert!(
        !deferred.iter().any(|n| n.starts_with("mcp__deferred__")),
        "{deferred:?}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_live_remote_servers_tool_policies_are_its_permission_rules() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    // A port nothing listens on: the policies apply whether or not the
    // server connects.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = rig.connect(rig.options()).await;
    let web = McpServerConfig::http(format!("http://127.0.0.1:{port}/mcp"))
        .tool_policy("look", McpPermissionPolicy::AlwaysAllow)
        .tool_policy("poke", McpPermissionPolicy::AlwaysAsk)
        .tool_policy("wipe", McpPermissionPolicy::AlwaysDeny);
    let added = client.add_external_mcp_server("web", web).await.unwrap();
    assert_eq!(added.added, Some(vec!["web".to_string()]));

    let state = client.list_permission_rules().await.unwrap();
    let mut rules: Vec<(String, String, String)> = state
        .rules
        .iter()
        .flatten()
        .map(|r| {
            (
                r.rule.clone().unwrap_or_default(),
                r.behavior.clone().unwrap_or_default(),
                r.source.clone().unwrap_or_default(),
            )
        })
        .collect();
    rules.sort();
    let expect = |rule: &str, behavior: &str| {
        (
            rule.to_string(),
            behavior.to_string(),
            "mcpServerPolicy".to_string(),
        )
    };
    assert_eq!(
        rules,
        [
            expect("mcp__web__look", "allow"),
            expect("mcp__web__poke", "ask"),
            expect("mcp__web__wipe", "deny"),
        ]
    );
    shutdown(&client).await;
}
