//! The `system` subtypes CLI 2.1.332 writes into its session transcripts
//! (and a session's mirror) about a turn: API errors and retries, the
//! turn's duration, Stop-hook summaries, model fallbacks and title
//! changes. Shapes read from the CLI itself; the official SDKs do not
//! define them, so members the CLI adds land in `extra`.

use serde_json::Value;

wire_struct! {
    /// `system/api_error`: an API call failed; the CLI retries it.
    #[derive(Default)]
    pub struct ApiErrorNotice = "system/api_error", builder ApiErrorNoticeBuilder {
        /// `error`.
        level: opt String = "level",
        /// The error, as the API client reported it.
        error: opt Value = "error",
        /// Delay before the next attempt.
        retry_in_ms: opt serde_json::Number = "retryInMs",
        /// The attempt about to be made.
        retry_attempt: opt u32 = "retryAttempt",
        /// The most attempts the CLI makes.
        max_retries: opt u32 = "maxRetries",
        /// What made the call.
        source: opt String = "source",
        /// When (ISO 8601).
        timestamp: opt String = "timestamp",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/turn_duration`: how long a turn took.
    #[derive(Default)]
    pub struct TurnDuration = "system/turn_duration", builder TurnDurationBuilder {
        /// The turn's wall time.
        duration_ms: opt serde_json::Number = "durationMs",
        /// Messages in the conversation.
        message_count: opt u64 = "messageCount",
        /// Background agents still running.
        pending_background_agent_count: opt u64 = "pendingBackgroundAgentCount",
        /// Workflows still running.
        pending_workflow_count: opt u64 = "pendingWorkflowCount",
        /// When (ISO 8601).
        timestamp: opt String = "timestamp",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/stop_hook_summary`: what the Stop hooks did at a turn's end.
    #[derive(Default)]
    pub struct StopHookSummary = "system/stop_hook_summary", builder StopHookSummaryBuilder {
        /// Hooks that ran.
        hook_count: opt u64 = "hookCount",
        /// Each hook that ran.
        hook_infos: opt Vec<Value> = "hookInfos",
        /// Errors the hooks reported.
        hook_errors: opt Vec<Value> = "hookErrors",
        /// Whether a hook kept the turn going.
        prevented_continuation: opt bool = "preventedContinuation",
        /// The reason a hook gave for stopping.
        stop_reason: opt String = "stopReason",
        /// Whether any hook printed output.
        has_output: opt bool = "hasOutput",
        /// `info`, `warning`, `error`.
        level: opt String = "level",
        /// The tool call the hooks ran for, if any.
        tool_use_id: opt String = "toolUseID",
        /// All hooks' time.
        total_duration_ms: opt serde_json::Number = "totalDurationMs",
        /// When (ISO 8601).
        timestamp: opt String = "timestamp",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/model_fallback`: another model answers (overload, refusal).
    #[derive(Default)]
    pub struct ModelFallback = "system/model_fallback", builder ModelFallbackBuilder {
        /// The notice as the CLI shows it.
        content: opt String = "content",
        /// `warning`.
        level: opt String = "level",
        /// What caused it.
        trigger: opt String = "trigger",
        /// The model asked for.
        original_model: opt String = "originalModel",
        /// The model that answers.
        fallback_model: opt String = "fallbackModel",
        /// When (ISO 8601).
        timestamp: opt String = "timestamp",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/session_title_changed`: the session got a new title.
    #[derive(Default)]
    pub struct SessionTitleChanged = "system/session_title_changed", builder SessionTitleChangedBuilder {
        /// The title.
        title: opt String = "title",
        /// `user` or `other`.
        given_by: opt String = "given_by",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
