//! The transcript artifact: plain serializable data, computed by
//! [`TranscriptRecorder::snapshot`](super::TranscriptRecorder::snapshot).

use std::ops::Range;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CloseInfo, ControlRecord, DecisionRecord, RunInfo};
use crate::protocol::{ResultMessage, Usage};

/// Everything one session did, as an evaluable artifact.
///
/// Messages are kept as the JSON the protocol serializes them to (lossless,
/// unknown fields included). `messages` holds complete messages only;
/// `stream_events` holds the partial-message events, apart, so nothing is
/// counted twice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Transcript {
    /// The CLI's session id (from the first message that carries one).
    pub session_id: Option<String>,
    /// How the run was set up.
    pub run: RunInfo,
    /// Every message received except `stream_event`s, in order.
    pub messages: Vec<Value>,
    /// Every `stream_event` received, in order.
    pub stream_events: Vec<Value>,
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// Tool calls, correlated by `tool_use_id`, in the order they were made.
    pub tool_calls: Vec<ToolCall>,
    /// Every callback decision, in order (also attached to `tool_calls`).
    pub decisions: Vec<DecisionRecord>,
    /// Every `result`, in order.
    pub results: Vec<ResultSummary>,
    /// Every control request, either direction.
    pub control_requests: Vec<ControlRecord>,
    /// The transport error that ended the session, if any.
    pub transport_error: Option<String>,
    /// True when any turn is incomplete.
    pub incomplete: bool,
    /// How the session closed; `None` while it runs.
    pub close: Option<CloseInfo>,
    /// Stdout lines the runtime could not deliver (not JSON, malformed,
    /// over the line limit), in order.
    #[serde(default)]
    pub skipped_lines: Vec<SkippedLine>,
    /// Faults a fault plan injected (feature `fault-injection`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Value>,
}

/// A stdout line that was not delivered as a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkippedLine {
    /// `not_json`, `malformed` or `oversized`.
    pub reason: String,
    /// The line's length in bytes, when known (always for `oversized`).
    pub len: Option<u64>,
    /// Its first bytes (lossy UTF-8).
    pub prefix: String,
}

impl SkippedLine {
    /// The record of a skipped line, from the runtime's diagnostic.
    pub fn from_diagnostic(d: &claude_agent_actors::Diagnostic) -> Option<Self> {
        use claude_agent_actors::{Diagnostic, SkipReason};
        let Diagnostic::LineSkipped { reason, prefix } = d else {
            return None;
        };
        let (reason, len) = match reason {
            SkipReason::NotJson => ("not_json", None),
            SkipReason::Malformed => ("malformed", None),
            SkipReason::Oversized { len, .. } => ("oversized", Some(*len)),
            _ => ("other", None),
        };
        Some(Self {
            reason: reason.to_owned(),
            len,
            prefix: prefix.clone(),
        })
    }
}

impl Transcript {
    /// The transcript as indented JSON.
    pub fn to_json_pretty(&self) -> String {
        // Only strings, numbers and `Value`s: serializing cannot fail.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// One turn: a prompt and everything until its `result`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The prompt we sent, or `None` when the turn was opened by a message.
    pub prompt: Option<Value>,
    /// The turn's messages, as indices into [`Transcript::messages`]
    /// (messages that arrive after a `result` with no new turn, such as
    /// the `idle` state change, belong to the turn before).
    pub messages: Range<usize>,
    /// The turn's stream events, as indices into [`Transcript::stream_events`].
    pub stream_events: Range<usize>,
    /// The turn's `result`.
    pub result: Option<ResultSummary>,
    /// No result yet and the session is still open.
    pub in_progress: bool,
    /// The turn ended (session closed or transport error) without a
    /// result, or it got streamed deltas for a message that never arrived
    /// complete: its text is not a (short) answer.
    pub incomplete: bool,
    /// Text of the top-level complete `assistant` messages only (never
    /// from deltas), blocks joined with `\n`.
    pub text: String,
    /// Stream deltas arrived for an API message with no complete
    /// `assistant` message.
    pub got_deltas_only: bool,
    /// Token usage: the result's, else the complete assistant messages'
    /// (each API message counted once); never from stream events.
    pub usage: Option<TokenUsage>,
    /// Where `usage` came from.
    pub usage_source: Option<UsageSource>,
}

/// Where a turn's token usage was taken from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UsageSource {
    /// `result.usage`.
    Result,
    /// The sum over distinct API messages of `assistant` `message.usage`.
    Assistant,
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    pub cache_read_input_tokens: u64,
}

impl TokenUsage {
    pub(crate) fn from_usage(u: &Usage) -> Self {
        Self {
            input_tokens: u.input_tokens.unwrap_or(0),
            output_tokens: u.output_tokens.unwrap_or(0),
            cache_creation_input_tokens: u.cache_creation_input_tokens.unwrap_or(0),
            cache_read_input_tokens: u.cache_read_input_tokens.unwrap_or(0),
        }
    }

    pub(crate) fn add(&mut self, o: &Self) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cache_creation_input_tokens += o.cache_creation_input_tokens;
        self.cache_read_input_tokens += o.cache_read_input_tokens;
    }
}

/// The parts of a `result` message worth reading at a glance (the whole
/// message is in [`Transcript::messages`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultSummary {
    /// `success`, `error_max_turns`, ...
    pub subtype: String,
    /// Whether the turn ended in error ([`ResultMessage::is_error`]).
    pub is_error: bool,
    /// The final text (success only).
    pub result: Option<String>,
    /// The last model call's stop reason.
    pub stop_reason: Option<String>,
    /// Model calls in the turn.
    pub num_turns: Option<u64>,
    /// Wall time of the turn.
    pub duration_ms: Option<u64>,
    /// Cost of the session so far, in USD.
    pub total_cost_usd: Option<f64>,
    /// Token usage of the turn.
    pub usage: Option<TokenUsage>,
    /// Error messages, for error subtypes.
    pub errors: Vec<Value>,
    /// The session id the result names.
    pub session_id: Option<String>,
}

impl ResultSummary {
    pub(crate) fn from_message(r: &ResultMessage) -> Self {
        Self {
            subtype: r.subtype.to_string(),
            is_error: r.is_error(),
            result: r.result.clone(),
            stop_reason: r.stop_reason.clone(),
            num_turns: r.num_turns,
            duration_ms: r.duration_ms,
            total_cost_usd: r.total_cost_usd.as_ref().and_then(|n| n.as_f64()),
            usage: r.usage.as_ref().map(TokenUsage::from_usage),
            errors: r.errors.clone().unwrap_or_default(),
            session_id: r.session_id.clone(),
        }
    }
}

/// One tool call: the request, the decisions about it, and its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The `tool_use` block's id.
    pub tool_use_id: String,
    /// The tool's name (`mcp__<server>__<tool>` for MCP tools).
    pub name: String,
    /// The input the model wrote.
    pub input: Value,
    /// The turn it belongs to (index into [`Transcript::turns`]).
    pub turn: usize,
    /// Set when a subagent made the call.
    pub parent_tool_use_id: Option<String>,
    /// The `can_use_tool` decision, if one was asked for.
    pub decision: Option<DecisionRecord>,
    /// Hook decisions about this call, in order.
    pub hook_decisions: Vec<DecisionRecord>,
    /// The in-process MCP call that ran it, if any.
    pub mcp_call: Option<DecisionRecord>,
    /// The `tool_result`, once it arrived.
    pub result: Option<ToolResultRecord>,
}

/// A `tool_result` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultRecord {
    /// The content: a string or content blocks, as JSON.
    pub content: Value,
    /// Whether the tool failed.
    pub is_error: bool,
}
