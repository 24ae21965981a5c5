//! Changing a live session's MCP servers with the CLI's `mcp_set_servers`
//! request: external ones (run or reached by the CLI) on every build, and
//! in-process ones (served by this process through `mcp_message`) with
//! the feature `mcp`.
//!
//! The CLI replaces, on each request, the servers earlier requests named
//! and every in-process server with the set sent, so the session keeps the
//! current set ([`LiveSet`]) and every change sends all of it. External
//! servers given in [`Options`](crate::options::Options) at start are not part of
//! it: the CLI keeps them whatever the set says.
//!
//! At connect, the builder's in-process servers are written into the
//! options' MCP config as `{"type": "sdk"}` entries.

#[cfg(feature = "mcp")]
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::Client;
#[cfg(feature = "mcp")]
use super::ClientBuilder;
use crate::callbacks::live_servers::{LiveServers, LiveSet};
#[cfg(feature = "mcp")]
use crate::callbacks::mcp::SdkMcpServer;
use crate::options::McpServerConfig;
#[cfg(feature = "mcp")]
use crate::options::{McpServers, OptionsError};
use crate::protocol::McpSetServersResult;
use crate::{Error, Result};

/// One server of a live session's set: see [`Client::mcp_set_servers`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum LiveMcpServer {
    /// Served by this process; its name is its key in the set (feature
    /// `mcp`).
    #[cfg(feature = "mcp")]
    InProcess(SdkMcpServer),
    /// Run or reached by the CLI (stdio, SSE, HTTP). Its `env` and
    /// `headers` travel over stdin, never on a command line.
    External(McpServerConfig),
}

#[cfg(feature = "mcp")]
impl From<SdkMcpServer> for LiveMcpServer {
    fn from(server: SdkMcpServer) -> Self {
        Self::InProcess(server)
    }
}

impl From<McpServerConfig> for LiveMcpServer {
    fn from(config: McpServerConfig) -> Self {
        Self::External(config)
    }
}

impl Client {
    /// Replaces the session's in-process MCP servers, and the external
    /// servers earlier calls added, with `servers`: the CLI disconnects
    /// those left out and connects the new ones before it answers.
    /// External servers given in the options at start stay.
    ///
    /// An in-process server's key must be its own name. Without the
    /// feature `mcp` every server is external.
    pub async fn mcp_set_servers<I, S>(&self, servers: I) -> Result<McpSetServersResult>
    where
        I: IntoIterator<Item = (S, LiveMcpServer)>,
        S: Into<String>,
    {
        let mut set = LiveSet::default();
        for (name, server) in servers {
            let name = name.into();
            match server {
                #[cfg(feature = "mcp")]
                LiveMcpServer::InProcess(s) if s.name() != name => {
                    return Err(Error::InvalidConfig(format!(
                        "the in-process MCP server {:?} is keyed {name:?}; its key must be its name",
                        s.name()
                    )));
                }
                #[cfg(feature = "mcp")]
                LiveMcpServer::InProcess(s) => set.put_in_process(s),
                LiveMcpServer::External(config) => set.put_external(name, config),
            }
        }
        let live = self.live()?;
        let _order = live.change().await;
        self.send_set(live, set).await
    }

    /// Adds (or replaces) an in-process server on the live session; its
    /// tools are then `mcp__<name>__<tool>` for the model (feature `mcp`).
    #[cfg(feature = "mcp")]
    pub async fn add_mcp_server(&self, server: SdkMcpServer) -> Result<McpSetServersResult> {
        self.change_set(|set| set.put_in_process(server)).await
    }

    /// Adds (or replaces) an external server on the live session.
    pub async fn add_external_mcp_server(
        &self,
        name: impl Into<String>,
        config: McpServerConfig,
    ) -> Result<McpSetServersResult> {
        let name = name.into();
        self.change_set(|set| set.put_external(name, config)).await
    }

    /// Removes an in-process server, or an external one a live change
    /// added, from the session.
    pub async fn remove_mcp_server(&self, name: &str) -> Result<McpSetServersResult> {
        self.change_set(|set| set.remove(name)).await
    }

    /// The in-process servers the session answers for now (feature `mcp`).
    #[cfg(feature = "mcp")]
    pub fn in_process_mcp_servers(&self) -> Vec<String> {
        self.live()
            .map(|l| {
                l.snapshot()
                    .in_process
                    .iter()
                    .map(|s| s.name().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn live(&self) -> Result<&LiveServers> {
        self.inner
            .builder
            .callbacks
            .live_servers()
            .ok_or_else(|| Error::InvalidConfig("this session has no live MCP server set".into()))
    }

    /// Applies `change` to the current set and sends the result.
    async fn change_set(&self, change: impl FnOnce(&mut LiveSet)) -> Result<McpSetServersResult> {
        let live = self.live()?;
        let _order = live.change().await;
        let mut set = live.snapshot();
        change(&mut set);
        self.send_set(live, set).await
    }

    /// Installs `set` (so the CLI's first messages to a new in-process
    /// server find it) and sends it; a failed request restores the old set.
    async fn send_set(&self, live: &LiveServers, set: LiveSet) -> Result<McpSetServersResult> {
        let mut servers = Map::new();
        #[cfg(feature = "mcp")]
        for s in &set.in_process {
            servers.insert(
                s.name().to_owned(),
                serde_json::to_value(s.cli_config())
                    .map_err(|e| Error::Encode(crate::protocol::EncodeError(e)))?,
            );
        }
        for (name, config) in &set.external {
            let config = serde_json::to_value(config)
                .map_err(|e| Error::Encode(crate::protocol::EncodeError(e)))?;
            servers.insert(name.clone(), config);
        }
        let request = json!({"subtype": "mcp_set_servers", "servers": Value::Object(servers)});
        let old = live.replace(set);
        match self.control(request, None).await {
            Ok(reply) => super::controls::decode(reply),
            Err(e) => {
                live.replace(old);
                Err(e)
            }
        }
    }
}

#[cfg(feature = "mcp")]
impl ClientBuilder {
    /// Writes each in-process server into `--mcp-config` as `{"type":"sdk"}`.
    pub(super) fn register_sdk_servers(&mut self) -> Result<()> {
        let configs: Vec<(String, McpServerConfig)> = self
            .callbacks
            .sdk_servers()
            .iter()
            .map(|s| (s.name().to_owned(), s.cli_config()))
            .collect();
        if configs.is_empty() {
            return Ok(());
        }
        match &mut Arc::make_mut(&mut self.options).mcp_servers {
            McpServers::Servers(list) => {
                for (name, config) in configs {
                    if !list.iter().any(|(n, _)| *n == name) {
                        list.push((name, config));
                    }
                }
                Ok(())
            }
            McpServers::Json(text) => {
                let mut v: Value =
                    serde_json::from_str(text).map_err(|source| OptionsError::Json {
                        what: "mcp config",
                        source,
                    })?;
                let servers = v
                    .get_mut("mcpServers")
                    .and_then(Value::as_object_mut)
                    .ok_or_else(|| {
                        Error::InvalidConfig("mcp config json has no mcpServers object".into())
                    })?;
                for (name, config) in configs {
                    let config = serde_json::to_value(config)
                        .map_err(|e| Error::Encode(crate::protocol::EncodeError(e)))?;
                    servers.entry(name).or_insert(config);
                }
                *text = v.to_string();
                Ok(())
            }
            McpServers::Path(p) => Err(Error::InvalidConfig(format!(
                "in-process MCP servers cannot be combined with the mcp config file {}",
                p.display()
            ))),
        }
    }
}
