//! Per-tool permission policy a host declares for a remote (SSE, HTTP) MCP
//! server's tools: the `tools` entries of its config.

use serde::{Deserialize, Serialize};

/// One entry of a remote server's `tools` list: how the CLI treats calls to
/// the tool `name` of that server.
///
/// The CLI turns each policy into a permission rule on
/// `mcp__<server>__<name>`; an entry without a policy states none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct McpToolPolicy {
    /// The tool's name as the server lists it.
    pub name: String,
    /// How calls to it are permitted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_policy: Option<McpPermissionPolicy>,
    /// The organisation admin's ceiling for the tool (an `ask` ceiling makes
    /// the CLI ask even in auto mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub org_max_permission: Option<McpOrgMaxPermission>,
}

impl McpToolPolicy {
    /// The policy `policy` for the tool `name`.
    pub fn new(name: impl Into<String>, policy: McpPermissionPolicy) -> Self {
        Self {
            name: name.into(),
            permission_policy: Some(policy),
            org_max_permission: None,
        }
    }

    /// Sets the organisation admin's ceiling for the tool.
    pub fn org_max_permission(mut self, ceiling: McpOrgMaxPermission) -> Self {
        self.org_max_permission = Some(ceiling);
        self
    }
}

/// A tool's `permission_policy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum McpPermissionPolicy {
    /// Calls are allowed without asking (an allow rule).
    AlwaysAllow,
    /// The host is asked before each call (an ask rule).
    AlwaysAsk,
    /// Calls are refused (a deny rule).
    AlwaysDeny,
}

/// A tool's `org_max_permission`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum McpOrgMaxPermission {
    /// No ceiling below allowing.
    Allow,
    /// At most asking.
    Ask,
    /// Never allowed.
    Blocked,
}
