//! The content block types, one struct per block kind; `tool_result`,
//! whose content holds blocks again, lives with [`Content`](super::Content).

use serde_json::Value;

wire_struct! {
    /// A `text` block.
    #[derive(Default)]
    pub struct TextBlock = "text block", builder TextBlockBuilder {
        /// The text.
        text: opt String = "text",
        /// Citations, when the model cited documents.
        citations: opt Value = "citations",
    }
}

wire_struct! {
    /// A `thinking` block (extended thinking).
    #[derive(Default)]
    pub struct ThinkingBlock = "thinking block", builder ThinkingBlockBuilder {
        /// The model's thinking text.
        thinking: opt String = "thinking",
        /// Signature that lets the API verify the block when sent back.
        signature: opt String = "signature",
    }
}

wire_struct! {
    /// A `redacted_thinking` block: encrypted thinking.
    #[derive(Default)]
    pub struct RedactedThinkingBlock = "redacted_thinking block", builder RedactedThinkingBlockBuilder {
        /// The opaque encrypted payload.
        data: opt String = "data",
    }
}

wire_struct! {
    /// A `tool_use` block (also the body of `server_tool_use`): the model
    /// calls a tool.
    #[derive(Default)]
    pub struct ToolUseBlock = "tool_use block", builder ToolUseBlockBuilder {
        /// The call's id, echoed by the matching `tool_result`.
        id: opt String = "id",
        /// The tool's name (`mcp__<server>__<tool>` for MCP tools).
        name: opt String = "name",
        /// The tool's input, as the model wrote it.
        input: opt Value = "input",
    }
}

wire_struct! {
    /// The body of a server tool result (`web_search_tool_result` and any
    /// other `*_tool_result`).
    #[derive(Default)]
    pub struct ServerToolResultBlock = "server tool result block", builder ServerToolResultBlockBuilder {
        /// The `id` of the `server_tool_use` this answers.
        tool_use_id: opt String = "tool_use_id",
        /// The result, shaped per tool.
        content: opt Value = "content",
    }
}

wire_struct! {
    /// Where an image's or document's bytes come from.
    #[derive(Default)]
    pub struct MediaSource = "media source", builder MediaSourceBuilder {
        /// `base64`, `url`, `text`, `file`, ...
        source_type: opt String = "type",
        /// MIME type, e.g. `image/png`.
        media_type: opt String = "media_type",
        /// The (base64) data, for `base64` and `text` sources.
        data: opt String = "data",
        /// The URL, for `url` sources.
        url: opt String = "url",
    }
}

wire_struct! {
    /// An `image` block.
    #[derive(Default)]
    pub struct ImageBlock = "image block", builder ImageBlockBuilder {
        /// The image data.
        source: opt MediaSource = "source",
    }
}

wire_struct! {
    /// A `document` block (PDF or text).
    #[derive(Default)]
    pub struct DocumentBlock = "document block", builder DocumentBlockBuilder {
        /// The document data.
        source: opt MediaSource = "source",
        /// Optional title.
        title: opt String = "title",
        /// Optional context about the document.
        context: opt String = "context",
        /// Citation settings.
        citations: opt Value = "citations",
    }
}
