//! `claim_session`: bind a spare CLI (started with `--await-claim`, parked
//! before its session was known) to its session, as the TypeScript SDK's
//! `SpareProcess.claim` does.

use serde_json::{Map, Value};

wire_struct! {
    /// `claim_session`: the session a parked spare now serves.
    #[derive(Default)]
    pub struct ClaimSession = "control_request/claim_session", builder ClaimSessionBuilder {
        /// The session's working directory (tilde-expanded and
        /// canonicalized, treated as a spawn cwd: no trust prompt).
        cwd: opt String = "cwd",
        /// Environment additions; only the CLI's claim allow-list
        /// (`CLAUDE_CODE_OAUTH_TOKEN`, `CLAUDE_CODE_SESSION_ACCESS_TOKEN`,
        /// `CLAUDE_CODE_HOST_SESSION_ID`) is accepted.
        env: opt Map<String, Value> = "env",
        /// Extra directories, as `--add-dir`.
        additional_directories: opt Vec<String> = "additional_directories",
        /// The permission mode, as `--permission-mode`; one the process
        /// cannot take fails the claim.
        permission_mode: opt String = "permission_mode",
        /// Appended to the system prompt.
        append_system_prompt: opt String = "append_system_prompt",
        /// Subagent definitions, as `initialize.agents`.
        agents: opt Map<String, Value> = "agents",
        /// The session's title.
        title: opt String = "title",
        /// The in-process MCP servers registered at the start.
        sdk_mcp_servers: opt Vec<String> = "sdk_mcp_servers",
        /// Ask for the claimed session's `initialize`-shaped payload.
        include_initialize: opt bool = "include_initialize",
        /// The host's trust attestation for the claimed directory,
        /// `{accepted: true, directory}`, as `initialize.workspaceTrust`.
        workspace_trust: opt Value = "workspace_trust",
    }
}

wire_struct! {
    /// The reply to `claim_session`.
    #[derive(Default)]
    pub struct ClaimReply = "control_response/claim_session", builder ClaimReplyBuilder {
        /// `ok` when the session runs.
        status: opt String = "status",
        /// The canonical working directory of the session.
        cwd: opt String = "cwd",
        /// The claimed session's id.
        session_id: opt String = "session_id",
        /// How long the spare was parked, in milliseconds.
        parked_ms: opt u64 = "parked_ms",
        /// Whether the in-process MCP handshakes had completed.
        sdk_mcp_settled: opt bool = "sdk_mcp_settled",
        /// The claimed session's `initialize`-shaped payload (commands,
        /// agents, models, ...), when asked for.
        initialize: opt Map<String, Value> = "initialize",
        /// Whether the claim's `workspace_trust` was persisted as a trust
        /// grant; absent when none was sent.
        workspace_trust_recorded: opt bool = "workspace_trust_recorded",
    }
}
