//! Which MCP server serves a tool: in `can_use_tool` requests and in the
//! tool hook events.

wire_struct! {
    /// Which MCP server a tool came from (`mcp_server` of `can_use_tool`
    /// and of the tool events), for `mcp__*` tools.
    #[derive(Default)]
    pub struct McpServerProvenance = "mcp server provenance", builder McpServerProvenanceBuilder {
        /// The server's config key (untrusted text unless `source` is `sdk`).
        name: opt String = "name",
        /// Where it was configured: `sdk`, `plugin`, `user`, `project`,
        /// `local`, `dynamic`, `managed`, `enterprise`, `claudeai`, `agent`
        /// (an open set; key trust on this, never on the name).
        source: opt String = "source",
    }
}
