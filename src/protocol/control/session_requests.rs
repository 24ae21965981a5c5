//! SDK -> CLI control requests the TypeScript SDK sends and the Python SDK
//! does not: session queries (usage, files, task output, hook and rule
//! listings) and small session edits (title, read state, queued messages).

wire_struct! {
    /// `seed_read_state`: record that a file was read at `mtime`, so an
    /// `Edit` after the `Read` left the context is still allowed (skipped
    /// by the CLI when the file changed since).
    #[derive(Default)]
    pub struct SeedReadState = "control_request/seed_read_state", builder SeedReadStateBuilder {
        /// The file (relative to the cwd or absolute).
        path: opt String = "path",
        /// Its modification time when it was read, in whole milliseconds.
        mtime: opt u64 = "mtime",
    }
}

wire_struct! {
    /// `cancel_async_message`: drop a queued user message before it runs.
    #[derive(Default)]
    pub struct CancelAsyncMessage = "control_request/cancel_async_message", builder CancelAsyncMessageBuilder {
        /// The `uuid` the message was sent with.
        message_uuid: opt String = "message_uuid",
    }
}

wire_struct! {
    /// `rename_session`: set the session's title.
    #[derive(Default)]
    pub struct RenameSession = "control_request/rename_session", builder RenameSessionBuilder {
        /// The new title.
        title: opt String = "title",
        /// `host` (the user renamed it in the hosting application, which the
        /// CLI counts as a user rename) or `remote` (the CLI's default).
        source: opt String = "source",
        /// Refuse when the process has moved on to another session.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// `get_usage`: the `/usage` data (experimental in the CLI).
    #[derive(Default)]
    pub struct GetUsage = "control_request/get_usage", builder GetUsageBuilder {
        /// Skip the scan of recent transcripts (`behaviors` comes back null).
        skip_behaviors: opt bool = "skip_behaviors",
    }
}

wire_struct! {
    /// `read_file`: read a file through the CLI, under the `Read` tool's
    /// permission rules.
    #[derive(Default)]
    pub struct ReadFile = "control_request/read_file", builder ReadFileBuilder {
        /// The file (relative to the cwd or absolute).
        path: opt String = "path",
        /// Read at most this many bytes (the CLI's default is 1 MB).
        max_bytes: opt u64 = "max_bytes",
        /// `utf-8` (the default, lossy for binary) or `base64`.
        encoding: opt String = "encoding",
    }
}

wire_struct! {
    /// `mcp_read_resource`: read a `ui://` resource from an MCP server the
    /// CLI connected to itself (not an in-process one).
    #[derive(Default)]
    pub struct McpReadResource = "control_request/mcp_read_resource", builder McpReadResourceBuilder {
        /// The server, as `mcp_status` names it.
        server_name: opt String = "serverName",
        /// The resource (`ui://` only).
        uri: opt String = "uri",
    }
}

wire_struct! {
    /// `get_task_output`: the last 8 KiB of a background shell or monitor
    /// task's output.
    #[derive(Default)]
    pub struct GetTaskOutput = "control_request/get_task_output", builder GetTaskOutputBuilder {
        /// The task, from `task_started` or `background_tasks_changed`.
        task_id: opt String = "task_id",
    }
}

wire_struct! {
    /// `set_cwd` (marked internal by the CLI): move the session to another
    /// working directory, as `/cd` does. Before the first turn the session
    /// starts over as if launched there; after one, the move is appended as
    /// a notice. Refused while a turn runs.
    #[derive(Default)]
    pub struct SetCwd = "control_request/set_cwd", builder SetCwdBuilder {
        /// The directory (tilde-expanded and canonicalized by the CLI).
        path: opt String = "path",
        /// The user accepted a trust dialog for `trusted_directory`.
        trust_accepted: opt bool = "trust_accepted",
        /// The `directory` of the `needs_trust` reply being answered.
        trusted_directory: opt String = "trusted_directory",
    }
}
