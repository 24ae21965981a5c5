//! Callback decisions in serializable form.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::callbacks::Decision;

/// A [`Decision`] as the transcript keeps it: the permission result and
/// hook output are stored as the JSON sent to the CLI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DecisionRecord {
    /// A `can_use_tool` answer.
    Permission {
        /// The tool call's id.
        tool_use_id: Option<String>,
        /// The tool.
        tool_name: Option<String>,
        /// `allow` or `deny`.
        behavior: String,
        /// The permission result as JSON.
        result: Value,
    },
    /// A hook callback's output.
    Hook {
        /// `hook_0`, ...
        callback_id: String,
        /// The hook event: `PreToolUse`, ...
        event: String,
        /// The tool call involved, if any.
        tool_use_id: Option<String>,
        /// The hook output as JSON.
        output: Value,
    },
    /// A `tools/call` on an in-process MCP server.
    McpCall {
        /// The server.
        server: String,
        /// The tool.
        tool: String,
        /// The model's tool call id.
        tool_use_id: Option<String>,
        /// Whether the result was an error.
        is_error: bool,
    },
    /// A request that got an error.
    Failed {
        /// The request's subtype.
        subtype: String,
        /// The error sent.
        error: String,
    },
}

impl DecisionRecord {
    /// The tool call this decision is about, when it names one.
    pub fn tool_use_id(&self) -> Option<&str> {
        match self {
            Self::Permission { tool_use_id, .. }
            | Self::Hook { tool_use_id, .. }
            | Self::McpCall { tool_use_id, .. } => tool_use_id.as_deref(),
            Self::Failed { .. } => None,
        }
    }
}

impl From<&Decision> for DecisionRecord {
    fn from(d: &Decision) -> Self {
        match d {
            Decision::Permission {
                tool_use_id,
                tool_name,
                result,
            } => {
                let result = serde_json::to_value(result).unwrap_or(Value::Null);
                let behavior = result
                    .get("behavior")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                Self::Permission {
                    tool_use_id: tool_use_id.clone(),
                    tool_name: tool_name.clone(),
                    behavior,
                    result,
                }
            }
            #[cfg(feature = "hooks")]
            Decision::Hook {
                callback_id,
                event,
                tool_use_id,
                output,
            } => Self::Hook {
                callback_id: callback_id.clone(),
                event: event.clone(),
                tool_use_id: tool_use_id.clone(),
                output: serde_json::to_value(&**output).unwrap_or(Value::Null),
            },
            #[cfg(feature = "mcp")]
            Decision::McpCall {
                server,
                tool,
                tool_use_id,
                is_error,
            } => Self::McpCall {
                server: server.clone(),
                tool: tool.clone(),
                tool_use_id: tool_use_id.clone(),
                is_error: *is_error,
            },
            Decision::Failed { subtype, error } => Self::Failed {
                subtype: subtype.clone(),
                error: error.clone(),
            },
        }
    }
}
