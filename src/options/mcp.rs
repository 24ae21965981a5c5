//! MCP server configuration (`--mcp-config`).

use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

use super::mcp_policy::McpToolPolicy;

/// How MCP servers are given to the CLI.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum McpServers {
    /// Named servers, in insertion order; written as
    /// `{"mcpServers": {name: config, ...}}`. An empty list sends nothing.
    Servers(Vec<(String, McpServerConfig)>),
    /// A complete `--mcp-config` JSON text, passed through unchanged.
    Json(String),
    /// A path to an MCP config file, passed through unchanged.
    Path(PathBuf),
}

impl Default for McpServers {
    fn default() -> Self {
        Self::Servers(Vec::new())
    }
}

/// One MCP server.
///
/// Serializes to the CLI's format, e.g. `{"type": "sdk", "name": "calc"}`;
/// the optional fields in the TypeScript SDK's spelling (`timeout`,
/// `alwaysLoad`, `tools`), and only when set. Build one with a constructor
/// ([`stdio`](Self::stdio), [`sse`](Self::sse), [`http`](Self::http)) and
/// the setters below.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum McpServerConfig {
    /// A subprocess speaking MCP over stdio.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// Extra environment variables for it.
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
        /// Per-call time limit for its tools, in milliseconds (see
        /// [`timeout`](Self::timeout)).
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        /// Whether its tools skip tool search (see
        /// [`always_load`](Self::always_load)).
        #[serde(rename = "alwaysLoad", skip_serializing_if = "Option::is_none")]
        always_load: Option<bool>,
    },
    /// A remote server using server-sent events.
    Sse {
        /// The server's URL.
        url: String,
        /// HTTP headers to send.
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
        /// Per-tool permission policies (see
        /// [`tool_policy`](Self::tool_policy)).
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tools: Vec<McpToolPolicy>,
        /// Per-call time limit for its tools, in milliseconds.
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        /// Whether its tools skip tool search.
        #[serde(rename = "alwaysLoad", skip_serializing_if = "Option::is_none")]
        always_load: Option<bool>,
    },
    /// A remote server using streamable HTTP.
    Http {
        /// The server's URL.
        url: String,
        /// HTTP headers to send.
        #[serde(skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
        /// Per-tool permission policies.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tools: Vec<McpToolPolicy>,
        /// Per-call time limit for its tools, in milliseconds.
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
        /// Whether its tools skip tool search.
        #[serde(rename = "alwaysLoad", skip_serializing_if = "Option::is_none")]
        always_load: Option<bool>,
    },
    /// An in-process server run by the SDK layer; the CLI reaches it through
    /// `mcp_message` control requests.
    Sdk {
        /// The server name used in `mcp_message` requests.
        name: String,
        /// Per-call time limit for its tools, in milliseconds (see
        /// `SdkMcpServer::timeout`, feature `mcp`).
        #[serde(skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Any other configuration, written as given (forward compatibility).
    #[serde(untagged)]
    Raw(Value),
}

impl McpServerConfig {
    /// A stdio server running `command` with `args`.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            timeout: None,
            always_load: None,
        }
    }

    /// An SSE server at `url`.
    pub fn sse(url: impl Into<String>) -> Self {
        Self::Sse {
            url: url.into(),
            headers: BTreeMap::new(),
            tools: Vec::new(),
            timeout: None,
            always_load: None,
        }
    }

    /// A streamable-HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::Http {
            url: url.into(),
            headers: BTreeMap::new(),
            tools: Vec::new(),
            timeout: None,
            always_load: None,
        }
    }

    /// An in-process SDK server called `name`.
    pub fn sdk(name: impl Into<String>) -> Self {
        Self::Sdk {
            name: name.into(),
            timeout: None,
        }
    }
}

/// Serializes `Servers` as `{"mcpServers": {...}}` keeping insertion order.
pub(crate) struct McpConfigDoc<'a>(pub(crate) &'a [(String, McpServerConfig)]);

impl Serialize for McpConfigDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        struct Servers<'a>(&'a [(String, McpServerConfig)]);
        impl Serialize for Servers<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
            }
        }
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry("mcpServers", &Servers(self.0))?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::json::to_argv_json;

    fn text(servers: Vec<(String, McpServerConfig)>) -> String {
        to_argv_json(&McpConfigDoc(&servers), "mcp config").unwrap()
    }

    #[test]
    fn sdk_server_matches_fixture_text() {
        assert_eq!(
            text(vec![("calc".into(), McpServerConfig::sdk("calc"))]),
            r#"{"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}}"#
        );
    }

    #[test]
    fn each_transport_serializes_with_its_type() {
        let servers = vec![
            (
                "a".into(),
                McpServerConfig::stdio("node", ["s.js"]).env("K", "V"),
            ),
            (
                "b".into(),
                McpServerConfig::sse("http://h/sse").header("Authorization", "Bearer t"),
            ),
            ("c".into(), McpServerConfig::http("http://h/mcp")),
            (
                "d".into(),
                McpServerConfig::stdio("bare", Vec::<String>::new()),
            ),
            (
                "e".into(),
                McpServerConfig::Raw(serde_json::json!({"type": "future"})),
            ),
        ];
        assert_eq!(
            text(servers),
            concat!(
                r#"{"mcpServers": {"a": {"type": "stdio", "command": "node", "args": ["s.js"], "env": {"K": "V"}}, "#,
                r#""b": {"type": "sse", "url": "http://h/sse", "headers": {"Authorization": "Bearer t"}}, "#,
                r#""c": {"type": "http", "url": "http://h/mcp"}, "#,
                r#""d": {"type": "stdio", "command": "bare"}, "#,
                r#""e": {"type": "future"}}}"#
            )
        );
    }
}
