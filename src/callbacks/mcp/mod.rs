//! In-process MCP servers: tools, resources and prompts written in Rust
//! that the CLI reaches through `mcp_message` control requests.
//!
//! The JSON-RPC layer is hand-written (a handful of methods) rather than
//! built on a general MCP SDK such as `rmcp`: the CLI delivers one message
//! per control request and expects a reply even to notifications, while
//! an SDK server runs its own message loop over a transport; a call must
//! be cancellable both by the control protocol and by MCP
//! `notifications/cancelled`; and the few methods cost less than the
//! dependency tree.
//!
//! Behaviour, following the official SDKs:
//! - `initialize` echoes the client's protocol version when it is one of
//!   [`PROTOCOL_VERSIONS`], else offers the newest; capabilities are
//!   `{"tools": {"listChanged": false}}`, plus `resources` and `prompts`
//!   when the server has any.
//! - Every notification is answered with `{"jsonrpc":"2.0","result":{}}`.
//! - A failing tool, arguments that do not decode, an unknown tool and a
//!   cancelled call are all `isError: true` results the model can read,
//!   never JSON-RPC errors.
//! - Unknown methods get `-32601`, malformed messages `-32600`, bad
//!   `tools/call` params `-32602`.

mod call;
#[cfg(test)]
mod hints_tests;
mod in_flight;
pub mod jsonrpc;
mod prompt;
mod resource;
mod result;
pub(in crate::callbacks) mod route;
mod server;
mod tool;

pub use prompt::{Prompt, PromptHandler, PromptMessage, PromptRole};
pub use resource::{Resource, ResourceContent, ResourceReader};
pub use result::{ToolContent, ToolResult};
pub use server::SdkMcpServer;
pub use tool::{Tool, ToolAnnotations, ToolContext, ToolHandler, TypedToolFn};

/// The MCP protocol versions `initialize` accepts, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The name the model sees for `tool` of `server`: `mcp__<server>__<tool>`.
///
/// ```
/// assert_eq!(claude_agent::callbacks::mcp::mcp_tool_name("calc", "add"), "mcp__calc__add");
/// ```
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}
