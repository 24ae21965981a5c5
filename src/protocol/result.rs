//! `result` messages: the end of one turn.

use serde_json::{Number, Value};

use super::Usage;

string_enum! {
    /// How a turn ended.
    pub enum ResultSubtype {
        /// The turn completed.
        Success = "success",
        /// `--max-turns` was reached.
        ErrorMaxTurns = "error_max_turns",
        /// `--max-budget-usd` was reached.
        ErrorMaxBudgetUsd = "error_max_budget_usd",
        /// The turn failed while running.
        ErrorDuringExecution = "error_during_execution",
        /// `--json-schema` output failed validation too often.
        ErrorMaxStructuredOutputRetries = "error_max_structured_output_retries",
    }
}

string_enum! {
    /// Why the CLI ended the turn.
    pub enum TerminalReason {
        /// Normal completion.
        Completed = "completed",
        /// `--max-turns` reached.
        MaxTurns = "max_turns",
        /// The API failed after retries.
        ApiError = "api_error",
        /// The context hit its blocking limit.
        BlockingLimit = "blocking_limit",
        /// The rapid-refill breaker tripped.
        RapidRefillBreaker = "rapid_refill_breaker",
        /// The prompt was too long.
        PromptTooLong = "prompt_too_long",
        /// An image could not be used.
        ImageError = "image_error",
        /// The model failed.
        ModelError = "model_error",
        /// Malformed tool calls exhausted their retries.
        MalformedToolUseExhausted = "malformed_tool_use_exhausted",
        /// Interrupted while streaming.
        AbortedStreaming = "aborted_streaming",
        /// Interrupted while tools ran.
        AbortedTools = "aborted_tools",
        /// A Stop hook prevented continuing.
        StopHookPrevented = "stop_hook_prevented",
        /// A hook stopped the turn.
        HookStopped = "hook_stopped",
        /// A tool call was deferred by a hook.
        ToolDeferred = "tool_deferred",
        /// The host asked for the turn to go to the background.
        BackgroundRequested = "background_requested",
        /// `--max-budget-usd` reached.
        BudgetExhausted = "budget_exhausted",
        /// `--json-schema` retries exhausted.
        StructuredOutputRetryExhausted = "structured_output_retry_exhausted",
        /// A deferred tool is unavailable.
        ToolDeferredUnavailable = "tool_deferred_unavailable",
        /// The turn could not be set up.
        TurnSetupFailed = "turn_setup_failed",
    }
}

wire_struct! {
    /// A `result` line: one turn is over. The CLI puts `type` in the middle
    /// of this line; the parser handles any key order.
    ///
    /// Cost fields are [`Number`] (not `f64`) so an integer `0` round-trips
    /// as an integer; use [`Number::as_f64`].
    pub struct ResultMessage = "result", builder ResultMessageBuilder {
        /// How the turn ended (required).
        subtype: req ResultSubtype = "subtype",
        /// Whether the turn ended in error.
        is_error: opt bool = "is_error",
        /// Wall time of the turn.
        duration_ms: opt u64 = "duration_ms",
        /// Time spent in API calls.
        duration_api_ms: opt u64 = "duration_api_ms",
        /// Model calls in the turn.
        num_turns: opt u64 = "num_turns",
        /// The CLI's session id.
        session_id: opt String = "session_id",
        /// The final text (success only).
        result: opt String = "result",
        /// The last model call's stop reason.
        stop_reason: opt String = "stop_reason",
        /// Cost of the session so far, in USD.
        total_cost_usd: opt Number = "total_cost_usd",
        /// Token usage of the turn.
        usage: opt Usage = "usage",
        /// Usage per model (`{model: {inputTokens, ...}}`).
        model_usage: opt Value = "modelUsage",
        /// Tool calls the permission system denied.
        permission_denials: opt Vec<PermissionDenial> = "permission_denials",
        /// Error messages, for error subtypes.
        errors: opt Vec<Value> = "errors",
        /// Why the CLI ended the turn.
        terminal_reason: opt TerminalReason = "terminal_reason",
        /// The JSON-schema output, when `--json-schema` was used.
        structured_output: opt Value = "structured_output",
        /// HTTP status of the failing API call, if any.
        api_error_status: opt u16 = "api_error_status",
        /// This line's uuid.
        uuid: opt String = "uuid",
    }
}

wire_struct! {
    /// A tool call the permission system denied during the turn.
    #[derive(Default)]
    pub struct PermissionDenial = "permission denial", builder PermissionDenialBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The call's input.
        tool_input: opt Value = "tool_input",
    }
}

impl ResultMessage {
    /// Whether the turn ended in error: the CLI set `is_error` (an API
    /// failure is subtype `success` with `is_error: true`), or the subtype
    /// is anything but `success` (`error_max_turns`, a subtype this version
    /// does not know, ...). The host, telemetry and the transcript all ask
    /// this, so a job, its span and its record agree. The `is_error` field
    /// stays the CLI's raw flag.
    ///
    /// ```
    /// use claude_agent::protocol::{Message, parse_message};
    /// let line = br#"{"type":"result","subtype":"error_max_turns","session_id":"s"}"#;
    /// let Ok(Message::Result(r)) = parse_message(line) else { panic!("a result") };
    /// assert_eq!(r.is_error, None);
    /// assert!(r.is_error());
    /// ```
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true) || self.subtype != ResultSubtype::Success
    }
}
