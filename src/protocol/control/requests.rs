//! The small SDK -> CLI control requests.

wire_struct! {
    /// A request with no members of its own (`interrupt`, `mcp_status`,
    /// `get_context_usage`).
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
