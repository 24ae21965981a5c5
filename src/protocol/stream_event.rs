//! `stream_event` messages: raw Messages API streaming events (only with
//! partial messages on).

use serde_json::Value;

use super::{ApiMessage, ContentBlock, StopReason, Usage};

wire_struct! {
    /// A `stream_event` line.
    pub struct StreamEvent = "stream_event", builder StreamEventBuilder {
        /// The streaming event (required).
        event: req ApiStreamEvent = "event",
        /// The CLI's session id.
        session_id: opt String = "session_id",
        /// Set when a subagent produced this event.
        parent_tool_use_id: opt String = "parent_tool_use_id",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The API message id the event belongs to.
        api_message_id: opt String = "api_message_id",
    }
}

tagged_enum! {
    /// A Messages API server-sent event, by its `type`.
    pub enum ApiStreamEvent = "stream event", tag "type", builder ApiStreamEventBuilder {
        /// `message_start`.
        MessageStart(MessageStart) = "message_start",
        /// `content_block_start`.
        ContentBlockStart(ContentBlockStart) = "content_block_start",
        /// `content_block_delta`.
        ContentBlockDelta(ContentBlockDelta) = "content_block_delta",
        /// `content_block_stop`.
        ContentBlockStop(ContentBlockStop) = "content_block_stop",
        /// `message_delta`.
        MessageDelta(MessageDelta) = "message_delta",
        /// `message_stop`.
        MessageStop(MessageStop) = "message_stop",
        /// `ping`.
        Ping(MessageStop) = "ping",
        /// `error`.
        Error(StreamError) = "error",
        @other
        /// An event type this version does not know.
        Other { event_type }
    }
}

wire_struct! {
    /// `message_start`: a new API message begins.
    #[derive(Default)]
    pub struct MessageStart = "message_start", builder MessageStartBuilder {
        /// The message, with empty content.
        message: opt ApiMessage = "message",
    }
}

wire_struct! {
    /// `content_block_start`: a new block begins.
    #[derive(Default)]
    pub struct ContentBlockStart = "content_block_start", builder ContentBlockStartBuilder {
        /// The block's index in the message.
        index: opt u64 = "index",
        /// The block, with empty text/input.
        content_block: opt ContentBlock = "content_block",
    }
}

wire_struct! {
    /// `content_block_delta`: more of a block.
    #[derive(Default)]
    pub struct ContentBlockDelta = "content_block_delta", builder ContentBlockDeltaBuilder {
        /// The block's index in the message.
        index: opt u64 = "index",
        /// The increment.
        delta: opt Delta = "delta",
    }
}

wire_struct! {
    /// `content_block_stop`: a block is complete.
    #[derive(Default)]
    pub struct ContentBlockStop = "content_block_stop", builder ContentBlockStopBuilder {
        /// The block's index in the message.
        index: opt u64 = "index",
    }
}

wire_struct! {
    /// `message_delta`: top-level changes (stop reason, usage).
    #[derive(Default)]
    pub struct MessageDelta = "message_delta", builder MessageDeltaBuilder {
        /// `{stop_reason, stop_sequence}`.
        delta: opt MessageDeltaBody = "delta",
        /// Cumulative usage.
        usage: opt Usage = "usage",
    }
}

wire_struct! {
    /// The `delta` of a `message_delta`.
    #[derive(Default)]
    pub struct MessageDeltaBody = "message_delta body", builder MessageDeltaBodyBuilder {
        /// Why the call stopped.
        stop_reason: opt StopReason = "stop_reason",
        /// The stop sequence that matched, if any.
        stop_sequence: opt String = "stop_sequence",
    }
}

wire_struct! {
    /// An event with no members of its own (`message_stop`, `ping`).
    #[derive(Default)]
    pub struct MessageStop = "message_stop", builder MessageStopBuilder {}
}

wire_struct! {
    /// `error`: the stream failed.
    #[derive(Default)]
    pub struct StreamError = "stream error", builder StreamErrorBuilder {
        /// The API error object.
        error: opt Value = "error",
    }
}

tagged_enum! {
    /// The increment carried by a `content_block_delta`.
    pub enum Delta = "delta", tag "type", builder DeltaBuilder {
        /// `text_delta`: `text`.
        Text(TextDelta) = "text_delta",
        /// `input_json_delta`: `partial_json`.
        InputJson(InputJsonDelta) = "input_json_delta",
        /// `thinking_delta`: `thinking`.
        Thinking(ThinkingDelta) = "thinking_delta",
        /// `signature_delta`: `signature`.
        Signature(SignatureDelta) = "signature_delta",
        @other
        /// A delta type this version does not know.
        Other { delta_type }
    }
}

wire_struct! {
    /// More text.
    #[derive(Default)]
    pub struct TextDelta = "text_delta", builder TextDeltaBuilder {
        /// The added text.
        text: opt String = "text",
    }
}

wire_struct! {
    /// More of a tool input's JSON text.
    #[derive(Default)]
    pub struct InputJsonDelta = "input_json_delta", builder InputJsonDeltaBuilder {
        /// The added JSON fragment.
        partial_json: opt String = "partial_json",
    }
}

wire_struct! {
    /// More thinking.
    #[derive(Default)]
    pub struct ThinkingDelta = "thinking_delta", builder ThinkingDeltaBuilder {
        /// The added thinking text.
        thinking: opt String = "thinking",
    }
}

wire_struct! {
    /// A thinking block's signature.
    #[derive(Default)]
    pub struct SignatureDelta = "signature_delta", builder SignatureDeltaBuilder {
        /// The signature.
        signature: opt String = "signature",
    }
}
