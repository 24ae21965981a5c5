//! `system` messages, chosen by `subtype`.

use super::system_events::{
    ApiRetry, CompactBoundary, HookResponse, HookStarted, TaskNotification, TaskProgress,
    TaskStarted, TaskUpdated,
};

tagged_enum! {
    /// A `system` line, by `subtype`. Subtypes this version does not model
    /// (`thinking_tokens`, `informational`, ...) are [`SystemMessage::Other`].
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
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
