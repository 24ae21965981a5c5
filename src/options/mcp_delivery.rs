//! How the MCP servers the CLI runs or connects to reach it.
//!
//! A `--mcp-config` argument is readable by every local user in
//! `/proc/<pid>/cmdline`, so a server's `env` and `headers` must not travel
//! there. Since 2.1.261 the CLI reads `mcpServers` from the `initialize`
//! request when started with `--await-initialize`, as if they had been
//! given on the command line; that is the default here.

use serde_json::{Map, Value};

use super::CapabilityError;
use super::mcp::{McpServerConfig, McpServers};

/// Where the external (stdio, SSE, HTTP) servers of
/// [`McpServers::Servers`] go. In-process (`sdk`) servers carry only their
/// name and stay on `--mcp-config`; [`McpServers::Json`] text and
/// [`McpServers::Path`] are passed on the command line as given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpDelivery {
    /// In the `initialize` request over stdin, with `--await-initialize`:
    /// `env` and `headers` stay off the command line. Needs CLI 2.1.261 or
    /// newer; an older one is refused at connect.
    #[default]
    Initialize,
    /// In `--mcp-config` on the command line, where other local users can
    /// read `env` and `headers`. Works with any CLI version.
    Argv,
}

/// Whether a configured server is run or reached by the CLI itself (and so
/// may carry secrets), as opposed to served in-process by this SDK.
fn is_external(config: &McpServerConfig) -> bool {
    !matches!(config, McpServerConfig::Sdk { .. })
}

/// The servers that go into `initialize.mcpServers` (empty: none, and no
/// `--await-initialize`).
pub(crate) fn initialize_servers(
    servers: &McpServers,
    delivery: McpDelivery,
) -> Vec<&(String, McpServerConfig)> {
    match (servers, delivery) {
        (McpServers::Servers(list), McpDelivery::Initialize) => {
            list.iter().filter(|(_, c)| is_external(c)).collect()
        }
        _ => Vec::new(),
    }
}

/// The servers that stay in `--mcp-config` for a `Servers` list.
pub(crate) fn argv_servers(
    list: &[(String, McpServerConfig)],
    delivery: McpDelivery,
) -> Vec<(String, McpServerConfig)> {
    list.iter()
        .filter(|(_, c)| delivery == McpDelivery::Argv || !is_external(c))
        .cloned()
        .collect()
}

/// `initialize.mcpServers`: `{name: config}` in insertion order.
pub(crate) fn initialize_field(servers: &[&(String, McpServerConfig)]) -> Option<Value> {
    if servers.is_empty() {
        return None;
    }
    let map: Map<String, Value> = servers
        .iter()
        // Cannot fail: a config has only string keys.
        .map(|(name, c)| (name.clone(), serde_json::to_value(c).unwrap_or(Value::Null)))
        .collect();
    Some(Value::Object(map))
}

impl super::Options {
    /// Checks the CLI's `initialize` reply (`response` payload) confirms it
    /// read the MCP servers these options sent in `initialize`.
    pub(crate) fn check_mcp_delivery(&self, reply: &Value) -> Result<(), CapabilityError> {
        let sent = !initialize_servers(&self.mcp_servers, self.mcp_delivery).is_empty();
        check_applied(sent, reply)
    }
}

/// Checks the `initialize` reply of a session whose request carried
/// `mcpServers`: an answer without `mcp_servers_applied` is refused;
/// `false` (e.g. a cloud session that never starts them) is only logged.
fn check_applied(sent: bool, reply: &Value) -> Result<(), CapabilityError> {
    if !sent {
        return Ok(());
    }
    match reply.get("mcp_servers_applied").and_then(Value::as_bool) {
        Some(true) => Ok(()),
        Some(false) => {
            tracing::warn!(
                "the CLI reports it did not load the MCP servers sent in the initialize request"
            );
            Ok(())
        }
        None => Err(CapabilityError::McpServersNotRead {
            version: reply
                .get("claude_code_version")
                .and_then(Value::as_str)
                .map(|v| format!(" (version {v})"))
                .unwrap_or_default(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_external_servers_move_to_initialize() {
        let servers = McpServers::Servers(vec![
            ("calc".into(), McpServerConfig::sdk("calc")),
            ("web".into(), McpServerConfig::http("http://h/mcp")),
        ]);
        let moved = initialize_servers(&servers, McpDelivery::Initialize);
        assert_eq!(
            initialize_field(&moved),
            Some(json!({"web": {"type": "http", "url": "http://h/mcp"}}))
        );
        assert!(initialize_servers(&servers, McpDelivery::Argv).is_empty());
        let McpServers::Servers(list) = &servers else {
            unreachable!()
        };
        assert_eq!(argv_servers(list, McpDelivery::Initialize).len(), 1);
        assert_eq!(argv_servers(list, McpDelivery::Argv).len(), 2);
    }

    #[test]
    fn a_reply_without_the_applied_flag_is_refused_only_when_servers_were_sent() {
        let old = json!({"claude_code_version": "2.1.200"});
        assert_eq!(check_applied(false, &old), Ok(()));
        let err = check_applied(true, &old).unwrap_err();
        assert!(err.to_string().contains("(version 2.1.200) is too old"));
        assert_eq!(
            check_applied(true, &json!({"mcp_servers_applied": true})),
            Ok(())
        );
        assert_eq!(
            check_applied(true, &json!({"mcp_servers_applied": false})),
            Ok(())
        );
    }
}
