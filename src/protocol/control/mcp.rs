//! In-process MCP servers: `mcp_message` requests and JSON-RPC envelopes.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Number, Value};

wire_struct! {
    /// `mcp_message`: the CLI forwards a JSON-RPC message to an in-process
    /// MCP server.
    #[derive(Default)]
    pub struct McpMessageRequest = "control_request/mcp_message", builder McpMessageRequestBuilder {
        /// The server's name (as in `--mcp-config`).
        server_name: opt String = "server_name",
        /// The JSON-RPC request or notification.
        message: opt JsonRpcMessage = "message",
    }
}

wire_struct! {
    /// Our reply payload to `mcp_message`: `{"mcp_response": <JSON-RPC>}`.
    #[derive(Default)]
    pub struct McpResponse = "mcp response", builder McpResponseBuilder {
        /// The JSON-RPC response.
        mcp_response: opt JsonRpcMessage = "mcp_response",
    }
}

wire_struct! {
    /// A JSON-RPC 2.0 message: request, notification, response or error.
    /// [`JsonRpcMessage::kind`] tells which.
    #[derive(Default)]
    pub struct JsonRpcMessage = "json-rpc message", builder JsonRpcMessageBuilder {
        /// Always `2.0`.
        jsonrpc: opt String = "jsonrpc",
        /// Request id; absent on notifications.
        id: opt JsonRpcId = "id",
        /// The method, on requests and notifications.
        method: opt String = "method",
        /// The method's parameters.
        params: opt Value = "params",
        /// The result, on responses.
        result: opt Value = "result",
        /// The error, on error responses.
        error: opt JsonRpcError = "error",
    }
}

wire_struct! {
    /// A JSON-RPC error object.
    #[derive(Default)]
    pub struct JsonRpcError = "json-rpc error", builder JsonRpcErrorBuilder {
        /// The error code.
        code: opt i64 = "code",
        /// The message.
        message: opt String = "message",
        /// Extra data.
        data: opt Value = "data",
    }
}

/// Which kind of JSON-RPC message a [`JsonRpcMessage`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonRpcKind {
    /// Has `method` and `id`.
    Request,
    /// Has `method`, no `id`.
    Notification,
    /// Has `result`.
    Response,
    /// Has `error`.
    Error,
    /// None of the above.
    Invalid,
}

impl JsonRpcMessage {
    /// Classifies the message by the members it has.
    pub fn kind(&self) -> JsonRpcKind {
        match (&self.method, &self.id, &self.result, &self.error) {
            (Some(_), Some(_), _, _) => JsonRpcKind::Request,
            (Some(_), None, _, _) => JsonRpcKind::Notification,
            (None, _, _, Some(_)) => JsonRpcKind::Error,
            (None, _, Some(_), None) => JsonRpcKind::Response,
            _ => JsonRpcKind::Invalid,
        }
    }

    /// A response to request `id`.
    pub fn response(id: Option<JsonRpcId>, result: Value) -> Self {
        Self {
            jsonrpc: Some("2.0".into()),
            id,
            result: Some(result),
            ..Self::default()
        }
    }

    /// An error response to request `id`.
    pub fn error_response(id: Option<JsonRpcId>, code: i64, message: impl Into<String>) -> Self {
        let error = JsonRpcError {
            code: Some(code),
            message: Some(message.into()),
            ..Default::default()
        };
        Self {
            jsonrpc: Some("2.0".into()),
            id,
            error: Some(error),
            ..Self::default()
        }
    }
}

/// A JSON-RPC id: a number or a string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonRpcId {
    /// A numeric id.
    Number(Number),
    /// A string id.
    String(String),
}

impl Serialize for JsonRpcId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Number(n) => n.serialize(s),
            Self::String(t) => s.serialize_str(t),
        }
    }
}

impl<'de> Deserialize<'de> for JsonRpcId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = JsonRpcId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or a string")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<JsonRpcId, E> {
                Ok(JsonRpcId::Number(v.into()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<JsonRpcId, E> {
                Ok(JsonRpcId::Number(v.into()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<JsonRpcId, E> {
                Number::from_f64(v)
                    .map(JsonRpcId::Number)
                    .ok_or_else(|| E::custom("non-finite number"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<JsonRpcId, E> {
                Ok(JsonRpcId::String(v.to_owned()))
            }
        }
        d.deserialize_any(V)
    }
}
