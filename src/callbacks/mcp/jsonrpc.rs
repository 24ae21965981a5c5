//! JSON-RPC 2.0 replies as the CLI expects them inside `mcp_response`.

use serde_json::{Value, json};

use crate::protocol::{JsonRpcId, JsonRpcMessage};

/// The message is not a valid JSON-RPC request.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// The method's parameters are invalid.
pub const INVALID_PARAMS: i64 = -32602;

/// A success reply to request `id`.
pub(crate) fn result(id: JsonRpcId, result: Value) -> Value {
    to_value(&JsonRpcMessage::response(Some(id), result))
}

/// An error reply; `id` is `null` when the request's id is unknown.
pub(crate) fn error(id: Option<JsonRpcId>, code: i64, message: impl Into<String>) -> Value {
    let unknown = id.is_none();
    let mut m = JsonRpcMessage::error_response(id, code, message);
    if unknown {
        m.mark_null("id");
    }
    to_value(&m)
}

/// The reply to a notification: the CLI waits for one, without an id.
pub(crate) fn notification_ack() -> Value {
    json!({"jsonrpc": "2.0", "result": {}})
}

/// The request id of a raw message, if it has a usable one.
pub(crate) fn raw_id(message: &Value) -> Option<JsonRpcId> {
    match message.get("id")? {
        Value::Number(n) => Some(JsonRpcId::Number(n.clone())),
        Value::String(s) => Some(JsonRpcId::String(s.clone())),
        _ => None,
    }
}

fn to_value(m: &JsonRpcMessage) -> Value {
    // Serializing a JsonRpcMessage only fails on non-string map keys, which
    // it cannot contain; fall back to a generic error object regardless.
    serde_json::to_value(m).unwrap_or_else(|e| {
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32603, "message": e.to_string()}})
    })
}
