//! `assistant` messages: what the model said, one content block at a time.

use serde_json::Value;

use super::{ContentBlock, Usage};

string_enum! {
    /// Why a model call stopped.
    pub enum StopReason {
        /// The model finished its turn.
        EndTurn = "end_turn",
        /// The output token limit was reached.
        MaxTokens = "max_tokens",
        /// A stop sequence matched.
        StopSequence = "stop_sequence",
        /// The model wants tools run.
        ToolUse = "tool_use",
        /// A long server-side turn paused.
        PauseTurn = "pause_turn",
        /// The model refused.
        Refusal = "refusal",
        /// The context window is full.
        ModelContextWindowExceeded = "model_context_window_exceeded",
    }
}

string_enum! {
    /// Why the CLI produced a synthetic assistant message for a failure.
    pub enum AssistantError {
        /// Bad or missing credentials.
        AuthenticationFailed = "authentication_failed",
        /// Billing problem.
        BillingError = "billing_error",
        /// Rate limited.
        RateLimit = "rate_limit",
        /// The API rejected the request.
        InvalidRequest = "invalid_request",
        /// The API failed.
        ServerError = "server_error",
        /// The CLI could not tell.
        Unknown = "unknown",
    }
}

wire_struct! {
    /// An `assistant` line: one content block of one API response.
    ///
    /// Blocks of the same API response share `message.id`.
    pub struct AssistantMessage = "assistant", builder AssistantMessageBuilder {
        /// The API message (required).
        message: req ApiMessage = "message",
        /// Set when a subagent produced this message.
        parent_tool_use_id: opt String = "parent_tool_use_id",
        /// The CLI's session id.
        session_id: opt String = "session_id",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// ISO-8601 time the CLI stamped.
        timestamp: opt String = "timestamp",
        /// Display metadata for the tool calls in `message.content`.
        tool_use_meta: opt Vec<ToolUseMeta> = "tool_use_meta",
        /// Set when the response was aborted.
        aborted: opt bool = "aborted",
        /// Set on synthetic messages that report a failed API call.
        error: opt AssistantError = "error",
    }
}

wire_struct! {
    /// A Messages API `message` object.
    #[derive(Default)]
    pub struct ApiMessage = "message", builder ApiMessageBuilder {
        /// The API message id (`msg_...`).
        id: opt String = "id",
        /// Always `message`.
        message_type: opt String = "type",
        /// Always `assistant`.
        role: opt String = "role",
        /// The model that answered.
        model: opt String = "model",
        /// The content blocks (one per CLI line).
        content: opt Vec<ContentBlock> = "content",
        /// Why the call stopped (null while streaming).
        stop_reason: opt StopReason = "stop_reason",
        /// The stop sequence that matched, if any.
        stop_sequence: opt String = "stop_sequence",
        /// Token usage.
        usage: opt Usage = "usage",
        /// Context management actions the API applied.
        context_management: opt Value = "context_management",
    }
}

impl ApiMessage {
    /// The content blocks, empty when absent.
    pub fn blocks(&self) -> &[ContentBlock] {
        self.content.as_deref().unwrap_or_default()
    }
}

wire_struct! {
    /// Display metadata the CLI attaches to a tool call.
    #[derive(Default)]
    pub struct ToolUseMeta = "tool use meta", builder ToolUseMetaBuilder {
        /// The `tool_use` block's id.
        id: opt String = "id",
        /// Human-facing tool name.
        display_name: opt String = "display_name",
        /// Human-facing MCP server name.
        server_display_name: opt String = "server_display_name",
        /// The tool's own name (without the `mcp__` prefix).
        tool_name: opt String = "tool_name",
    }
}
