//! The smaller top-level message types: tool progress and summaries,
//! authentication, prompt suggestions, goals, API metrics (thinking
//! progress), command lifecycles and keep-alives.

use serde_json::Value;

wire_struct! {
    /// A `tool_progress` line: a tool call is still running.
    #[derive(Default)]
    pub struct ToolProgress = "tool_progress", builder ToolProgressBuilder {
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The subagent call it belongs to, or null.
        parent_tool_use_id: opt String = "parent_tool_use_id",
        /// Seconds since the call started.
        elapsed_time_seconds: opt f64 = "elapsed_time_seconds",
        /// The background task running it, if any.
        task_id: opt String = "task_id",
        /// A heartbeat with no new progress.
        heartbeat: opt bool = "heartbeat",
        /// The subagent type, for an agent call.
        subagent_type: opt String = "subagent_type",
        /// A subagent's API retry: `{agent_id, attempt, max_retries, ...}`.
        subagent_retry: opt Value = "subagent_retry",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// A `tool_use_summary` line: a summary of some tool calls.
    #[derive(Default)]
    pub struct ToolUseSummary = "tool_use_summary", builder ToolUseSummaryBuilder {
        /// The summary text.
        summary: opt String = "summary",
        /// The calls summarized.
        preceding_tool_use_ids: opt Vec<String> = "preceding_tool_use_ids",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// An `auth_status` line: authentication progress.
    #[derive(Default)]
    pub struct AuthStatus = "auth_status", builder AuthStatusBuilder {
        /// Whether authentication is under way.
        is_authenticating: opt bool = "isAuthenticating",
        /// Output lines of the authentication flow.
        output: opt Vec<String> = "output",
        /// What failed.
        error: opt String = "error",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// A `prompt_suggestion` line: a suggested next prompt.
    #[derive(Default)]
    pub struct PromptSuggestion = "prompt_suggestion", builder PromptSuggestionBuilder {
        /// The suggested prompt.
        suggestion: opt String = "suggestion",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// An `active_goal` line: the `/goal` state changed.
    #[derive(Default)]
    pub struct ActiveGoal = "active_goal", builder ActiveGoalBuilder {
        /// `{condition, iterations, set_at, tokens_at_start, last_reason?}`,
        /// or null once the goal is met.
        value: opt Value = "value",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// An `api_metrics` line: one model call's lifecycle, including thinking
    /// progress (`event.type`: `start`, `end`, `content_block_start`,
    /// `thinking_progress`, `thinking_signature`, `thinking_dropped`, ...).
    #[derive(Default)]
    pub struct ApiMetrics = "api_metrics", builder ApiMetricsBuilder {
        /// The event, tagged by `type`.
        event: opt Value = "event",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// A `command_lifecycle` line: a queued user message moved on.
    #[derive(Default)]
    pub struct CommandLifecycle = "command_lifecycle", builder CommandLifecycleBuilder {
        /// The uuid the host gave the message.
        command_uuid: opt String = "command_uuid",
        /// `queued`, `started`, `completed`, `cancelled`, `discarded`, `refused`.
        state: opt String = "state",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// A `keep_alive` line: a liveness heartbeat with no payload.
    #[derive(Default)]
    pub struct KeepAlive = "keep_alive", builder KeepAliveBuilder {}
}
