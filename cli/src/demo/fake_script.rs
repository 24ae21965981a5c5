//! The built-in fake CLI's side of the story: the frames the real CLI
//! sends in the same session (shapes from a recording of Claude Code
//! 2.1.332), waiting for each of our replies before going on.

use std::path::Path;

use serde_json::{Value, json};

use super::story::{BASH_COMMAND, MCP_SERVER, MCP_TOOL, TURN1_TEXT, TURN2_TEXT};

/// How long the fake waits for each of our messages before giving up
/// (exit 4): a stuck host must not leave it running forever.
const WAIT_MS: u64 = 30_000;

const SESSION: &str = "demo-session";

/// The script (for `FAKE_CLAUDE_SCRIPT`). `cwd` is where the fake
/// "runs" `touch demo.txt` once the permission is granted.
pub(crate) fn script(cwd: &Path) -> Value {
    let mut steps = vec![json!({"op": "expect", "type": "control_request",
        "subtype": "initialize", "timeout_ms": WAIT_MS})];
    // Turn 1: Bash, after asking permission.
    steps.push(expect_user());
    let input = json!({"command": BASH_COMMAND, "description": "Create demo.txt"});
    steps.push(emit(assistant(
        json!([{"type": "tool_use", "id": "toolu_demo_1",
        "name": "Bash", "input": input}]),
    )));
    ask(
        &mut steps,
        "perm-1",
        json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": input,
            "tool_use_id": "toolu_demo_1", "permission_suggestions": []}),
    );
    let file = cwd.join("demo.txt");
    steps.push(json!({"op": "write_file", "path": file, "content": ""}));
    steps.push(emit(tool_result("toolu_demo_1", json!(""))));
    steps.push(emit(assistant(
        json!([{"type": "text", "text": TURN1_TEXT}]),
    )));
    steps.push(emit(result(TURN1_TEXT, 0.0021)));

    // Turn 2: the in-process MCP tool (allowed up front, so no prompt).
    steps.push(expect_user());
    // The MCP handshake (the real CLI does it at start-up, concurrently; a
    // script reads stdin in order, so here it waits for the turn's prompt).
    let handshake = [
        json!({"method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "claude-code", "version": "2.1.332"}},
            "jsonrpc": "2.0", "id": 0}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"method": "tools/list", "jsonrpc": "2.0", "id": 1}),
    ];
    for (i, message) in handshake.into_iter().enumerate() {
        ask(&mut steps, &format!("mcp-{i}"), mcp(message));
    }

    steps.push(emit(assistant(
        json!([{"type": "tool_use", "id": "toolu_demo_2",
        "name": MCP_TOOL, "input": {"a": 2, "b": 3}}]),
    )));
    ask(
        &mut steps,
        "mcp-call",
        mcp(json!({"method": "tools/call", "params": {"name": "add",
            "arguments": {"a": 2, "b": 3},
            "_meta": {"claudecode/toolUseId": "toolu_demo_2", "progressToken": 2}},
            "jsonrpc": "2.0", "id": 2})),
    );
    steps.push(emit(tool_result(
        "toolu_demo_2",
        json!([{"type": "text", "text": "5"}]),
    )));
    steps.push(emit(assistant(
        json!([{"type": "text", "text": TURN2_TEXT}]),
    )));
    steps.push(emit(result(TURN2_TEXT, 0.0019)));
    json!({"steps": steps, "on_end": "wait_eof"})
}

/// Sends a control request and waits for our reply to it.
fn ask(steps: &mut Vec<Value>, id: &str, request: Value) {
    steps.push(emit(
        json!({"type": "control_request", "request_id": id, "request": request}),
    ));
    steps.push(
        json!({"op": "expect", "type": "control_response", "request_id": id,
        "timeout_ms": WAIT_MS}),
    );
}

fn mcp(message: Value) -> Value {
    json!({"subtype": "mcp_message", "server_name": MCP_SERVER, "message": message})
}

fn emit(frame: Value) -> Value {
    json!({"op": "emit", "frame": frame})
}

fn expect_user() -> Value {
    json!({"op": "expect", "type": "user", "timeout_ms": WAIT_MS})
}

fn assistant(content: Value) -> Value {
    json!({"type": "assistant", "message": {"id": "msg_demo", "type": "message",
        "role": "assistant", "model": "fake", "content": content, "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 5}},
        "parent_tool_use_id": null, "session_id": SESSION})
}

fn tool_result(id: &str, content: Value) -> Value {
    json!({"type": "user", "message": {"role": "user", "content": [
        {"tool_use_id": id, "type": "tool_result", "content": content, "is_error": false}]},
        "parent_tool_use_id": null, "session_id": SESSION})
}

fn result(text: &str, cost: f64) -> Value {
    json!({"type": "result", "subtype": "success", "is_error": false, "duration_ms": 40,
        "duration_api_ms": 20, "num_turns": 2, "session_id": SESSION, "result": text,
        "stop_reason": "end_turn", "total_cost_usd": cost,
        "usage": {"input_tokens": 20, "output_tokens": 10}})
}
