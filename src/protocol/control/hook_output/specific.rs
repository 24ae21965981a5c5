//! `hookSpecificOutput`: what a hook answers for its own event, for every
//! event CLI 2.1.332 takes one from. The CLI rejects an answer naming
//! another event than the input's (with `on_failure: block`, that blocks).

use serde_json::Value;

use super::PermissionDecision;

tagged_enum! {
    /// `hookSpecificOutput`, by `hookEventName`. Events without their own
    /// output (`SessionEnd`, `StopFailure`, `PreCompact`, `PostCompact`,
    /// `TeammateIdle`, `TaskCreated`, `TaskCompleted`, `ConfigChange`,
    /// `WorktreeRemove`, `InstructionsLoaded`, `DirectoryAdded`) and newer
    /// ones go in [`HookSpecificOutput::Other`].
    pub enum HookSpecificOutput = "hook specific output", tag "hookEventName", builder HookSpecificOutputBuilder {
        /// `PreToolUse`: a permission decision and input changes.
        PreToolUse(PreToolUseOutput) = "PreToolUse",
        /// `PostToolUse`: context, or a replaced tool output.
        PostToolUse(PostToolUseOutput) = "PostToolUse",
        /// `PostToolUseFailure`.
        PostToolUseFailure(AdditionalContextOutput) = "PostToolUseFailure",
        /// `PostToolBatch`.
        PostToolBatch(AdditionalContextOutput) = "PostToolBatch",
        /// `Notification`.
        Notification(AdditionalContextOutput) = "Notification",
        /// `UserPromptSubmit`.
        UserPromptSubmit(PromptOutput) = "UserPromptSubmit",
        /// `UserPromptExpansion` (`sessionTitle` does not apply).
        UserPromptExpansion(PromptOutput) = "UserPromptExpansion",
        /// `SessionStart`.
        SessionStart(SessionStartOutput) = "SessionStart",
        /// `Setup`.
        Setup(AdditionalContextOutput) = "Setup",
        /// `Stop`.
        Stop(AdditionalContextOutput) = "Stop",
        /// `SubagentStart`.
        SubagentStart(AdditionalContextOutput) = "SubagentStart",
        /// `SubagentStop`.
        SubagentStop(AdditionalContextOutput) = "SubagentStop",
        /// `PreModelSwitch`: allow, deny or ask about the switch.
        PreModelSwitch(DecisionOutput) = "PreModelSwitch",
        /// `PostModelSwitch`.
        PostModelSwitch(AdditionalContextOutput) = "PostModelSwitch",
        /// `PermissionRequest`: the dialog's decision.
        PermissionRequest(PermissionRequestOutput) = "PermissionRequest",
        /// `PermissionDenied`: whether the model may retry.
        PermissionDenied(PermissionDeniedOutput) = "PermissionDenied",
        /// `Elicitation`: answer in the user's place.
        Elicitation(ElicitationOutput) = "Elicitation",
        /// `ElicitationResult`: change the user's answer.
        ElicitationResult(ElicitationOutput) = "ElicitationResult",
        /// `CwdChanged`: files to watch.
        CwdChanged(WatchPathsOutput) = "CwdChanged",
        /// `FileChanged`: files to watch.
        FileChanged(WatchPathsOutput) = "FileChanged",
        /// `WorktreeCreate`: where the worktree was made.
        WorktreeCreate(WorktreeCreateOutput) = "WorktreeCreate",
        /// `MessageDisplay`: the text to show instead.
        MessageDisplay(MessageDisplayOutput) = "MessageDisplay",
        /// `PreSkillShellCommand`: a permission decision and input changes.
        PreSkillShellCommand(DecisionOutput) = "PreSkillShellCommand",
        @other
        /// An event this version does not model.
        Other { hook_event_name }
    }
}

wire_struct! {
    /// `PreToolUse` hook output.
    #[derive(Default)]
    pub struct PreToolUseOutput = "PreToolUse output", builder PreToolUseOutputBuilder {
        /// allow / deny / ask / defer.
        permission_decision: opt PermissionDecision = "permissionDecision",
        /// Why.
        permission_decision_reason: opt String = "permissionDecisionReason",
        /// Replacement tool input.
        updated_input: opt Value = "updatedInput",
        /// Context added for the model.
        additional_context: opt String = "additionalContext",
    }
}

wire_struct! {
    /// A decision without context: `PreModelSwitch` (allow / deny / ask)
    /// and `PreSkillShellCommand` (which may also replace the input).
    #[derive(Default)]
    pub struct DecisionOutput = "decision output", builder DecisionOutputBuilder {
        /// The decision.
        permission_decision: opt PermissionDecision = "permissionDecision",
        /// Why.
        permission_decision_reason: opt String = "permissionDecisionReason",
        /// Replacement input (`PreSkillShellCommand`).
        updated_input: opt Value = "updatedInput",
    }
}

wire_struct! {
    /// `PostToolUse` hook output.
    #[derive(Default)]
    pub struct PostToolUseOutput = "PostToolUse output", builder PostToolUseOutputBuilder {
        /// Context added for the model.
        additional_context: opt String = "additionalContext",
        /// Context for the permission classifier.
        classifier_context: opt String = "classifierContext",
        /// Replaces what the model sees as the tool's output.
        updated_tool_output: opt Value = "updatedToolOutput",
        /// Replaces an MCP tool's output.
        updated_mcp_tool_output: opt Value = "updatedMCPToolOutput",
    }
}

wire_struct! {
    /// Hook output that can only add context for the model.
    #[derive(Default)]
    pub struct AdditionalContextOutput = "hook output", builder AdditionalContextOutputBuilder {
        /// Context added for the model.
        additional_context: opt String = "additionalContext",
    }
}

wire_struct! {
    /// `UserPromptSubmit` / `UserPromptExpansion` hook output.
    #[derive(Default)]
    pub struct PromptOutput = "prompt hook output", builder PromptOutputBuilder {
        /// Context added for the model.
        additional_context: opt String = "additionalContext",
        /// A title for the session (`UserPromptSubmit`).
        session_title: opt String = "sessionTitle",
        /// Drop the prompt itself, keeping the added context.
        suppress_original_prompt: opt bool = "suppressOriginalPrompt",
    }
}

wire_struct! {
    /// `SessionStart` hook output.
    #[derive(Default)]
    pub struct SessionStartOutput = "SessionStart output", builder SessionStartOutputBuilder {
        /// Context added for the model.
        additional_context: opt String = "additionalContext",
        /// A first user message to send.
        initial_user_message: opt String = "initialUserMessage",
        /// A title for the session.
        session_title: opt String = "sessionTitle",
        /// Files whose change fires `FileChanged`.
        watch_paths: opt Vec<String> = "watchPaths",
        /// Reload the skills.
        reload_skills: opt bool = "reloadSkills",
    }
}

wire_struct! {
    /// `PermissionRequest` hook output.
    #[derive(Default)]
    pub struct PermissionRequestOutput = "PermissionRequest output", builder PermissionRequestOutputBuilder {
        /// `{behavior, updatedInput?, updatedPermissions?, message?, interrupt?}`.
        decision: opt Value = "decision",
    }
}

wire_struct! {
    /// `PermissionDenied` hook output.
    #[derive(Default)]
    pub struct PermissionDeniedOutput = "PermissionDenied output", builder PermissionDeniedOutputBuilder {
        /// Tell the model it may retry the call.
        retry: opt bool = "retry",
    }
}

wire_struct! {
    /// `Elicitation` / `ElicitationResult` hook output.
    #[derive(Default)]
    pub struct ElicitationOutput = "elicitation output", builder ElicitationOutputBuilder {
        /// `accept`, `decline` or `cancel`.
        action: opt String = "action",
        /// The content (`accept`).
        content: opt Value = "content",
    }
}

wire_struct! {
    /// `CwdChanged` / `FileChanged` hook output.
    #[derive(Default)]
    pub struct WatchPathsOutput = "watch paths output", builder WatchPathsOutputBuilder {
        /// Files whose change fires `FileChanged`.
        watch_paths: opt Vec<String> = "watchPaths",
    }
}

wire_struct! {
    /// `WorktreeCreate` hook output.
    #[derive(Default)]
    pub struct WorktreeCreateOutput = "WorktreeCreate output", builder WorktreeCreateOutputBuilder {
        /// Where the worktree was created.
        worktree_path: opt String = "worktreePath",
    }
}

wire_struct! {
    /// `MessageDisplay` hook output.
    #[derive(Default)]
    pub struct MessageDisplayOutput = "MessageDisplay output", builder MessageDisplayOutputBuilder {
        /// The text to show in place of the delta.
        display_content: opt String = "displayContent",
    }
}
