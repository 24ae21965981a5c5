//! What the CLI sent: one recorded HTTP request and helpers to inspect it.

use serde_json::Value;

/// One request the server received, in arrival order.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// Path without the query, e.g. `/v1/messages`.
    pub path: String,
    /// The query string without `?`, e.g. `beta=true`.
    pub query: Option<String>,
    /// Headers in arrival order, names lower-case.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Value::Null` if empty or not JSON.
    pub body: Value,
}

/// One `tool_result` block of a user message.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The id of the `tool_use` block this answers.
    pub tool_use_id: String,
    /// `content` as sent: a string or an array of content blocks
    /// (`Value::Null` if absent).
    pub content: Value,
    /// The `is_error` flag (false if absent).
    pub is_error: bool,
}

impl ToolResult {
    /// The content as text: the string itself, or the `text` fields of its
    /// blocks joined by newlines.
    pub fn text(&self) -> String {
        text_of(&self.content)
    }
}

impl RecordedRequest {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the body has a non-empty `tools` array: a "main" request
    /// that consumes a script step.
    pub fn is_main(&self) -> bool {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(|t| !t.is_empty())
    }

    /// Whether the body asks for a streamed answer (`"stream": true`).
    pub fn is_stream(&self) -> bool {
        self.body.get("stream").and_then(Value::as_bool) == Some(true)
    }

    /// The `model` field.
    pub fn model(&self) -> Option<&str> {
        self.body.get("model").and_then(Value::as_str)
    }

    /// The `system` prompt as text: the string, or the `text` fields of its
    /// blocks joined by newlines.
    pub fn system(&self) -> Option<String> {
        self.body.get("system").map(text_of)
    }

    /// The `messages` array (empty if absent).
    pub fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The first message's text (its string, or its text blocks joined).
    pub fn first_message_text(&self) -> String {
        self.messages()
            .first()
            .and_then(|m| m.get("content"))
            .map(text_of)
            .unwrap_or_default()
    }

    /// The `content` of the last message: a string or an array of blocks.
    pub fn last_user_content(&self) -> Option<&Value> {
        self.messages().last().and_then(|m| m.get("content"))
    }

    /// The names in the `tools` array.
    pub fn tool_names(&self) -> Vec<&str> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|t| {
                t.iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The `tool_result` blocks of the last message, if it is a user message.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        let Some(last) = self.messages().last() else {
            return Vec::new();
        };
        if last.get("role").and_then(Value::as_str) != Some("user") {
            return Vec::new();
        }
        let Some(blocks) = last.get("content").and_then(Value::as_array) else {
            return Vec::new();
        };
        blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            .map(|b| ToolResult {
                tool_use_id: b
                    .get("tool_use_id")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                content: b.get("content").cloned().unwrap_or(Value::Null),
                is_error: b.get("is_error").and_then(Value::as_bool).unwrap_or(false),
            })
            .collect()
    }
}

/// A string value, or the `text` fields of an array of blocks joined by
/// newlines.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn req(body: Value) -> RecordedRequest {
        RecordedRequest {
            method: "POST".into(),
            path: "/v1/messages".into(),
            query: None,
            headers: vec![("x-api-key".into(), "k".into())],
            body,
        }
    }

    #[test]
    fn tool_results_of_last_user_message() {
        let r = req(json!({
            "model": "m",
            "system": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            "tools": [{"name": "Bash"}],
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "t1"}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "out", "is_error": true},
                    {"type": "text", "text": "x"},
                    {"type": "tool_result", "tool_use_id": "t2",
                     "content": [{"type": "text", "text": "y"}]},
                ]},
            ]
        }));
        assert!(r.is_main());
        assert_eq!(r.model(), Some("m"));
        assert_eq!(r.system().as_deref(), Some("a\nb"));
        assert_eq!(r.tool_names(), ["Bash"]);
        assert_eq!(r.header("X-API-KEY"), Some("k"));
        let t = r.tool_results();
        assert_eq!(t.len(), 2);
        assert_eq!((t[0].tool_use_id.as_str(), t[0].is_error), ("t1", true));
        assert_eq!(t[0].text(), "out");
        assert_eq!((t[1].tool_use_id.as_str(), t[1].is_error), ("t2", false));
        assert_eq!(t[1].text(), "y");
    }

    #[test]
    fn side_request_is_not_main() {
        assert!(!req(json!({"tools": [], "messages": []})).is_main());
        assert!(!req(json!({"messages": []})).is_main());
        assert!(req(json!({})).tool_results().is_empty());
        assert_eq!(req(json!({})).last_user_content(), None);
    }
}
