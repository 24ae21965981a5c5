//! `fake-claude mcp-echo-env`: a minimal stdio MCP server with one tool,
//! `echo_env`, whose result is the value of the environment variable named
//! in its `name` argument. Tests use it to show that a server's `env`
//! reached it without passing through the CLI's command line.

use std::io::{BufRead, Write};

use serde_json::{Value, json};

/// The subcommand of `fake-claude` that runs this server.
pub const MCP_ECHO_ENV_ARG: &str = "mcp-echo-env";

/// Serves MCP over stdin/stdout (one JSON-RPC message a line) until stdin
/// ends; returns the exit status.
pub fn run_mcp_echo_env() -> i32 {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return 1 };
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications (no id) need no answer.
        let Some(id) = msg.get("id").cloned() else {
            continue;
        };
        let reply = match answer(&msg) {
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
