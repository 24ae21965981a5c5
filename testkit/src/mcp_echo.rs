//! `fake-claude mcp-echo-env`: a minimal stdio MCP server with two tools:
//! `echo_env`, whose result is the value of the environment variable named
//! in its `name` argument (tests use it to show that a server's `env`
//! reached it without passing through the CLI's command line), and
//! `ask_user`, which sends the client an `elicitation/create` request for a
//! `name` and returns the client's answer as JSON text; and
//! `never_answers`, whose calls get no reply (for a client's call timeout).

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The subcommand of `fake-claude` that runs this server.
pub const MCP_ECHO_ENV_ARG: &str = "mcp-echo-env";

/// Serves MCP over stdin/stdout (one JSON-RPC message a line) until stdin
/// ends; returns the exit status.
pub fn run_mcp_echo_env() -> i32 {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout().lock();
    while let Some(Ok(line)) = lines.next() {
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let call = msg["method"] == "tools/call";
        if call && msg["params"]["name"] == "never_answers" {
            continue;
        }
        let asks = call && msg["params"]["name"] == "ask_user";
        let answered = if asks {
            elicit(&mut lines, &mut out)
                .map(|text| json!({"content": [{"type": "text", "text": text}]}))
        } else {
            answer(&msg)
        };
        let reply = match answered {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, message)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            }
        };
        if writeln!(out, "{reply}").and_then(|()| out.flush()).is_err() {
            return 1;
        }
    }
    0
}

/// Asks the client for a name and waits for its response (the client's
/// other messages meanwhile are not answered: none are expected).
fn elicit(
    lines: &mut impl Iterator<Item = std::io::Result<String>>,
    out: &mut impl Write,
) -> Result<String, (i64, String)> {
    let request = json!({"jsonrpc": "2.0", "id": "elicit-1", "method": "elicitation/create",
        "params": {"message": "Who are you?", "requestedSchema": {"type": "object",
            "properties": {"name": {"type": "string"}}, "required": ["name"]}}});
    writeln!(out, "{request}")
        .and_then(|()| out.flush())
        .map_err(|e| (-32603, e.to_string()))?;
    for line in lines.by_ref() {
        let line = line.map_err(|e| (-32603, e.to_string()))?;
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if msg["id"] == "elicit-1" {
            let answer = msg.get("result").or_else(|| msg.get("error"));
            return Ok(answer.cloned().unwrap_or(Value::Null).to_string());
        }
    }
    Err((
        -32603,
        "the client closed stdin before answering".to_string(),
    ))
}

fn answer(msg: &Value) -> Result<Value, (i64, String)> {
    let params = msg.get("params").cloned().unwrap_or(Value::Null);
    match msg.get("method").and_then(Value::as_str) {
        Some("initialize") => Ok(json!({
            "protocolVersion": params.get("protocolVersion").cloned()
                .unwrap_or_else(|| json!("2025-06-18")),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "echo-env", "version": "1.0.0"},
        })),
        Some("ping") => Ok(json!({})),
        Some("tools/list") => Ok(json!({"tools": [{
            "name": "echo_env",
            "description": "Returns the value of an environment variable",
            "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                            "required": ["name"]},
        }, {
            "name": "ask_user",
            "description": "Asks the user for their name",
            "inputSchema": {"type": "object", "properties": {}},
        }, {
            "name": "never_answers",
            "description": "Never replies",
            "inputSchema": {"type": "object", "properties": {}},
        }]})),
        Some("tools/call") => {
            let name = params["arguments"]["name"].as_str().unwrap_or_default();
            let text = std::env::var(name).unwrap_or_else(|_| format!("{name} is not set"));
            Ok(json!({"content": [{"type": "text", "text": text}]}))
        }
        Some(other) => Err((-32601, format!("method not found: {other}"))),
        None => Err((-32600, "no method".to_string())),
    }
}
