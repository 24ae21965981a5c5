//! The public SDK: [`query`] for one-shot runs, [`Client`] for long-lived
//! multi-turn sessions, and [`ClientBuilder`] for callbacks and runtime
//! settings.

mod builder;
#[allow(clippy::module_inception)]
mod client;
mod compact;
mod connect;
mod controls;
mod cwd;
mod host_controls;
mod launch;
mod mcp_servers;
mod messages;
mod prompt;
mod query;
mod query_text;
mod retry;
mod run_end;
mod session_controls;
mod spare;
#[cfg(feature = "store")]
mod store;
mod warm;

#[cfg(feature = "host")]
pub(crate) use crate::extensions::diagnostics::forward_diagnostics;
pub use builder::ClientBuilder;
pub use client::Client;
pub use controls::{ContextDetail, McpPromptMode, SettingsFile};
pub use cwd::CwdChange;
pub use launch::TransportFactory;
pub use mcp_servers::LiveMcpServer;
pub use prompt::Prompt;
pub use query::{Query, QueryPrompt, query};
pub use retry::RetryPolicy;
pub use spare::{Claim, Spare};
pub use warm::{WarmQuery, startup};
