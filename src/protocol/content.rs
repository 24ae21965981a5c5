//! Content blocks and "string or blocks" content. The `tool_result` block
//! is here too: its content is again string-or-blocks, so the three types
//! are one recursive definition (the other blocks are leaves, in `blocks.rs`).

use std::fmt;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::blocks::{
    DocumentBlock, ImageBlock, RedactedThinkingBlock, ServerToolResultBlock, TextBlock,
    ThinkingBlock, ToolUseBlock,
};

tagged_enum! {
    /// One content block of a message, chosen by its `type`.
    ///
    /// Block types this version does not know parse into
    /// [`ContentBlock::Unknown`] with their raw JSON.
    pub enum ContentBlock = "content block", tag "type", builder ContentBlockBuilder {
        /// `text`.
        Text(TextBlock) = "text",
        /// `thinking`.
        Thinking(ThinkingBlock) = "thinking",
        /// `redacted_thinking`.
        RedactedThinking(RedactedThinkingBlock) = "redacted_thinking",
        /// `tool_use`.
        ToolUse(ToolUseBlock) = "tool_use",
        /// `tool_result`.
        ToolResult(ToolResultBlock) = "tool_result",
        /// `server_tool_use` (a tool the API runs, e.g. web search).
        ServerToolUse(ToolUseBlock) = "server_tool_use",
        /// `image`.
        Image(ImageBlock) = "image",
        /// `document`.
        Document(DocumentBlock) = "document",
        @suffix
        /// Any `*_tool_result` other than `tool_result`, e.g.
        /// `web_search_tool_result`.
        "_tool_result" => ServerToolResult(ServerToolResultBlock),
        @other
        /// A block type this version does not know.
        Unknown { kind }
    }
}

impl ContentBlock {
    /// A `text` block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextBlock {
            text: Some(text.into()),
            ..TextBlock::default()
        })
    }
}

wire_struct! {
    /// A `tool_result` block: the outcome of a tool call.
    #[derive(Default)]
    pub struct ToolResultBlock = "tool_result block", builder ToolResultBlockBuilder {
        /// The `id` of the `tool_use` this answers.
        tool_use_id: opt String = "tool_use_id",
        /// The result: a string or content blocks.
        content: opt Content = "content",
        /// Whether the tool failed.
        is_error: opt bool = "is_error",
    }
}

/// Content that is either a plain string or a list of blocks (user message
/// content, tool result content).
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    /// A plain string.
    Text(String),
    /// A list of content blocks.
    Blocks(Vec<ContentBlock>),
}

impl Default for Content {
    fn default() -> Self {
        Self::Text(String::new())
    }
}

impl From<&str> for Content {
    fn from(s: &str) -> Self {
        Self::Text(s.to_owned())
    }
}

impl From<String> for Content {
    fn from(s: String) -> Self {
        Self::Text(s)
    }
}

impl From<Vec<ContentBlock>> for Content {
    fn from(b: Vec<ContentBlock>) -> Self {
        Self::Blocks(b)
    }
}

impl Serialize for Content {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(t) => s.serialize_str(t),
            Self::Blocks(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or a list of content blocks")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Content, E> {
                Ok(Content::Text(v.to_owned()))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Content, E> {
                Ok(Content::Text(v))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Content, A::Error> {
                Vec::deserialize(de::value::SeqAccessDeserializer::new(seq)).map(Content::Blocks)
            }
        }
        d.deserialize_any(V)
    }
}
