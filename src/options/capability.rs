//! The CLI's `initialize` reply does not confirm something the options rely
//! on. Fail-closed hooks and MCP servers sent in `initialize` are checked
//! the same way and a caller reacts to both alike (update the CLI or change
//! the options), so they are one error; the variant says which.

/// The session was shut down before any prompt: the CLI's `initialize`
/// reply does not confirm what the options rely on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CapabilityError {
    /// A hook is set to fail closed and the reply lacks
    /// `hook_on_failure_supported: true`: the CLI predates `onFailure` (it
    /// would let a failed hook's action run), or what answered does not run
    /// the host's hooks.
    #[error(
        "the CLI does not honor onFailure on hook matchers, so a hook set to block would not block \
         when it fails; update the CLI or remove OnFailure::Block from the hooks"
    )]
    HookOnFailureUnsupported,
    /// A hook is set to fail closed and the reply says `hooks_applied:
    /// false`: the session was already running and did not register them.
    #[error(
        "the CLI did not register the hooks (the session was already running), so a hook set to \
         block would never run; start a new session or remove OnFailure::Block from the hooks"
    )]
    HooksNotApplied,
    /// MCP servers were sent in `initialize` and the reply has no
    /// `mcp_servers_applied`: the CLI predates reading servers from
    /// `initialize` and started without them.
    #[error(
        "this Claude Code{version} is too old to read MCP servers from the initialize request, \
         so it started without them; update it to 2.1.261 or newer, or deliver the servers on \
         the command line (McpDelivery::Argv), where other local users can read their env and headers"
    )]
    McpServersNotRead {
        /// ` (version X)` when the reply names one, else empty.
        version: String,
    },
}
