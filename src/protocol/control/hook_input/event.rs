//! [`HookEvent`]: the per-event part of a hook input, chosen by
//! `hook_event_name`, for every event CLI 2.1.332 defines.

use super::session::{
    ConfigChangeInput, InstructionsLoadedInput, ModelSwitchInput, PostCompactInput,
    PreCompactInput, SessionEndInput, SessionStartInput, SetupInput, StopFailureInput, StopInput,
    SubagentStartInput, SubagentStopInput,
};
use super::tool::{
    PermissionDeniedInput, PermissionRequestInput, PostToolBatchInput, PostToolUseFailureInput,
    PostToolUseInput, PreSkillShellCommandInput, PreToolUseInput,
};
use super::workspace::{
    CwdChangedInput, DirectoryAddedInput, ElicitationInput, ElicitationResultInput,
    FileChangedInput, MessageDisplayInput, NotificationInput, TaskInput, TeammateIdleInput,
    UserPromptExpansionInput, UserPromptSubmitInput, WorktreeCreateInput, WorktreeRemoveInput,
};

tagged_enum! {
    /// The per-event part of a hook input, by `hook_event_name`. An event
    /// this version does not know is kept whole in [`HookEvent::Other`].
    pub enum HookEvent = "hook input", tag "hook_event_name", builder HookEventBuilder {
        /// Before a tool runs.
        PreToolUse(PreToolUseInput) = "PreToolUse",
        /// After a tool succeeded.
        PostToolUse(PostToolUseInput) = "PostToolUse",
        /// After a tool failed.
        PostToolUseFailure(PostToolUseFailureInput) = "PostToolUseFailure",
        /// After every call of one assistant message finished.
        PostToolBatch(PostToolBatchInput) = "PostToolBatch",
        /// The CLI shows a notification.
        Notification(NotificationInput) = "Notification",
        /// A user prompt arrived.
        UserPromptSubmit(UserPromptSubmitInput) = "UserPromptSubmit",
        /// A slash command or MCP prompt is expanded.
        UserPromptExpansion(UserPromptExpansionInput) = "UserPromptExpansion",
        /// A session started, resumed, was cleared or compacted.
        SessionStart(SessionStartInput) = "SessionStart",
        /// The session is ending.
        SessionEnd(SessionEndInput) = "SessionEnd",
        /// The main agent is about to stop.
        Stop(StopInput) = "Stop",
        /// The turn ended on an API error.
        StopFailure(StopFailureInput) = "StopFailure",
        /// A subagent started.
        SubagentStart(SubagentStartInput) = "SubagentStart",
        /// A subagent is about to stop.
        SubagentStop(SubagentStopInput) = "SubagentStop",
        /// Compaction is about to run.
        PreCompact(PreCompactInput) = "PreCompact",
        /// Compaction finished.
        PostCompact(PostCompactInput) = "PostCompact",
        /// The model is about to change.
        PreModelSwitch(ModelSwitchInput) = "PreModelSwitch",
        /// The model changed.
        PostModelSwitch(ModelSwitchInput) = "PostModelSwitch",
        /// A permission dialog is about to show.
        PermissionRequest(PermissionRequestInput) = "PermissionRequest",
        /// A tool call was refused.
        PermissionDenied(PermissionDeniedInput) = "PermissionDenied",
        /// `--init` or maintenance ran.
        Setup(SetupInput) = "Setup",
        /// A teammate has nothing to do.
        TeammateIdle(TeammateIdleInput) = "TeammateIdle",
        /// A task was created.
        TaskCreated(TaskInput) = "TaskCreated",
        /// A task was completed.
        TaskCompleted(TaskInput) = "TaskCompleted",
        /// An MCP server asks the user for input.
        Elicitation(ElicitationInput) = "Elicitation",
        /// The user answered an elicitation.
        ElicitationResult(ElicitationResultInput) = "ElicitationResult",
        /// A settings file or the skills changed.
        ConfigChange(ConfigChangeInput) = "ConfigChange",
        /// A git worktree is to be created.
        WorktreeCreate(WorktreeCreateInput) = "WorktreeCreate",
        /// A git worktree is to be removed.
        WorktreeRemove(WorktreeRemoveInput) = "WorktreeRemove",
        /// An instructions file was loaded.
        InstructionsLoaded(InstructionsLoadedInput) = "InstructionsLoaded",
        /// The working directory changed.
        CwdChanged(CwdChangedInput) = "CwdChanged",
        /// A watched file changed.
        FileChanged(FileChangedInput) = "FileChanged",
        /// A working directory was added.
        DirectoryAdded(DirectoryAddedInput) = "DirectoryAdded",
        /// Assistant text is about to be shown.
        MessageDisplay(MessageDisplayInput) = "MessageDisplay",
        /// A skill's shell command is about to run.
        PreSkillShellCommand(PreSkillShellCommandInput) = "PreSkillShellCommand",
        @other
        /// An event this version does not model.
        Other { hook_event_name }
    }
}
