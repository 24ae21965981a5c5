//! Inputs of the session and turn lifecycle events: `SessionStart`,
//! `SessionEnd`, `Setup`, `Stop`, `StopFailure`, `SubagentStart`,
//! `SubagentStop`, `PreCompact`, `PostCompact`, `PreModelSwitch`,
//! `PostModelSwitch`, `ConfigChange`, `InstructionsLoaded`.

use serde_json::{Number, Value};

string_enum! {
    /// Why a session started (`SessionStart.source`).
    pub enum SessionStartSource {
        /// A new session.
        Startup = "startup",
        /// A resumed session.
        Resume = "resume",
        /// After `/clear`.
        Clear = "clear",
        /// After a compaction.
        Compact = "compact",
        /// A forked session.
        Fork = "fork",
    }
}

string_enum! {
    /// Why a session ended (`SessionEnd.reason`).
    pub enum SessionEndReason {
        /// `/clear`.
        Clear = "clear",
        /// Another session was resumed.
        Resume = "resume",
        /// The user logged out.
        Logout = "logout",
        /// The prompt input was closed (e.g. stdin ended).
        PromptInputExit = "prompt_input_exit",
        /// Any other reason (the CLI's own catch-all, `other`).
        Unspecified = "other",
    }
}

wire_struct! {
    /// `SessionStart`: a session started, resumed, was cleared or compacted.
    #[derive(Default)]
    pub struct SessionStartInput = "SessionStart input", builder SessionStartInputBuilder {
        /// Why it started.
        source: opt SessionStartSource = "source",
        /// The agent of a `--agent` session.
        agent_type: opt String = "agent_type",
        /// The model in use.
        model: opt String = "model",
        /// The session's title.
        session_title: opt String = "session_title",
        /// Seconds since the last response (resumed sessions).
        seconds_since_last_response: opt Number = "seconds_since_last_response",
        /// Tokens already in context.
        context_tokens: opt u64 = "context_tokens",
        /// Whether the prompt cache has probably expired.
        prompt_cache_likely_expired: opt bool = "prompt_cache_likely_expired",
        /// Estimated cost of rewriting the cache, in USD.
        estimated_cache_write_usd: opt Number = "estimated_cache_write_usd",
    }
}

wire_struct! {
    /// `SessionEnd`: the session is ending.
    #[derive(Default)]
    pub struct SessionEndInput = "SessionEnd input", builder SessionEndInputBuilder {
        /// Why it ends.
        reason: opt SessionEndReason = "reason",
    }
}

wire_struct! {
    /// `Setup`: `--init` or maintenance ran.
    #[derive(Default)]
    pub struct SetupInput = "Setup input", builder SetupInputBuilder {
        /// `init` or `maintenance`.
        trigger: opt String = "trigger",
    }
}

wire_struct! {
    /// `Stop`: the main agent is about to stop.
    #[derive(Default)]
    pub struct StopInput = "Stop input", builder StopInputBuilder {
        /// A stop hook already continued the conversation once.
        stop_hook_active: opt bool = "stop_hook_active",
        /// The text of the last assistant message.
        last_assistant_message: opt String = "last_assistant_message",
        /// Background tasks still running.
        background_tasks: opt Vec<Value> = "background_tasks",
        /// Scheduled prompts of the session.
        session_crons: opt Vec<Value> = "session_crons",
    }
}

wire_struct! {
    /// `SubagentStop`: a subagent is about to stop.
    #[derive(Default)]
    pub struct SubagentStopInput = "SubagentStop input", builder SubagentStopInputBuilder {
        /// A stop hook already continued the subagent once.
        stop_hook_active: opt bool = "stop_hook_active",
        /// The subagent's id.
        agent_id: opt String = "agent_id",
        /// The subagent's transcript.
        agent_transcript_path: opt String = "agent_transcript_path",
        /// The subagent's type.
        agent_type: opt String = "agent_type",
        /// The text of the subagent's last message.
        last_assistant_message: opt String = "last_assistant_message",
        /// Background tasks still running.
        background_tasks: opt Vec<Value> = "background_tasks",
        /// Scheduled prompts of the session.
        session_crons: opt Vec<Value> = "session_crons",
    }
}

wire_struct! {
    /// `StopFailure`: the turn ended on an API error.
    #[derive(Default)]
    pub struct StopFailureInput = "StopFailure input", builder StopFailureInputBuilder {
        /// The error kind (`rate_limit`, `server_error`, ...).
        error: opt String = "error",
        /// Details of the error.
        error_details: opt String = "error_details",
        /// The text of the last assistant message.
        last_assistant_message: opt String = "last_assistant_message",
    }
}

wire_struct! {
    /// `SubagentStart`: a subagent started.
    #[derive(Default)]
    pub struct SubagentStartInput = "SubagentStart input", builder SubagentStartInputBuilder {
        /// The subagent's id.
        agent_id: opt String = "agent_id",
        /// The subagent's type.
        agent_type: opt String = "agent_type",
    }
}

wire_struct! {
    /// `PreCompact`: compaction is about to run.
    #[derive(Default)]
    pub struct PreCompactInput = "PreCompact input", builder PreCompactInputBuilder {
        /// `manual` or `auto`.
        trigger: opt String = "trigger",
        /// Instructions given to `/compact` (`null` when none).
        custom_instructions: opt String = "custom_instructions",
    }
}

wire_struct! {
    /// `PostCompact`: compaction finished.
    #[derive(Default)]
    pub struct PostCompactInput = "PostCompact input", builder PostCompactInputBuilder {
        /// `manual` or `auto`.
        trigger: opt String = "trigger",
        /// The summary that replaced the conversation.
        compact_summary: opt String = "compact_summary",
    }
}

wire_struct! {
    /// `PreModelSwitch` / `PostModelSwitch`: the model is about to change,
    /// or changed.
    #[derive(Default)]
    pub struct ModelSwitchInput = "model switch input", builder ModelSwitchInputBuilder {
        /// The model before.
        from_model: opt String = "from_model",
        /// The model after.
        to_model: opt String = "to_model",
        /// The model as requested (an alias, or `null`).
        requested_model: opt String = "requested_model",
        /// What asked for the switch (`command`, `picker`, `sdk`, ...).
        source: opt String = "source",
        /// Tokens in context.
        context_tokens: opt u64 = "context_tokens",
        /// Whether the prompt cache is warm.
        prompt_cache_warm: opt bool = "prompt_cache_warm",
        /// The cache's TTL (`5m` or `1h`).
        cache_ttl: opt String = "cache_ttl",
        /// Estimated cost of rewriting the cache, in USD.
        estimated_cache_write_usd: opt Number = "estimated_cache_write_usd",
        /// Where the price came from.
        pricing: opt String = "pricing",
    }
}

wire_struct! {
    /// `ConfigChange`: a settings file or the skills changed.
    #[derive(Default)]
    pub struct ConfigChangeInput = "ConfigChange input", builder ConfigChangeInputBuilder {
        /// Which settings (`user_settings`, `project_settings`, ...).
        source: opt String = "source",
        /// The file that changed.
        file_path: opt String = "file_path",
    }
}

wire_struct! {
    /// `InstructionsLoaded`: a CLAUDE.md-style file was loaded.
    #[derive(Default)]
    pub struct InstructionsLoadedInput = "InstructionsLoaded input", builder InstructionsLoadedInputBuilder {
        /// The file.
        file_path: opt String = "file_path",
        /// `User`, `Project`, `Local` or `Managed`.
        memory_type: opt String = "memory_type",
        /// Why it was loaded (`session_start`, `include`, ...).
        load_reason: opt String = "load_reason",
        /// The globs that matched.
        globs: opt Vec<String> = "globs",
        /// The file whose access triggered the load.
        trigger_file_path: opt String = "trigger_file_path",
        /// The file that included this one.
        parent_file_path: opt String = "parent_file_path",
    }
}
