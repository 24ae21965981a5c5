//! [`ClientBuilder::prewarm`]: a spare CLI started before the session it
//! will serve is known, as the TypeScript SDK's `prewarm()` does. The CLI
//! runs with `--await-claim` in a private parking directory: start-up,
//! tools, user-level configuration, the builder's MCP servers, hooks and the
//! `initialize` handshake happen now; [`Spare::claim`] later binds it to a
//! working directory and a few per-session settings (`claim_session`), and
//! the session's own configuration (its `CLAUDE.md`, project settings,
//! `SessionStart` hooks) is read then.
//!
//! Unlike [`startup`](super::startup), the session's directory and
//! per-session options need not be known up front.

use std::path::{Path, PathBuf};

#[path = "spare_commands.rs"]
mod commands;

use serde_json::{Map, Value};

use super::{Client, ClientBuilder};
use crate::Result;
use crate::extensions::SessionReport;
use crate::options::{
    AgentDefinition, McpServerConfig, McpServers, PermissionMode, WorkspaceTrust,
};
use crate::protocol::{ClaimReply, ClaimSession, ControlRequestPayload};

/// A started CLI parked until [`claim`](Self::claim) gives it a session.
/// Dropping it shuts the CLI down in the background and removes the parking
/// directory it made; [`close`](Self::close) does both in order.
#[must_use = "a spare holds a running CLI"]
pub struct Spare {
    client: Client,
    /// The parking directory this spare made (and removes), if it made one.
    parking: Option<PathBuf>,
    sdk_servers: Vec<String>,
    /// The commands of the last `commands_changed` frame read before the
    /// claim ([`Spare::next_commands_change`]).
    latest_commands: Option<Vec<crate::protocol::SlashCommand>>,
}

impl std::fmt::Debug for Spare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spare")
            .field("pid", &self.client.pid())
            .finish_non_exhaustive()
    }
}

/// What a claim sets: the working directory and the per-session settings
/// the CLI takes at `claim_session`, plus the model, thinking budget and
/// settings overlay sent right after it. Everything else is fixed when the
/// spare starts.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Claim {
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The permission mode; one the process cannot take fails the claim.
    pub permission_mode: Option<PermissionMode>,
    /// Extra directories, as `add_dirs`.
    pub additional_directories: Vec<PathBuf>,
    /// Appended to the system prompt.
    pub append_system_prompt: Option<String>,
    /// The session's title.
    pub title: Option<String>,
    /// Environment additions: only `CLAUDE_CODE_OAUTH_TOKEN`,
    /// `CLAUDE_CODE_SESSION_ACCESS_TOKEN` and `CLAUDE_CODE_HOST_SESSION_ID`
    /// are accepted; any other key fails the claim.
    pub env: Vec<(String, String)>,
    /// The session's model, set with `set_model` right after the claim, as
    /// the TS SDK sends it beside `claim_session`.
    pub model: Option<String>,
    /// The thinking budget, set with `set_max_thinking_tokens` right after
    /// the claim.
    pub max_thinking_tokens: Option<u64>,
    /// Subagents the claimed session offers, sent in `claim_session` as
    /// `initialize.agents` would carry them.
    pub agents: Vec<(String, AgentDefinition)>,
    /// A settings overlay (the `--settings` tier), applied with
    /// `apply_flag_settings` right after the claim, as TS sends it beside
    /// `claim_session`.
    pub settings: Option<Map<String, Value>>,
    /// The user accepted a trust dialog for the claimed directory, sent in
    /// `claim_session` as `workspace_trust` (only when accepted, with an
    /// absolute directory).
    pub workspace_trust: Option<WorkspaceTrust>,
}

impl Claim {
    /// A claim for a session in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            ..Self::default()
        }
    }

    /// Sets the permission mode.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// Adds an extra directory.
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.additional_directories.push(dir.into());
        self
    }

    /// Sets the text appended to the system prompt.
    pub fn append_system_prompt(mut self, text: impl Into<String>) -> Self {
        self.append_system_prompt = Some(text.into());
        self
    }

    /// Sets the session's title.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the model the claimed session runs on.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Adds a subagent the claimed session offers.
    pub fn agent(mut self, name: impl Into<String>, definition: AgentDefinition) -> Self {
        self.agents.push((name.into(), definition));
        self
    }

    /// Sets the settings overlay the claimed session starts with.
    pub fn settings(mut self, settings: Map<String, Value>) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Sets the trust attestation for the claimed directory.
    pub fn workspace_trust(mut self, trust: WorkspaceTrust) -> Self {
        self.workspace_trust = Some(trust);
        self
    }

    /// Sets the claimed session's thinking budget.
    pub fn max_thinking_tokens(mut self, tokens: u64) -> Self {
        self.max_thinking_tokens = Some(tokens);
        self
    }

    /// Adds an environment variable (see [`env`](Self::env) for the keys
    /// the CLI accepts).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }
}

impl ClientBuilder {
    /// Starts a spare CLI for a session chosen later: `--await-claim`, in
    /// the options' `cwd` if set (a parking directory, never the session's
    /// own) or else in a private directory this spare makes under the
    /// system's temporary directory. Callbacks, MCP servers, hooks and the
    /// rest of the options are fixed now.
    pub async fn prewarm(mut self) -> Result<Spare> {
        let mut options = (*self.options).clone();
        let parking = match &options.cwd {
            Some(_) => None,
            None => {
                let dir = make_parking_dir().await?;
                options.cwd = Some(dir.clone());
                Some(dir)
            }
        };
        options.extra_args.push(("await-claim".to_owned(), None));
        // A per-session attestation: the claim carries it, as in TS.
        if options.workspace_trust.take().is_some() {
            tracing::warn!("prewarm: workspace_trust is not sent to a spare; pass it in the Claim");
        }
        self.options = std::sync::Arc::new(options);
        let sdk_servers = sdk_server_names(&self);
        match self.connect().await {
            Ok(client) => Ok(Spare {
                client,
                parking,
                sdk_servers,
                latest_commands: None,
            }),
            Err(e) => {
                if let Some(dir) = parking {
                    remove_parking_dir(&dir).await;
                }
                Err(e)
            }
        }
    }
}

impl Spare {
    /// The parked session, for its pid and `initialize` reply (which
    /// describes the parking directory until the claim). Send no turn
    /// before the claim.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Binds the spare to `claim`'s directory and settings. On success the
    /// session runs there and the [`Client`] takes turns as any other; the
    /// reply names the session and carries its `initialize`-shaped payload.
    /// A refusal (a directory whose project settings set `env`, `model`,
    /// an environment key outside the allow-list, a permission mode the
    /// process cannot take, ...) is the CLI's error, and the spare is gone:
    /// start that session with [`ClientBuilder::connect`].
    pub async fn claim(mut self, claim: Claim) -> Result<(Client, ClaimReply)> {
        let request = claim_request(&claim, &self.sdk_servers);
        let reply = self
            .client
            .control_typed::<ClaimReply>(&ControlRequestPayload::ClaimSession(request))
            .await;
        if let Some(dir) = self.parking.take() {
            remove_parking_dir(&dir).await;
        }
        let applied = match reply {
            Ok(reply) => apply_after_claim(&self.client, &claim)
                .await
                .map(|()| reply),
            Err(e) => Err(e),
        };
        match applied {
            Ok(reply) => Ok((self.client.clone(), reply)),
            Err(e) => {
                self.client.shutdown().await;
                Err(e)
            }
        }
    }

    /// Shuts the spare down unclaimed, in order, removes its parking
    /// directory and reports how the CLI ended.
    pub async fn close(mut self) -> SessionReport {
        let report = self.client.shutdown().await;
        if let Some(dir) = self.parking.take() {
            remove_parking_dir(&dir).await;
        }
        report
    }
}

impl Drop for Spare {
    fn drop(&mut self) {
        // The client's own drop ends the CLI; the directory goes too, off
        // the async workers.
        if let Some(dir) = self.parking.take()
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            drop(rt.spawn_blocking(move || std::fs::remove_dir_all(dir)));
        }
    }
}

/// The claim's settings that `claim_session` does not carry, sent before the
/// first turn. One the CLI refuses fails the claim: the caller starts that
/// session cold rather than run it on settings it did not ask for.
async fn apply_after_claim(client: &Client, claim: &Claim) -> Result<()> {
    if let Some(settings) = &claim.settings {
        client.apply_flag_settings(settings.clone()).await?;
    }
    if let Some(model) = &claim.model {
        client.set_model(Some(model)).await?;
    }
    if let Some(tokens) = claim.max_thinking_tokens {
        client.set_max_thinking_tokens(Some(tokens)).await?;
    }
    Ok(())
}

/// The `claim_session` request for `claim`.
fn claim_request(claim: &Claim, sdk_servers: &[String]) -> ClaimSession {
    let env: Map<String, Value> = claim
        .env
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    // Cannot fail: a definition has only string keys.
    let agents: Map<String, Value> = claim
        .agents
        .iter()
        .map(|(name, def)| {
            (
                name.clone(),
                serde_json::to_value(def).unwrap_or(Value::Null),
            )
        })
        .collect();
    ClaimSession {
        agents: (!agents.is_empty()).then_some(agents),
        cwd: Some(path_text(&claim.cwd)),
        env: (!env.is_empty()).then_some(env),
        additional_directories: (!claim.additional_directories.is_empty()).then(|| {
            claim
                .additional_directories
                .iter()
                .map(|d| path_text(d))
                .collect()
        }),
        permission_mode: claim.permission_mode.map(|m| m.as_str().to_owned()),
        append_system_prompt: claim.append_system_prompt.clone(),
        title: claim.title.clone(),
        sdk_mcp_servers: Some(sdk_servers.to_vec()),
        include_initialize: Some(true),
        workspace_trust: claim
            .workspace_trust
            .as_ref()
            .and_then(WorkspaceTrust::claim_value),
        ..ClaimSession::default()
    }
}

fn path_text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The in-process servers the spare registers at the start: the builder's
/// own and any `sdk` entries of the options.
fn sdk_server_names(builder: &ClientBuilder) -> Vec<String> {
    #[cfg(feature = "mcp")]
    let mut names: Vec<String> = builder
        .callbacks
        .sdk_servers()
        .iter()
        .map(|s| s.name().to_owned())
        .collect();
    #[cfg(not(feature = "mcp"))]
    let mut names: Vec<String> = Vec::new();
    if let McpServers::Servers(list) = &builder.options.mcp_servers {
        for (name, config) in list {
            if matches!(config, McpServerConfig::Sdk { .. }) && !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

/// A fresh directory only this user can enter.
async fn make_parking_dir() -> Result<PathBuf> {
    let dir = std::env::temp_dir()
        .join("claude-agent-spares")
        .join(format!("spare-{}", crate::random::uuid_v4()));
    let made = dir.clone();
    tokio::task::spawn_blocking(move || {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&made)
    })
    .await
    .map_err(std::io::Error::other)
    .and_then(|made| made)
    .map_err(|source| crate::Error::ParkingDir {
        path: dir.clone(),
        source,
    })?;
    Ok(dir)
}

async fn remove_parking_dir(dir: &Path) {
    // std's on a blocking thread, as `make_parking_dir` does: tokio's `fs`
    // comes only with the `store` feature.
    let owned = dir.to_owned();
    let removed = tokio::task::spawn_blocking(move || std::fs::remove_dir_all(owned))
        .await
        .map_err(std::io::Error::other)
        .and_then(|r| r);
    if let Err(e) = removed {
        tracing::warn!(path = %dir.display(), error = %e, "could not remove a spare's parking directory");
    }
}
