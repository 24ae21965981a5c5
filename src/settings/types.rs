//! The inputs and the answer of [`resolve_settings`](super::resolve_settings),
//! in the TypeScript SDK's shapes (`ResolveSettingsOptions`,
//! `ResolvedSettings`), serialized with its field names.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::options::SettingSource;

/// What to resolve: the TS SDK's `ResolveSettingsOptions`, plus where the
/// files are (the TS SDK reads them from its process's environment).
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ResolveSettingsOptions {
    /// The directory whose `.claude/settings.json` and
    /// `.claude/settings.local.json` are read; unset: this process's
    /// working directory.
    pub cwd: Option<PathBuf>,
    /// Which file sources to read, as `Options::setting_sources`; unset:
    /// all three. An empty list reads none, the policy tier still applies.
    pub setting_sources: Option<Vec<SettingSource>>,
    /// Policy-tier settings from a parent process, as
    /// `Options::managed_settings`: only their restrictive keys are kept, and
    /// only while no administrator's source (server-managed settings, the
    /// managed-settings file) applies.
    pub managed_settings: Option<Map<String, Value>>,
    /// Settings an organisation's server handed out (the TS SDK's
    /// `serverManagedSettings`): the highest policy source, kept whole.
    pub server_managed_settings: Option<Map<String, Value>>,
    /// The `--settings` tier (`flag`), between `local` and the policy tier.
    /// The TS SDK's function has no such input; a host that passes
    /// `Options::settings` to the CLI can see its effect here.
    pub flag_settings: Option<Map<String, Value>>,
    /// The user configuration folder; unset: `CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    pub config_dir: Option<PathBuf>,
    /// The folder of `managed-settings.json` and `managed-settings.d/`;
    /// unset: the platform's (`/etc/claude-code` on Linux,
    /// `/Library/Application Support/ClaudeCode` on macOS,
    /// `C:\Program Files\ClaudeCode` on Windows).
    pub managed_dir: Option<PathBuf>,
}

impl ResolveSettingsOptions {
    /// Options that resolve as the CLI would start in `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: Some(cwd.into()),
            ..Self::default()
        }
    }
}

/// Which tier supplied settings: a file source, `flag` (`--settings`) or
/// `managed` (the policy tier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ResolvedSettingSource {
    /// The user's `settings.json`.
    User,
    /// The project's `.claude/settings.json`.
    Project,
    /// The project's `.claude/settings.local.json`.
    Local,
    /// The `--settings` tier.
    Flag,
    /// The policy tier.
    Managed,
}

impl ResolvedSettingSource {
    /// The CLI's name of this source in a `get_settings` reply
    /// (`userSettings`, ..., `policySettings`).
    pub fn cli_name(self) -> &'static str {
        match self {
            Self::User => "userSettings",
            Self::Project => "projectSettings",
            Self::Local => "localSettings",
            Self::Flag => "flagSettings",
            Self::Managed => "policySettings",
        }
    }
}

impl From<SettingSource> for ResolvedSettingSource {
    fn from(source: SettingSource) -> Self {
        match source {
            SettingSource::User => Self::User,
            SettingSource::Project => Self::Project,
            SettingSource::Local => Self::Local,
        }
    }
}

/// Which source of the policy tier won it (the TS SDK's
/// `PolicySettingsOrigin`; of its values, only those a Linux host can
/// produce without a policy helper are built).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PolicyOrigin {
    /// [`ResolveSettingsOptions::server_managed_settings`].
    Remote,
    /// `managed-settings.json` and its drop-in folder.
    File,
    /// [`ResolveSettingsOptions::managed_settings`].
    Parent,
}

/// The source of one top-level key of [`ResolvedSettings::effective`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProvenanceEntry {
    /// The last source that sets the key.
    pub source: ResolvedSettingSource,
    /// Its file, for a file source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// For `managed`: which policy source won the tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_origin: Option<PolicyOrigin>,
}

/// One source's own settings, as read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SourceSettings {
    /// Which source.
    pub source: ResolvedSettingSource,
    /// Its settings (never empty: a source with none is left out).
    pub settings: Map<String, Value>,
    /// Its file, for a file source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// For `managed`: which policy source won the tier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_origin: Option<PolicyOrigin>,
}

/// A kind of machine policy source that is there and did not load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PolicyKind {
    /// The managed-settings file or one of its drop-ins (unreadable, not
    /// JSON, or not an object).
    File,
}

/// What became of this machine's own policy sources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct MachinePolicy {
    /// The kinds of source that are there and did not load; empty when all
    /// loaded (the TS SDK writes `false`).
    pub did_not_load: Vec<PolicyKind>,
}

/// The effective settings and where each part came from: the TS SDK's
/// `ResolvedSettings`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResolvedSettings {
    /// Every source merged, lowest precedence first.
    pub effective: Map<String, Value>,
    /// For each top-level key of `effective`, the last source that sets it.
    pub provenance: BTreeMap<String, ProvenanceEntry>,
    /// Each source's own settings, lowest precedence first.
    pub sources: Vec<SourceSettings>,
    /// What became of the machine's policy sources; read it first when
    /// enforcing managed settings, as a source that did not load is absent
    /// from the rest.
    pub machine_policy: MachinePolicy,
}
