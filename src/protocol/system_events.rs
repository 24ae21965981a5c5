//! The event-like `system` subtypes: retries, compaction, hooks, tasks.

use serde_json::Value;

wire_struct! {
    /// `system/api_retry`: an API call failed and will be retried.
    #[derive(Default)]
    pub struct ApiRetry = "system/api_retry", builder ApiRetryBuilder {
        /// This attempt's number.
        attempt: opt u64 = "attempt",
        /// The retry limit.
        max_retries: opt u64 = "max_retries",
        /// Delay before the next attempt.
        retry_delay_ms: opt u64 = "retry_delay_ms",
        /// HTTP status of the failure, if any.
        error_status: opt u16 = "error_status",
        /// The error, as the CLI describes it.
        error: opt Value = "error",
        /// `{waited_ms, retry_wait_ms}` when the API sent no response.
        no_response: opt Value = "no_response",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/compact_boundary`: the conversation was compacted here.
    #[derive(Default)]
    pub struct CompactBoundary = "system/compact_boundary", builder CompactBoundaryBuilder {
        /// `{trigger, pre_tokens, post_tokens, ...}`.
        compact_metadata: opt Value = "compact_metadata",
        /// The uuid of the last message before the boundary.
        logical_parent_uuid: opt String = "logical_parent_uuid",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/hook_started`: a hook began running.
    #[derive(Default)]
    pub struct HookStarted = "system/hook_started", builder HookStartedBuilder {
        /// The hook run's id.
        hook_id: opt String = "hook_id",
        /// The hook's name.
        hook_name: opt String = "hook_name",
        /// The hook event, e.g. `PreToolUse`.
        hook_event: opt String = "hook_event",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/hook_response`: a hook finished.
    #[derive(Default)]
    pub struct HookResponse = "system/hook_response", builder HookResponseBuilder {
        /// The hook run's id.
        hook_id: opt String = "hook_id",
        /// The hook's name.
        hook_name: opt String = "hook_name",
        /// The hook event, e.g. `PreToolUse`.
        hook_event: opt String = "hook_event",
        /// The hook's output.
        output: opt String = "output",
        /// The hook's stdout.
        stdout: opt String = "stdout",
        /// The hook's stderr.
        stderr: opt String = "stderr",
        /// The hook's exit code.
        exit_code: opt i64 = "exit_code",
        /// `success`, `error`, `cancelled`.
        outcome: opt String = "outcome",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/task_started`: a background task (subagent, shell) began.
    #[derive(Default)]
    pub struct TaskStarted = "system/task_started", builder TaskStartedBuilder {
        /// The task's id.
        task_id: opt String = "task_id",
        /// The run of the task this line is about.
        run_id: opt String = "run_id",
        /// The tool call that started it.
        tool_use_id: opt String = "tool_use_id",
        /// What the task does.
        description: opt String = "description",
        /// The kind of task.
        task_type: opt String = "task_type",
        /// The subagent type, for an agent task.
        subagent_type: opt String = "subagent_type",
        /// Whether it runs in the background.
        is_backgrounded: opt bool = "is_backgrounded",
        /// The task that started it.
        parent_task_id: opt String = "parent_task_id",
        /// The prompt given to it.
        prompt: opt String = "prompt",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/task_progress`: a background task made progress.
    #[derive(Default)]
    pub struct TaskProgress = "system/task_progress", builder TaskProgressBuilder {
        /// The task's id.
        task_id: opt String = "task_id",
        /// The run of the task this line is about.
        run_id: opt String = "run_id",
        /// The tool call that started it.
        tool_use_id: opt String = "tool_use_id",
        /// What the task does.
        description: opt String = "description",
        /// `{total_tokens, tool_uses, duration_ms}`.
        usage: opt Value = "usage",
        /// The last tool the task used.
        last_tool_name: opt String = "last_tool_name",
        /// A summary of progress so far.
        summary: opt String = "summary",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/task_notification`: a background task finished.
    #[derive(Default)]
    pub struct TaskNotification = "system/task_notification", builder TaskNotificationBuilder {
        /// The task's id.
        task_id: opt String = "task_id",
        /// The run of the task this line is about.
        run_id: opt String = "run_id",
        /// The tool call that started it.
        tool_use_id: opt String = "tool_use_id",
        /// `completed`, `failed`, `stopped`.
        status: opt String = "status",
        /// Where the task's output was written.
        output_file: opt String = "output_file",
        /// A summary of the outcome.
        summary: opt String = "summary",
        /// `{total_tokens, tool_uses, duration_ms}`.
        usage: opt Value = "usage",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/task_updated`: a background task changed.
    #[derive(Default)]
    pub struct TaskUpdated = "system/task_updated", builder TaskUpdatedBuilder {
        /// The task's id.
        task_id: opt String = "task_id",
        /// The run of the task this line is about.
        run_id: opt String = "run_id",
        /// What changed.
        patch: opt Value = "patch",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
