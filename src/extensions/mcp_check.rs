//! The MCP delivery check: a session does not run without the MCP servers
//! sent in `initialize` (the CLI must say it applied them).

use super::{Extension, Started};
use crate::Result;

/// Checks the `initialize` reply against the servers sent.
pub(crate) struct McpCheckExtension;

impl Extension for McpCheckExtension {
    fn name(&self) -> &str {
        "mcp_check"
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        Ok(started
            .options()
            .check_mcp_delivery(started.server_info_raw())?)
    }
}
