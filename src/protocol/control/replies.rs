//! Typed success payloads of the SDK -> CLI control requests. Decode them
//! from [`ControlSuccess::response`](crate::protocol::ControlSuccess::response);
//! [`Client`](crate::client::Client)'s control methods return them.

use serde_json::Value;

use super::initialize::{AgentInfo, SlashCommand};
use crate::options::PermissionMode;
use crate::protocol::PluginInfo;

wire_struct! {
    /// The reply to `interrupt` (capability `interrupt_receipt_v1`; an older
    /// CLI answers with nothing, leaving both lists `None`).
    #[derive(Default)]
    pub struct InterruptReceipt = "control_response/interrupt", builder InterruptReceiptBuilder {
        /// Uuids of queued user messages that survive the interrupt and will
        /// still run.
        still_queued: opt Vec<String> = "still_queued",
        /// Uuids the interrupt cancelled (with `cancel_queued`).
        cancelled: opt Vec<String> = "cancelled",
    }
}

wire_struct! {
    /// The reply to `set_permission_mode`.
    #[derive(Default)]
    pub struct PermissionModeReply = "control_response/set_permission_mode", builder PermissionModeReplyBuilder {
        /// The mode now in effect, which can differ from the one asked for.
        mode: opt String = "mode",
    }
}

impl PermissionModeReply {
    /// The mode now in effect, when the CLI named one this version knows
    /// (`manual` is the CLI's older name for `default`).
    pub fn effective_mode(&self) -> Option<PermissionMode> {
        match self.mode.as_deref()? {
            "manual" => Some(PermissionMode::Default),
            name => PermissionMode::from_name(name),
        }
    }
}

wire_struct! {
    /// The reply to `rewind_files` (with or without `dry_run`).
    #[derive(Default)]
    pub struct RewindFilesResult = "control_response/rewind_files", builder RewindFilesResultBuilder {
        /// Whether the files can be (or were) rewound.
        can_rewind: opt bool = "canRewind",
        /// Why not.
        error: opt String = "error",
        /// Files changed (or that would change).
        files_changed: opt Vec<String> = "filesChanged",
        /// Lines inserted.
        insertions: opt u64 = "insertions",
        /// Lines deleted.
        deletions: opt u64 = "deletions",
        /// Symbolic links skipped.
        skipped_links: opt u64 = "skippedLinks",
    }
}

wire_struct! {
    /// The reply to `mcp_status`.
    #[derive(Default)]
    pub struct McpStatusReply = "control_response/mcp_status", builder McpStatusReplyBuilder {
        /// Every MCP server of the session.
        mcp_servers: opt Vec<McpServerInfo> = "mcpServers",
    }
}

wire_struct! {
    /// The reply to `mcp_set_servers`: what changed, and the servers that
    /// could not be added with why.
    #[derive(Default)]
    pub struct McpSetServersResult = "control_response/mcp_set_servers", builder McpSetServersResultBuilder {
        /// Names of the servers added.
        added: opt Vec<String> = "added",
        /// Names of the servers removed.
        removed: opt Vec<String> = "removed",
        /// Server name -> why it could not be added or connected.
        errors: opt std::collections::BTreeMap<String, String> = "errors",
    }
}

wire_struct! {
    /// One MCP server in [`McpStatusReply`] and [`ReloadPluginsReply`].
    #[derive(Default)]
    pub struct McpServerInfo = "mcp server", builder McpServerInfoBuilder {
        /// Server name.
        name: opt String = "name",
        /// `connected`, `failed`, `needs-auth`, `pending` or `disabled`.
        status: opt String = "status",
        /// `{name, version}` the server reported.
        server_info: opt Value = "serverInfo",
        /// Why it failed.
        error: opt String = "error",
        /// Its configuration.
        config: opt Value = "config",
        /// Where it is configured (`project`, `user`, `sdk`, ...).
        scope: opt String = "scope",
        /// What provided it (a plugin, ...).
        source: opt String = "source",
        /// Its tools: `[{name, description?, annotations?}]`.
        tools: opt Vec<Value> = "tools",
    }
}

wire_struct! {
    /// The reply to `reload_plugins`: the session's components afterwards.
    #[derive(Default)]
    pub struct ReloadPluginsReply = "control_response/reload_plugins", builder ReloadPluginsReplyBuilder {
        /// Slash commands.
        commands: opt Vec<SlashCommand> = "commands",
        /// Agents.
        agents: opt Vec<AgentInfo> = "agents",
        /// Plugins loaded.
        plugins: opt Vec<PluginInfo> = "plugins",
        /// MCP servers.
        mcp_servers: opt Vec<McpServerInfo> = "mcpServers",
        /// How many plugins failed to load.
        error_count: opt u64 = "error_count",
        /// True: the reload was held back (see `cache_impact`).
        held: opt bool = "held",
        /// What a held reload would change in the tool list.
        cache_impact: opt Value = "cache_impact",
    }
}

wire_struct! {
    /// The reply to `reload_skills`.
    #[derive(Default)]
    pub struct ReloadSkillsReply = "control_response/reload_skills", builder ReloadSkillsReplyBuilder {
        /// The skills, as slash commands.
        skills: opt Vec<SlashCommand> = "skills",
    }
}

wire_struct! {
    /// The reply to `background_tasks`.
    #[derive(Default)]
    pub struct BackgroundTasksReply = "control_response/background_tasks", builder BackgroundTasksReplyBuilder {
        /// Whether anything went to the background (absent: yes).
        backgrounded: opt bool = "backgrounded",
    }
}

wire_struct! {
    /// The reply to `set_mcp_permission_mode_override`.
    #[derive(Default)]
    pub struct McpPermissionModeOverrideReply = "control_response/set_mcp_permission_mode_override", builder McpPermissionModeOverrideReplyBuilder {
        /// Set when no known MCP server has that name (the override is
        /// stored anyway and applies once one connects).
        warning: opt String = "warning",
    }
}
