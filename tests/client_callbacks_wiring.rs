//! Callbacks registered on the builder, end to end through `connect()`:
//! hooks announced in `initialize` and answering `hook_callback`, an
//! in-process MCP server in `--mcp-config` answering the CLI's JSON-RPC
//! sequence, and `on_stderr`. The fake CLI (a real subprocess) asks; the
//! tests read what the SDK answered from the fake's record of its stdin.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod callback_replies;
mod common;

use callback_replies::{answer, ask, finish_turn};
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};
use claude_agent::callbacks::{
    CallbackError, HookContext, HookEventKind, HookMatcher, pre_tool_use_decision,
};
use claude_agent::protocol::{HookEvent, HookInput, HookOutput, PermissionDecision};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn hook_callback(id: &str, callback_id: &str, event: &str, command: &str) -> Value {
    let input = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "permission_mode": "default", "hook_event_name": event, "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_1"});
    cli_request(
        id,
        json!({"subtype": "hook_callback", "callback_id": callback_id, "input": input,
               "tool_use_id": "toolu_1"}),
    )
}

#[tokio::test]
async fn builder_hooks_are_announced_in_initialize_and_answer_their_callbacks() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[
            hook_callback("h1", "hook_0", "PreToolUse", "rm -rf /"),
            hook_callback("h2", "hook_0", "PreToolUse", "ls"),
            hook_callback("h3", "hook_1", "PostToolUse", "ls"),
            hook_callback("h4", "hook_9", "PostToolUse", "ls"),
        ],
    ));
    let no_rm = |input: HookInput, _id: Option<String>, _ctx: HookContext| async move {
        let HookEvent::PreToolUse(call) = input.event else {
            return Err(CallbackError::new("not a PreToolUse input"));
        };
        let command = call.tool_input.unwrap_or_default()["command"].clone();
        Ok(match command.as_str() {
            Some(c) if c.contains("rm -rf") => {
                pre_tool_use_decision(PermissionDecision::Deny, "no rm -rf")
            }
            _ => HookOutput::default(),
        })
    };
    let log = |input: HookInput, id: Option<String>, ctx: HookContext| async move {
        let mut out = HookOutput::default();
        out.system_message = Some(format!(
            "{} {} {}",
            ctx.event,
            input.hook_event_name(),
            id.unwrap()
        ));
        Ok::<_, CallbackError>(out)
    };
    let client = fake
        .builder()
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(no_rm),
        )
        .hook(HookEventKind::PostToolUse, HookMatcher::any().hook(log))
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.shutdown().await;

    let init = &fake.received()[0];
    assert_eq!(init["request"]["subtype"], "initialize");
    assert_eq!(
        init["request"]["hooks"],
        json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}],
               "PostToolUse": [{"matcher": null, "hookCallbackIds": ["hook_1"]}]})
    );
    assert_eq!(
        answer(&fake, "h1").unwrap(),
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
               "permissionDecision": "deny", "permissionDecisionReason": "no rm -rf"}})
    );
    assert_eq!(answer(&fake, "h2").unwrap(), json!({}));
    assert_eq!(
        answer(&fake, "h3").unwrap(),
        json!({"systemMessage": "PostToolUse PostToolUse toolu_1"})
    );
    assert!(answer(&fake, "h4").unwrap_err().contains("hook_9"));
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

fn mcp(id: &str, message: Value) -> Value {
    cli_request(
        id,
        json!({"subtype": "mcp_message", "server_name": "calc", "message": message}),
    )
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn a_builder_mcp_server_is_configured_and_answers_the_cli_sequence() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[
            mcp(
                "m1",
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {}}}),
            ),
            mcp(
                "m2",
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ),
            mcp(
                "m3",
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
            ),
            mcp("m4", call(2, "add", json!({"a": 2, "b": 3}))),
            mcp("m5", call(3, "add", json!({"a": "two"}))),
            mcp("m6", call(4, "subtract", json!({"a": 1, "b": 1}))),
        ],
    ));
    let calc = SdkMcpServer::new("calc", "1.0.0").tool(Tool::typed::<Add>(
        "add",
        "Add two numbers",
        |args, _ctx| async move { Ok(ToolResult::text((args.a + args.b).to_string())) },
    ));
    let client = fake.builder().mcp_server(calc).connect().await.unwrap();
    finish_turn(&client).await;
    client.shutdown().await;

    let argv = fake.cli.recorded_argv().unwrap();
    let at = argv.iter().position(|a| a == "--mcp-config").unwrap();
    let config: Value = serde_json::from_str(&argv[at + 1]).unwrap();
    assert_eq!(
        config["mcpServers"]["calc"],
        json!({"type": "sdk", "name": "calc"})
    );

    let rpc = |id: &str| answer(&fake, id).unwrap()["mcp_response"].clone();
    let init = rpc("m1");
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(
        init["result"]["serverInfo"],
        json!({"name": "calc", "version": "1.0.0"})
    );
    assert_eq!(rpc("m2"), json!({"jsonrpc": "2.0", "result": {}}));
    let tools = &rpc("m3")["result"]["tools"];
    assert_eq!(tools[0]["name"], "add");
    assert_eq!(tools[0]["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(
        rpc("m4"),
        json!({"jsonrpc": "2.0", "id": 2,
               "result": {"content": [{"type": "text", "text": "5"}], "isError": false}})
    );
    for (id, needle) in [
        ("m5", "invalid arguments"),
        ("m6", "\"subtract\" not found"),
    ] {
        let result = &rpc(id)["result"];
        assert_eq!(result["isError"], true, "{id}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(needle), "{id}: {text}");
    }
}

#[tokio::test]
async fn on_stderr_receives_the_clis_stderr_lines() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .stderr("warming up")
            .stderr("cache at /tmp/x")
            .emit(result("success", "done")),
    );
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = fake
        .builder()
        .on_stderr(move |line| {
            let _ = tx.send(line.to_owned());
        })
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    for expected in ["warming up", "cache at /tmp/x"] {
        let line = tokio::time::timeout(SOON, rx.recv())
            .await
            .expect("no stderr line");
        assert_eq!(line.as_deref(), Some(expected));
    }
    finish_turn(&client).await;
    client.shutdown().await;
    fake.assert_gone(pid).await;
}
