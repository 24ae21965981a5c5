//! The notice-like `system` subtypes: things the CLI tells the host about
//! (information, notifications, denials, installs, changed lists).

use serde_json::Value;

use super::SlashCommand;

wire_struct! {
    /// `system/informational`: a line of information for the user.
    #[derive(Default)]
    pub struct Informational = "system/informational", builder InformationalBuilder {
        /// The text.
        content: opt String = "content",
        /// `info`, `notice`, `suggestion` or `warning`.
        level: opt String = "level",
        /// The tool call it is about, if any.
        tool_use_id: opt String = "tool_use_id",
        /// Whether the turn stops after it.
        prevent_continuation: opt bool = "prevent_continuation",
        /// A machine-readable tag.
        tag: opt String = "tag",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/notification`: a notification for the host to show.
    #[derive(Default)]
    pub struct Notification = "system/notification", builder NotificationBuilder {
        /// Identifies the notification (a later one with the same key replaces it).
        key: opt String = "key",
        /// The text.
        text: opt String = "text",
        /// `low`, `medium`, `high` or `immediate`.
        priority: opt String = "priority",
        /// A display color.
        color: opt String = "color",
        /// How long to show it.
        timeout_ms: opt u64 = "timeout_ms",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/permission_denied`: a tool call was denied.
    #[derive(Default)]
    pub struct PermissionDenied = "system/permission_denied", builder PermissionDeniedBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// The subagent that made the call, if any.
        agent_id: opt String = "agent_id",
        /// The kind of reason (`rule`, `mode`, `hook`, ...).
        decision_reason_type: opt String = "decision_reason_type",
        /// The reason.
        decision_reason: opt String = "decision_reason",
        /// The message given to the model.
        message: opt String = "message",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/local_command_output`: output of a local slash command.
    #[derive(Default)]
    pub struct LocalCommandOutput = "system/local_command_output", builder LocalCommandOutputBuilder {
        /// The output text.
        content: opt String = "content",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/plugin_install`: progress installing a plugin.
    #[derive(Default)]
    pub struct PluginInstall = "system/plugin_install", builder PluginInstallBuilder {
        /// `started`, `installed`, `failed` or `completed`.
        status: opt String = "status",
        /// The plugin's name.
        name: opt String = "name",
        /// What failed.
        error: opt String = "error",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/worker_shutting_down`: the CLI is about to exit.
    #[derive(Default)]
    pub struct WorkerShuttingDown = "system/worker_shutting_down", builder WorkerShuttingDownBuilder {
        /// Why.
        reason: opt String = "reason",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/session_writes_lost`: the disk is full; writes were lost.
    #[derive(Default)]
    pub struct SessionWritesLost = "system/session_writes_lost", builder SessionWritesLostBuilder {
        /// `ENOSPC` or `EDQUOT`.
        error_code: opt String = "error_code",
        /// What was lost: `transcript`, `global_config`.
        lost: opt Vec<String> = "lost",
        /// Sessions whose transcripts lost writes.
        transcript_session_ids: opt Vec<String> = "transcript_session_ids",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/elicitation_complete`: an MCP elicitation was answered.
    #[derive(Default)]
    pub struct ElicitationComplete = "system/elicitation_complete", builder ElicitationCompleteBuilder {
        /// The MCP server that asked.
        mcp_server_name: opt String = "mcp_server_name",
        /// The elicitation's id.
        elicitation_id: opt String = "elicitation_id",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/memory_recall`: memories were recalled into the context.
    #[derive(Default)]
    pub struct MemoryRecall = "system/memory_recall", builder MemoryRecallBuilder {
        /// `select` or `synthesize`.
        mode: opt String = "mode",
        /// `[{path, scope, content?}]`.
        memories: opt Vec<Value> = "memories",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/commands_changed`: the slash commands changed.
    #[derive(Default)]
    pub struct CommandsChanged = "system/commands_changed", builder CommandsChangedBuilder {
        /// The commands now available.
        commands: opt Vec<SlashCommand> = "commands",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/files_persisted`: files were uploaded to the Files API.
    #[derive(Default)]
    pub struct FilesPersisted = "system/files_persisted", builder FilesPersistedBuilder {
        /// `[{filename, file_id}]`.
        files: opt Vec<Value> = "files",
        /// `[{filename, error}]`.
        failed: opt Vec<Value> = "failed",
        /// When (ISO 8601).
        processed_at: opt String = "processed_at",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `system/background_tasks_changed`: the set of background tasks.
    #[derive(Default)]
    pub struct BackgroundTasksChanged = "system/background_tasks_changed", builder BackgroundTasksChangedBuilder {
        /// `[{task_id, task_type, description, ...}]`.
        tasks: opt Vec<Value> = "tasks",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
