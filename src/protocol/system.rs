//! `system` messages, chosen by `subtype`.

use super::mirror_error::MirrorError;
use super::system_events::{
    ApiRetry, CompactBoundary, HookResponse, HookStarted, TaskNotification, TaskProgress,
    TaskStarted, TaskUpdated,
};
use super::system_notices::{
    BackgroundTasksChanged, CommandsChanged, ElicitationComplete, FilesPersisted, Informational,
    LocalCommandOutput, MemoryRecall, Notification, PermissionDenied, PluginInstall,
    SessionWritesLost, WorkerShuttingDown,
};
use super::system_progress::{
    ControlRequestProgress, HookProgress, ModelRefusalFallback, ModelRefusalNoFallback,
    SystemEvent, Thinking, ThinkingTokens,
};
use super::system_transcript::{
    ApiErrorNotice, ModelFallback, SessionTitleChanged, StopHookSummary, TurnDuration,
};

tagged_enum! {
    /// A `system` line, by `subtype`: every subtype the official SDKs define
    /// has its own variant; the subtypes CLI 2.1.332 defines for its own
    /// surfaces are [`SystemMessage::Cli`]; anything newer is
    /// [`SystemMessage::Other`].
    /// Payloads are boxed to keep the enum (and [`Message`](super::Message)) small.
    pub enum SystemMessage = "system", tag "subtype", builder SystemMessageBuilder {
        /// `init`: session facts, printed at the start of every turn.
        Init(Box<SystemInit>) = "init",
        /// `session_state_changed`: running / idle / requires_action.
        SessionStateChanged(Box<SessionStateChanged>) = "session_state_changed",
        /// `status`: requesting / compacting / null, permission mode changes.
        Status(Box<SystemStatus>) = "status",
        /// `api_retry`: an API call failed and will be retried.
        ApiRetry(Box<ApiRetry>) = "api_retry",
        /// `compact_boundary`: the conversation was compacted.
        CompactBoundary(Box<CompactBoundary>) = "compact_boundary",
        /// `hook_started` (with `--include-hook-events`).
        HookStarted(Box<HookStarted>) = "hook_started",
        /// `hook_response` (with `--include-hook-events`).
        HookResponse(Box<HookResponse>) = "hook_response",
        /// `task_started`: a background task began.
        TaskStarted(Box<TaskStarted>) = "task_started",
        /// `task_progress`: a background task made progress.
        TaskProgress(Box<TaskProgress>) = "task_progress",
        /// `task_notification`: a background task finished.
        TaskNotification(Box<TaskNotification>) = "task_notification",
        /// `task_updated`: a background task changed.
        TaskUpdated(Box<TaskUpdated>) = "task_updated",
        /// `hook_progress` (with `--include-hook-events`): a running hook's output.
        HookProgress(Box<HookProgress>) = "hook_progress",
        /// `thinking_tokens`: the running thinking-token estimate.
        ThinkingTokens(Box<ThinkingTokens>) = "thinking_tokens",
        /// `thinking`: rendered thinking text.
        Thinking(Box<Thinking>) = "thinking",
        /// `control_request_progress`: a long control request advanced.
        ControlRequestProgress(Box<ControlRequestProgress>) = "control_request_progress",
        /// `model_refusal_fallback`: another model answers a refused turn.
        ModelRefusalFallback(Box<ModelRefusalFallback>) = "model_refusal_fallback",
        /// `model_refusal_no_fallback`: a refused turn with no fallback model.
        ModelRefusalNoFallback(Box<ModelRefusalNoFallback>) = "model_refusal_no_fallback",
        /// `informational`: information for the user.
        Informational(Box<Informational>) = "informational",
        /// `notification`: a notification to show.
        Notification(Box<Notification>) = "notification",
        /// `permission_denied`: a tool call was denied.
        PermissionDenied(Box<PermissionDenied>) = "permission_denied",
        /// `local_command_output`: a local slash command's output.
        LocalCommandOutput(Box<LocalCommandOutput>) = "local_command_output",
        /// `plugin_install`: plugin installation progress.
        PluginInstall(Box<PluginInstall>) = "plugin_install",
        /// `worker_shutting_down`: the CLI is about to exit.
        WorkerShuttingDown(Box<WorkerShuttingDown>) = "worker_shutting_down",
        /// `session_writes_lost`: the disk is full; writes were lost.
        SessionWritesLost(Box<SessionWritesLost>) = "session_writes_lost",
        /// `elicitation_complete`: an MCP elicitation was answered.
        ElicitationComplete(Box<ElicitationComplete>) = "elicitation_complete",
        /// `memory_recall`: memories recalled into the context.
        MemoryRecall(Box<MemoryRecall>) = "memory_recall",
        /// `commands_changed`: the slash commands changed.
        CommandsChanged(Box<CommandsChanged>) = "commands_changed",
        /// `files_persisted`: files uploaded to the Files API.
        FilesPersisted(Box<FilesPersisted>) = "files_persisted",
        /// `background_tasks_changed`: the set of background tasks.
        BackgroundTasksChanged(Box<BackgroundTasksChanged>) = "background_tasks_changed",
        /// `mirror_error`: a session store append failed (emitted by the SDK).
        MirrorError(Box<MirrorError>) = "mirror_error",
        /// `api_error`: an API call failed and is retried.
        ApiError(Box<ApiErrorNotice>) = "api_error",
        /// `turn_duration`: how long a turn took.
        TurnDuration(Box<TurnDuration>) = "turn_duration",
        /// `stop_hook_summary`: what the Stop hooks did.
        StopHookSummary(Box<StopHookSummary>) = "stop_hook_summary",
        /// `model_fallback`: another model answers.
        ModelFallback(Box<ModelFallback>) = "model_fallback",
        /// `session_title_changed`: the session got a new title.
        SessionTitleChanged(Box<SessionTitleChanged>) = "session_title_changed",
        @listed
        /// A subtype CLI 2.1.332 defines for its own surfaces (terminal UI,
        /// remote and cloud sessions, scheduling, summaries): known, with
        /// `uuid`/`session_id` typed and the rest in the body's `extra`.
        [
            "agents_killed", "away_summary", "bridge_state", "bridge_status",
            "checkpoint_done", "cloud_session_delta", "cloud_session_status",
            "code_change_published", "dev_intent", "feedback_draft_queued",
            "file_attachments_missing", "file_snapshot", "inherited_asks_settled",
            "instruction_size_warning", "late_allow_not_run", "local_command", "memory_saved",
            "model_consent_fallback", "peer_message_hold",
            "per_turn_effort_changed", "permission_check_status", "permission_retry", "placed",
            "post_turn_summary", "rewind_stand_in", "scheduled_task_fire", "session_metadata",
            "shell_cwd", "start_folder", "task_list_statuses", "task_summary", "tool_host_result", "turn_began_before_init",
            "turn_handoff_available", "turn_preempted", "turn_starting",
            "ui_focus", "ui_invalidate", "ui_log", "ui_notify", "ui_notify_cancel", "ui_panes",
            "ui_placed", "ui_scroll", "ui_status", "ui_toast", "upgrade_relay_marker",
            "vcs_state_changed", "voice_call_talk",
        ] => Cli(Box<SystemEvent>),
        @other
        /// A subtype this version does not model.
        Other { subtype }
    }
}

string_enum! {
    /// What the CLI's session is doing.
    pub enum SessionState {
        /// Working on a turn.
        Running = "running",
        /// Waiting for input.
        Idle = "idle",
        /// Waiting for a permission or other answer from the host.
        RequiresAction = "requires_action",
    }
}

wire_struct! {
    /// `system/init`: the session's configuration. The CLI adds fields over
    /// time; those are kept in `extra`.
    #[derive(Default)]
    pub struct SystemInit = "system/init", builder SystemInitBuilder {
        /// Working directory.
        cwd: opt String = "cwd",
        /// The CLI's session id.
        session_id: opt String = "session_id",
        /// Tools available to the model.
        tools: opt Vec<String> = "tools",
        /// MCP servers and their status.
        mcp_servers: opt Vec<McpServerStatus> = "mcp_servers",
        /// The model in use.
        model: opt String = "model",
        /// The permission mode in force.
        permission_mode: opt String = "permissionMode",
        /// Slash commands available.
        slash_commands: opt Vec<String> = "slash_commands",
        /// Where the API key came from.
        api_key_source: opt String = "apiKeySource",
        /// The CLI's version.
        claude_code_version: opt String = "claude_code_version",
        /// The output style in use.
        output_style: opt String = "output_style",
        /// Agent names available.
        agents: opt Vec<String> = "agents",
        /// Skill names available.
        skills: opt Vec<String> = "skills",
        /// Plugins loaded.
        plugins: opt Vec<PluginInfo> = "plugins",
        /// Protocol capabilities the CLI advertises.
        capabilities: opt Vec<String> = "capabilities",
        /// This line's uuid.
        uuid: opt String = "uuid",
    }
}

wire_struct! {
    /// One MCP server in `system/init`.
    #[derive(Default)]
    pub struct McpServerStatus = "mcp server status", builder McpServerStatusBuilder {
        /// Server name.
        name: opt String = "name",
        /// `connected`, `failed`, `pending`, ...
        status: opt String = "status",
        /// Where it is configured.
        source: opt String = "source",
    }
}

wire_struct! {
    /// One plugin in `system/init`.
    #[derive(Default)]
    pub struct PluginInfo = "plugin", builder PluginInfoBuilder {
        /// Plugin name.
        name: opt String = "name",
        /// Where it was loaded from.
        path: opt String = "path",
        /// Its declared version.
        version: opt String = "version",
        /// What provided it.
        source: opt String = "source",
    }
}

wire_struct! {
    /// `system/session_state_changed`.
    #[derive(Default)]
    pub struct SessionStateChanged = "system/session_state_changed", builder SessionStateChangedBuilder {
        /// The new state.
        state: opt SessionState = "state",
        /// Meant for the SDK host only, not the model.
        sdk_host_only: opt bool = "sdk_host_only",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/status`.
    #[derive(Default)]
    pub struct SystemStatus = "system/status", builder SystemStatusBuilder {
        /// `requesting`, `compacting`, or null when back to normal.
        status: opt String = "status",
        /// The permission mode, after `set_permission_mode`.
        permission_mode: opt String = "permissionMode",
        /// Outcome of a compaction.
        compact_result: opt String = "compact_result",
        /// Why a compaction failed.
        compact_error: opt String = "compact_error",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
