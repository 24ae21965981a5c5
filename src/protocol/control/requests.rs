//! The small SDK -> CLI control requests.

use serde_json::{Map, Value};

wire_struct! {
    /// A request with no members of its own (`mcp_status`, `reload_skills`,
    /// `get_settings`).
    #[derive(Default)]
    pub struct EmptyRequest = "control request", builder EmptyRequestBuilder {}
}

wire_struct! {
    /// `set_permission_mode`.
    #[derive(Default)]
    pub struct SetPermissionMode = "control_request/set_permission_mode", builder SetPermissionModeBuilder {
        /// `default`, `acceptEdits`, `plan`, `bypassPermissions`, `dontAsk`, `auto`.
        mode: opt String = "mode",
    }
}

wire_struct! {
    /// `set_model`.
    #[derive(Default)]
    pub struct SetModel = "control_request/set_model", builder SetModelBuilder {
        /// The model, or null for the default.
        model: opt String = "model",
    }
}

wire_struct! {
    /// `rewind_files`.
    #[derive(Default)]
    pub struct RewindFiles = "control_request/rewind_files", builder RewindFilesBuilder {
        /// The user message whose checkpoint to restore.
        user_message_id: opt String = "user_message_id",
        /// Only report what a rewind would change.
        dry_run: opt bool = "dry_run",
    }
}

wire_struct! {
    /// `mcp_reconnect`.
    #[derive(Default)]
    pub struct McpReconnect = "control_request/mcp_reconnect", builder McpReconnectBuilder {
        /// The server to reconnect.
        server_name: opt String = "serverName",
    }
}

wire_struct! {
    /// `mcp_toggle`.
    #[derive(Default)]
    pub struct McpToggle = "control_request/mcp_toggle", builder McpToggleBuilder {
        /// The server to toggle.
        server_name: opt String = "serverName",
        /// Whether it should be enabled.
        enabled: opt bool = "enabled",
    }
}

wire_struct! {
    /// `stop_task`.
    #[derive(Default)]
    pub struct StopTask = "control_request/stop_task", builder StopTaskBuilder {
        /// The task to stop.
        task_id: opt String = "task_id",
    }
}

wire_struct! {
    /// `interrupt`.
    #[derive(Default)]
    pub struct Interrupt = "control_request/interrupt", builder InterruptBuilder {
        /// Also cancel the queued user messages (capability
        /// `interrupt_cancel_queued_v1`); they are listed as `cancelled`.
        cancel_queued: opt bool = "cancel_queued",
    }
}

wire_struct! {
    /// `get_context_usage`.
    #[derive(Default)]
    pub struct GetContextUsage = "control_request/get_context_usage", builder GetContextUsageBuilder {
        /// `full` (the default: every category counted) or `summary`
        /// (estimates from the last response, no token-count calls).
        detail: opt String = "detail",
    }
}

wire_struct! {
    /// `set_max_thinking_tokens`. An explicit null `max_thinking_tokens`
    /// resets to the session default; an absent one leaves it.
    #[derive(Default)]
    pub struct SetMaxThinkingTokens = "control_request/set_max_thinking_tokens", builder SetMaxThinkingTokensBuilder {
        /// The thinking budget.
        max_thinking_tokens: opt u64 = "max_thinking_tokens",
        /// `summarized`, `omitted` or `highlights`; null clears the override.
        thinking_display: opt String = "thinking_display",
    }
}

impl SetMaxThinkingTokens {
    /// Sets the budget, or (`None`) resets it to the session default.
    pub fn tokens(max_thinking_tokens: Option<u64>) -> Self {
        let mut r = Self {
            max_thinking_tokens,
            ..Self::default()
        };
        if max_thinking_tokens.is_none() {
            r.mark_null("max_thinking_tokens");
        }
        r
    }
}

wire_struct! {
    /// `set_mcp_permission_mode_override`: how one MCP server's tool calls
    /// are asked about, whatever the session's permission mode.
    #[derive(Default)]
    pub struct SetMcpPermissionModeOverride = "control_request/set_mcp_permission_mode_override", builder SetMcpPermissionModeOverrideBuilder {
        /// The server, as registered.
        server_name: opt String = "serverName",
        /// `default` (ask for every call) or `auto` (the auto-mode
        /// classifier decides); null clears the override.
        mode: opt String = "mode",
    }
}

wire_struct! {
    /// `apply_flag_settings`: merge settings into the session's flag layer.
    #[derive(Default)]
    pub struct ApplyFlagSettings = "control_request/apply_flag_settings", builder ApplyFlagSettingsBuilder {
        /// Settings by name; a null value removes the key from the layer.
        settings: opt Map<String, Value> = "settings",
    }
}

wire_struct! {
    /// `update_settings`: write settings through the CLI's own writer.
    #[derive(Default)]
    pub struct UpdateSettings = "control_request/update_settings", builder UpdateSettingsBuilder {
        /// `localSettings` or `userSettings`.
        source: opt String = "source",
        /// Settings by name (string values).
        settings: opt Map<String, Value> = "settings",
    }
}

wire_struct! {
    /// `reload_plugins`.
    #[derive(Default)]
    pub struct ReloadPlugins = "control_request/reload_plugins", builder ReloadPluginsBuilder {
        /// Do not apply a reload that would change the cached tool list;
        /// the reply says `held` and what it would change.
        hold_on_cache_impact: opt bool = "hold_on_cache_impact",
        /// Refuse (error `reload_plugins_busy`) while a turn runs.
        refuse_if_busy: opt bool = "refuse_if_busy",
        /// Plugins to load as well (`[{type: "local", path}]`).
        add_plugins: opt Vec<Value> = "add_plugins",
    }
}

wire_struct! {
    /// `background_tasks`: move running foreground tasks to the background.
    #[derive(Default)]
    pub struct BackgroundTasks = "control_request/background_tasks", builder BackgroundTasksBuilder {
        /// Only the task this tool call started; absent: all of them.
        tool_use_id: opt String = "tool_use_id",
    }
}
