//! What a tool call returns: `{"content": [...], "isError": bool}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One piece of a tool result's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolContent {
    /// Text for the model.
    Text {
        /// The text.
        text: String,
    },
    /// An image.
    Image {
        /// Base64-encoded bytes.
        data: String,
        /// E.g. `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

/// The result of a `tools/call`.
///
/// A failure the model should see is a result with `is_error: true`, not a
/// JSON-RPC error.
///
/// ```
/// use claude_agent::callbacks::mcp::ToolResult;
/// use serde_json::json;
///
/// assert_eq!(
///     serde_json::to_value(ToolResult::text("5")).unwrap(),
///     json!({"content": [{"type": "text", "text": "5"}], "isError": false})
/// );
/// let s = ToolResult::structured(json!({"sum": 5}));
/// assert_eq!(serde_json::to_value(&s).unwrap()["structuredContent"], json!({"sum": 5}));
/// ```
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolResult {
    /// What the model sees.
    pub content: Vec<ToolContent>,
    /// Machine-readable result (MCP `structuredContent`).
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the call failed.
    #[serde(rename = "isError", default)]
    pub is_error: bool,
}

impl ToolResult {
    /// A successful text result.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Text { text: text.into() }],
            ..Self::default()
        }
    }

    /// A successful image result from base64 data.
    pub fn image(base64_data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Image {
                data: base64_data.into(),
                mime_type: mime_type.into(),
            }],
            ..Self::default()
        }
    }

    /// A successful structured result; the JSON text is also given as
    /// content for clients that only read text (as MCP recommends).
    pub fn structured(value: Value) -> Self {
        Self {
            content: vec![ToolContent::Text {
                text: value.to_string(),
            }],
            structured_content: Some(value),
            is_error: false,
        }
    }

    /// A failed call, with the message as text.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![ToolContent::Text {
                text: message.into(),
            }],
            structured_content: None,
            is_error: true,
        }
    }

    /// Adds more content.
    pub fn with(mut self, content: ToolContent) -> Self {
        self.content.push(content);
        self
    }
}
