//! Inputs of the prompt, notification, MCP elicitation, team and
//! workspace events: `Notification`, `UserPromptSubmit`,
//! `UserPromptExpansion`, `Elicitation`, `ElicitationResult`,
//! `TeammateIdle`, `TaskCreated`, `TaskCompleted`, `WorktreeCreate`,
//! `WorktreeRemove`, `CwdChanged`, `FileChanged`, `DirectoryAdded`,
//! `MessageDisplay`.

use serde_json::Value;

wire_struct! {
    /// `Notification`: the CLI shows a notification.
    #[derive(Default)]
    pub struct NotificationInput = "Notification input", builder NotificationInputBuilder {
        /// The notification text.
        message: opt String = "message",
        /// Its title.
        title: opt String = "title",
        /// Its kind.
        notification_type: opt String = "notification_type",
    }
}

wire_struct! {
    /// `UserPromptSubmit`: a user prompt arrived.
    #[derive(Default)]
    pub struct UserPromptSubmitInput = "UserPromptSubmit input", builder UserPromptSubmitInputBuilder {
        /// The prompt.
        prompt: opt String = "prompt",
        /// Who sent it (`user`, `sdk`, `system`, a wake-up, ...).
        source: opt String = "source",
        /// The session's title.
        session_title: opt String = "session_title",
    }
}

wire_struct! {
    /// `UserPromptExpansion`: a slash command or MCP prompt is expanded.
    #[derive(Default)]
    pub struct UserPromptExpansionInput = "UserPromptExpansion input", builder UserPromptExpansionInputBuilder {
        /// `slash_command` or `mcp_prompt`.
        expansion_type: opt String = "expansion_type",
        /// The command's name.
        command_name: opt String = "command_name",
        /// Its arguments.
        command_args: opt String = "command_args",
        /// Where it was defined.
        command_source: opt String = "command_source",
        /// The expanded prompt.
        prompt: opt String = "prompt",
    }
}

wire_struct! {
    /// `Elicitation`: an MCP server asks the user for input.
    #[derive(Default)]
    pub struct ElicitationInput = "Elicitation input", builder ElicitationInputBuilder {
        /// The asking server.
        mcp_server_name: opt String = "mcp_server_name",
        /// What it asks.
        message: opt String = "message",
        /// `form` or `url`.
        mode: opt String = "mode",
        /// The page to open (`url` mode).
        url: opt String = "url",
        /// The elicitation's id.
        elicitation_id: opt String = "elicitation_id",
        /// JSON Schema of the requested content (`form` mode).
        requested_schema: opt Value = "requested_schema",
    }
}

wire_struct! {
    /// `ElicitationResult`: the user answered an elicitation.
    #[derive(Default)]
    pub struct ElicitationResultInput = "ElicitationResult input", builder ElicitationResultInputBuilder {
        /// The asking server.
        mcp_server_name: opt String = "mcp_server_name",
        /// The elicitation's id.
        elicitation_id: opt String = "elicitation_id",
        /// `form` or `url`.
        mode: opt String = "mode",
        /// `accept`, `decline` or `cancel`.
        action: opt String = "action",
        /// The content given (`accept`).
        content: opt Value = "content",
    }
}

wire_struct! {
    /// `TeammateIdle`: a teammate of an agent team has nothing to do.
    #[derive(Default)]
    pub struct TeammateIdleInput = "TeammateIdle input", builder TeammateIdleInputBuilder {
        /// The teammate.
        teammate_name: opt String = "teammate_name",
        /// Its team.
        team_name: opt String = "team_name",
    }
}

wire_struct! {
    /// `TaskCreated` / `TaskCompleted`: a task list item was created or
    /// completed.
    #[derive(Default)]
    pub struct TaskInput = "task hook input", builder TaskInputBuilder {
        /// The task's id.
        task_id: opt String = "task_id",
        /// Its subject.
        task_subject: opt String = "task_subject",
        /// Its description.
        task_description: opt String = "task_description",
        /// The teammate it belongs to.
        teammate_name: opt String = "teammate_name",
        /// The team.
        team_name: opt String = "team_name",
    }
}

wire_struct! {
    /// `WorktreeCreate`: a git worktree is to be created.
    #[derive(Default)]
    pub struct WorktreeCreateInput = "WorktreeCreate input", builder WorktreeCreateInputBuilder {
        /// The worktree's name.
        name: opt String = "name",
    }
}

wire_struct! {
    /// `WorktreeRemove`: a git worktree is to be removed.
    #[derive(Default)]
    pub struct WorktreeRemoveInput = "WorktreeRemove input", builder WorktreeRemoveInputBuilder {
        /// The worktree's path.
        worktree_path: opt String = "worktree_path",
    }
}

wire_struct! {
    /// `CwdChanged`: the working directory changed.
    #[derive(Default)]
    pub struct CwdChangedInput = "CwdChanged input", builder CwdChangedInputBuilder {
        /// The directory before.
        old_cwd: opt String = "old_cwd",
        /// The directory after.
        new_cwd: opt String = "new_cwd",
    }
}

wire_struct! {
    /// `FileChanged`: a watched file changed.
    #[derive(Default)]
    pub struct FileChangedInput = "FileChanged input", builder FileChangedInputBuilder {
        /// The file.
        file_path: opt String = "file_path",
        /// `change`, `add` or `unlink`.
        event: opt String = "event",
    }
}

wire_struct! {
    /// `DirectoryAdded`: a working directory was added.
    #[derive(Default)]
    pub struct DirectoryAddedInput = "DirectoryAdded input", builder DirectoryAddedInputBuilder {
        /// The directory.
        directory: opt String = "directory",
        /// `slash_command` or `register_repo_root`.
        source: opt String = "source",
    }
}

wire_struct! {
    /// `MessageDisplay`: assistant text is about to be shown.
    #[derive(Default)]
    pub struct MessageDisplayInput = "MessageDisplay input", builder MessageDisplayInputBuilder {
        /// The turn.
        turn_id: opt String = "turn_id",
        /// The message.
        message_id: opt String = "message_id",
        /// The chunk's index in the message.
        index: opt u64 = "index",
        /// Whether this is the last chunk.
        is_final: opt bool = "final",
        /// The text added.
        delta: opt String = "delta",
    }
}
