//! Frames the fake CLI makes up itself: control responses, the default
//! `initialize` answer and the three frames of a `turn`. Shapes follow the
//! real CLI's transcripts, trimmed to the fields hosts read.

use serde_json::{Value, json};
use std::sync::atomic::{AtomicU64, Ordering};

/// Version string reported by `-v` and in `initialize`.
pub(crate) const VERSION: &str = "2.1.332";

/// Session id used by `turn` when the script names none.
pub(crate) const DEFAULT_SESSION_ID: &str = "00000000-0000-4000-8000-00000000fa4e";

/// Model name the fake reports.
const MODEL: &str = "fake-model";

static SEQ: AtomicU64 = AtomicU64::new(1);

/// A UUID-shaped id, unique within this process.
fn next_uuid() -> String {
    let n = SEQ.fetch_add(1, Ordering::Relaxed);
    format!("00000000-0000-4000-8000-{n:012x}")
}

/// `control_response` success for `request_id`.
pub(crate) fn success(request_id: &Value, response: Value) -> Value {
    json!({"type": "control_response", "response": {
        "subtype": "success", "request_id": request_id, "response": response}})
}

/// `control_response` error for `request_id`.
pub(crate) fn error(request_id: &Value, msg: &str) -> Value {
    json!({"type": "control_response", "response": {
        "subtype": "error", "request_id": request_id, "error": msg}})
}

/// The default reply to `initialize`.
pub(crate) fn server_info() -> Value {
    json!({
        "commands": [], "agents": [], "output_style": "default", "models": [],
        "pid": std::process::id(), "claude_code_version": VERSION,
        "current_permission_mode": "default",
    })
}

/// `system/init`, `assistant`, `result` for one turn answering `text`.
pub(crate) fn turn(text: &str, session_id: &str, duration_ms: u64) -> [Value; 3] {
    let cwd = std::env::current_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let usage = json!({"input_tokens": 10, "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0, "output_tokens": 5});
    [
        json!({"type": "system", "subtype": "init", "cwd": cwd,
            "session_id": session_id, "tools": [], "mcp_servers": [],
            "model": MODEL, "permissionMode": "default", "slash_commands": [],
            "apiKeySource": "none", "claude_code_version": VERSION,
            "output_style": "default", "agents": [], "skills": [], "plugins": [],
            "uuid": next_uuid()}),
        json!({"type": "assistant", "message": {
                "id": format!("msg_fake_{}", SEQ.load(Ordering::Relaxed)),
                "type": "message", "role": "assistant", "model": MODEL,
                "content": [{"type": "text", "text": text}],
                "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": 10, "output_tokens": 5}},
            "parent_tool_use_id": null, "session_id": session_id,
            "uuid": next_uuid()}),
        json!({"type": "result", "subtype": "success", "is_error": false,
            "duration_ms": duration_ms, "duration_api_ms": duration_ms,
            "num_turns": 1, "result": text, "stop_reason": "end_turn",
            "session_id": session_id, "total_cost_usd": 0.0, "usage": usage,
            "permission_denials": [], "uuid": next_uuid()}),
    ]
}
