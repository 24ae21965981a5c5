//! `user` messages: prompts, tool results, and replays, in both directions.

use std::fmt;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::{Content, Extras, MessageOrigin};

wire_struct! {
    /// A `user` line: from the CLI (tool results, replays) or to it (prompts).
    pub struct UserMessage = "user", builder UserMessageBuilder {
        /// The API-shaped user message (required).
        message: req UserApiMessage = "message",
        /// Set when a subagent produced this message.
        parent_tool_use_id: opt String = "parent_tool_use_id",
        /// The CLI's session id (`default` on frames we send).
        session_id: opt String = "session_id",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// ISO-8601 time the CLI stamped.
        timestamp: opt String = "timestamp",
        /// The tool's own structured result, for tool result messages.
        tool_use_result: opt ToolUseResult = "tool_use_result",
        /// Per-tool-call metadata (permission decisions, ...).
        tool_result_meta: opt Value = "tool_result_meta",
        /// The CLI echoes a prompt or local command output back.
        is_replay: opt bool = "isReplay",
        /// The CLI wrote this message itself (e.g. a compaction summary).
        is_synthetic: opt bool = "isSynthetic",
        /// When a queued message runs: `now`, `next` or `later`.
        priority: opt String = "priority",
        /// Who sent it: a person, a channel, another session.
        origin: opt MessageOrigin = "origin",
        /// `false`: add it to the transcript without starting a turn.
        should_query: opt bool = "shouldQuery",
        /// Delivered as written: no `@path` expansion, no slash commands.
        client_composed: opt bool = "client_composed",
        /// Pasted content the CLI appends after the typed text.
        pasted_content: opt Vec<Content> = "pasted_content",
        /// Pastes still inside the typed text, one entry each.
        inline_pastes: opt Vec<String> = "inline_pastes",
        /// The subagent that produced it (its tasks' `task_id`).
        agent_id: opt String = "agent_id",
        /// That subagent's type.
        subagent_type: opt String = "subagent_type",
        /// That subagent's task description.
        task_description: opt String = "task_description",
    }
}

wire_struct! {
    /// The API-shaped body of a user message.
    #[derive(Default)]
    pub struct UserApiMessage = "user message", builder UserApiMessageBuilder {
        /// Always `user`.
        role: opt String = "role",
        /// A string or content blocks.
        content: opt Content = "content",
    }
}

impl UserMessage {
    /// The frame we write to the CLI's stdin to send a prompt:
    /// `{"type":"user","message":{"role":"user","content":...},"parent_tool_use_id":null,"session_id":"default"}`.
    ///
    /// ```
    /// use claude_agent::protocol::{Message, UserMessage};
    ///
    /// let line = Message::from(UserMessage::prompt("hi")).to_json().unwrap();
    /// assert_eq!(
    ///     line,
    ///     r#"{"type":"user","message":{"role":"user","content":"hi"},"parent_tool_use_id":null,"session_id":"default"}"#
    /// );
    /// ```
    pub fn prompt(content: impl Into<Content>) -> Self {
        let mut m = Self {
            message: UserApiMessage {
                role: Some("user".to_owned()),
                content: Some(content.into()),
                extra: Extras::new(),
            },
            parent_tool_use_id: None,
            session_id: Some("default".to_owned()),
            uuid: None,
            timestamp: None,
            tool_use_result: None,
            tool_result_meta: None,
            is_replay: None,
            is_synthetic: None,
            priority: None,
            origin: None,
            should_query: None,
            client_composed: None,
            pasted_content: None,
            inline_pastes: None,
            agent_id: None,
            subagent_type: None,
            task_description: None,
            extra: Extras::new(),
        };
        // The official SDKs send `parent_tool_use_id` as an explicit null.
        m.mark_null("parent_tool_use_id");
        m
    }
}

/// The tool's own result attached to a tool result message: a string, an
/// object or a list, shaped per tool.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ToolUseResult {
    /// A plain string.
    Text(String),
    /// An object (e.g. Bash's `{stdout, stderr, interrupted, ...}`).
    Object(Map<String, Value>),
    /// A list (e.g. MCP content blocks).
    List(Vec<Value>),
    /// Any other JSON value.
    Other(Value),
}

impl Serialize for ToolUseResult {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(t) => s.serialize_str(t),
            Self::Object(m) => m.serialize(s),
            Self::List(l) => l.serialize(s),
            Self::Other(v) => v.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for ToolUseResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ToolUseResult;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a tool result")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ToolUseResult, E> {
                Ok(ToolUseResult::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<ToolUseResult, E> {
                Ok(ToolUseResult::Text(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, m: A) -> Result<ToolUseResult, A::Error> {
                Map::deserialize(de::value::MapAccessDeserializer::new(m))
                    .map(ToolUseResult::Object)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<ToolUseResult, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(s)).map(ToolUseResult::List)
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<ToolUseResult, E> {
                Ok(ToolUseResult::Other(Value::Bool(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ToolUseResult, E> {
                Ok(ToolUseResult::Other(Value::from(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ToolUseResult, E> {
                Ok(ToolUseResult::Other(Value::from(v)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<ToolUseResult, E> {
                Ok(ToolUseResult::Other(Value::from(v)))
            }
        }
        d.deserialize_any(V)
    }
}
