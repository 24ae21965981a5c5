//! Typed sandbox settings, merged into `--settings` under `sandbox`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How the CLI sandboxes Bash commands (filesystem and network isolation).
///
/// Tool-level restrictions are permission rules, not these settings (Read
/// and Edit rules for files, WebFetch rules for the network). Unset fields
/// keep the CLI's defaults; keys this crate does not know go in `extra`.
///
/// ```
/// use claude_agent::options::{Options, SandboxNetwork, SandboxSettings};
/// let sandbox = SandboxSettings {
///     enabled: Some(true),
///     excluded_commands: vec!["docker".into()],
///     network: Some(SandboxNetwork {
///         allow_local_binding: Some(true),
///         ..SandboxNetwork::default()
///     }),
///     ..SandboxSettings::default()
/// };
/// let opts = Options::new().sandbox(sandbox);
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSettings {
    /// Sandbox Bash commands (macOS and Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Approve Bash commands without asking when they run sandboxed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_allow_bash_if_sandboxed: Option<bool>,
    /// Commands that run outside the sandbox (`git`, `docker`...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub excluded_commands: Vec<String>,
    /// Let a command leave the sandbox through `dangerouslyDisableSandbox`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_unsandboxed_commands: Option<bool>,
    /// The sandbox's own network isolation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub network: Option<SandboxNetwork>,
    /// Violations left unreported: command pattern (`*` for all) to
    /// substrings of the violation text. Affects reporting only.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ignore_violations: BTreeMap<String, Vec<String>>,
    /// A weaker sandbox for unprivileged containers (Linux). Less secure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_weaker_nested_sandbox: Option<bool>,
    /// Further keys, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Network isolation of sandboxed commands.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxNetwork {
    /// Domains sandboxed processes may reach.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allowed_domains: Vec<String>,
    /// Domains always blocked, even when allowed above.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub denied_domains: Vec<String>,
    /// In managed settings: only managed `allowed_domains` count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_managed_domains_only: Option<bool>,
    /// Unix socket paths reachable from the sandbox (an SSH agent...).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_unix_sockets: Vec<String>,
    /// Every Unix socket is reachable (less secure).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_all_unix_sockets: Option<bool>,
    /// Binding to localhost ports (macOS).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_local_binding: Option<bool>,
    /// XPC/Mach service names to allow (macOS; trailing `*` allowed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow_mach_lookup: Vec<String>,
    /// Port of your own HTTP proxy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub http_proxy_port: Option<u16>,
    /// Port of your own SOCKS5 proxy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub socks_proxy_port: Option<u16>,
    /// Further keys, sent as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl SandboxSettings {
    /// Settings from their JSON form (the settings file's `sandbox` object).
    // Inline: the library never calls it, so its decoder is compiled only
    // where a user does.
    #[inline]
    pub fn from_json(value: Value) -> Result<Self, serde_json::Error> {
        serde_json::from_value(value)
    }
}
