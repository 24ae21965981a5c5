//! Setters for the optional fields of an external MCP server's config, as
//! the TypeScript SDK's `McpStdioServerConfig`, `McpSSEServerConfig` and
//! `McpHttpServerConfig` have them.

use std::time::Duration;

use serde_json::Value;

use super::mcp::McpServerConfig;
use super::mcp_policy::{McpPermissionPolicy, McpToolPolicy};

impl McpServerConfig {
    /// Adds the environment variable `key=value` for a stdio server (other
    /// kinds have no environment and are returned unchanged).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Self::Stdio { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Adds the HTTP header `name: value` for an SSE or HTTP server (other
    /// kinds are returned unchanged).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Self::Sse { headers, .. } | Self::Http { headers, .. } = &mut self {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Per-call time limit the CLI applies to this server's tools, overriding
    /// `MCP_TOOL_TIMEOUT` (`timeout`, in milliseconds). A hard wall-clock
    /// limit per call; the CLI ignores values under 1000 ms. Applies to every
    /// kind, and to a [`Raw`](Self::Raw) JSON object.
    pub fn timeout(mut self, limit: Duration) -> Self {
        let ms = u64::try_from(limit.as_millis()).unwrap_or(u64::MAX);
        match &mut self {
            Self::Stdio { timeout, .. }
            | Self::Sse { timeout, .. }
            | Self::Http { timeout, .. }
            | Self::Sdk { timeout, .. } => *timeout = Some(ms),
            Self::Raw(value) => set_raw(value, "timeout", Value::from(ms)),
        }
        self
    }

    /// `true`: every tool of this server is in the prompt from the first
    /// turn, never deferred behind tool search (and the CLI waits, up to its
    /// connect timeout, for the server before the first turn); `false`: all
    /// are deferred (`alwaysLoad`). For stdio, SSE and HTTP servers and a
    /// [`Raw`](Self::Raw) JSON object; an in-process server is returned
    /// unchanged (use `SdkMcpServer::always_load`, feature `mcp`).
    pub fn always_load(mut self, on: bool) -> Self {
        match &mut self {
            Self::Stdio { always_load, .. }
            | Self::Sse { always_load, .. }
            | Self::Http { always_load, .. } => *always_load = Some(on),
            Self::Raw(value) => set_raw(value, "alwaysLoad", Value::Bool(on)),
            Self::Sdk { .. } => {}
        }
        self
    }

    /// Declares the permission `policy` for this server's tool `tool`
    /// (an entry of `tools`): the CLI allows, asks about or denies its calls
    /// as an allow, ask or deny rule on `mcp__<server>__<tool>` would. For
    /// SSE and HTTP servers, the only kinds whose `tools` the CLI reads;
    /// others are returned unchanged.
    pub fn tool_policy(self, tool: impl Into<String>, policy: McpPermissionPolicy) -> Self {
        self.tool_policy_entry(McpToolPolicy::new(tool, policy))
    }

    /// Adds one `tools` entry as given (e.g. with an
    /// [`org_max_permission`](McpToolPolicy::org_max_permission)); for SSE
    /// and HTTP servers, others are returned unchanged.
    pub fn tool_policy_entry(mut self, entry: McpToolPolicy) -> Self {
        if let Self::Sse { tools, .. } | Self::Http { tools, .. } = &mut self {
            tools.push(entry);
        }
        self
    }
}

/// Sets `key` in a raw config that is a JSON object (anything else is the
/// caller's own text and is left as it is).
fn set_raw(value: &mut Value, key: &str, to: Value) {
    if let Value::Object(map) = value {
        map.insert(key.to_string(), to);
    }
}

#[cfg(test)]
mod tests {
    use super::super::mcp_policy::McpOrgMaxPermission;
    use super::*;
    use serde_json::json;

    fn wire(config: &McpServerConfig) -> Value {
        serde_json::to_value(config).unwrap()
    }

    #[test]
    fn stdio_sends_timeout_in_ms_and_always_load_in_camel_case() {
        let config = McpServerConfig::stdio("srv", ["--x"])
            .env("K", "V")
            .timeout(Duration::from_millis(2500))
            .always_load(true);
        assert_eq!(
            wire(&config),
            json!({"type": "stdio", "command": "srv", "args": ["--x"], "env": {"K": "V"},
                   "timeout": 2500, "alwaysLoad": true})
        );
        // A stdio server has no `tools` in the CLI's schema: nothing is added.
        assert_eq!(
            config
                .clone()
                .tool_policy("t", McpPermissionPolicy::AlwaysDeny),
            config
        );
    }

    #[test]
    fn remote_servers_send_tools_policies_as_typescript_does() {
        for make in [McpServerConfig::sse, McpServerConfig::http] {
            let config = make("https://h/mcp")
                .header("Authorization", "Bearer t")
                .tool_policy("read", McpPermissionPolicy::AlwaysAllow)
                .tool_policy("ask", McpPermissionPolicy::AlwaysAsk)
                .tool_policy_entry(
                    McpToolPolicy::new("rm", McpPermissionPolicy::AlwaysDeny)
                        .org_max_permission(McpOrgMaxPermission::Blocked),
                )
                .timeout(Duration::from_secs(30))
                .always_load(false);
            let kind = wire(&config)["type"].clone();
            assert_eq!(
                wire(&config),
                json!({"type": kind, "url": "https://h/mcp",
                       "headers": {"Authorization": "Bearer t"},
                       "tools": [
                           {"name": "read", "permission_policy": "always_allow"},
                           {"name": "ask", "permission_policy": "always_ask"},
                           {"name": "rm", "permission_policy": "always_deny",
                            "org_max_permission": "blocked"},
                       ],
                       "timeout": 30000, "alwaysLoad": false})
            );
        }
    }

    #[test]
    fn unset_fields_are_left_out() {
        assert_eq!(
            wire(&McpServerConfig::http("http://h")),
            json!({"type": "http", "url": "http://h"})
        );
        assert_eq!(
            wire(&McpServerConfig::stdio("srv", Vec::<String>::new())),
            json!({"type": "stdio", "command": "srv"})
        );
    }

    #[test]
    fn an_sdk_server_takes_a_timeout_but_not_always_load() {
        let config = McpServerConfig::sdk("calc")
            .timeout(Duration::from_secs(2))
            .always_load(true)
            .header("h", "v")
            .env("k", "v");
        assert_eq!(
            wire(&config),
            json!({"type": "sdk", "name": "calc", "timeout": 2000})
        );
    }

    #[test]
    fn a_raw_object_gets_the_fields_and_other_raw_json_is_kept() {
        let config = McpServerConfig::Raw(json!({"type": "future", "url": "u"}))
            .timeout(Duration::from_secs(1))
            .always_load(true);
        assert_eq!(
            wire(&config),
            json!({"type": "future", "url": "u", "timeout": 1000, "alwaysLoad": true})
        );
        let text = McpServerConfig::Raw(json!("as given")).timeout(Duration::from_secs(1));
        assert_eq!(wire(&text), json!("as given"));
    }
}
