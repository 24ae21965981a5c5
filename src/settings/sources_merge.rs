//! `managedSourcesBehavior: "merge"`: when the administrator's winning
//! source says so, the lower administrator's source (the managed-settings
//! file under server-managed settings) merges under it instead of being
//! set aside. As the TypeScript SDK 0.3.332 merges them:
//!
//! - the lower source brings no credentials helpers, login pins, `env`
//!   (composed apart), `modelPicker`, helper or behaviour keys, and no
//!   `permissions.defaultMode`;
//! - lists merge without repeats, the higher's items first; allowlists
//!   (servers, models, marketplaces, channel plugins, providers) are the
//!   higher's alone;
//! - each restrictive switch takes the most restrictive value any source
//!   sets (a permissive one only the winner may set);
//! - lists of locked plugin surfaces combine;
//! - `modelOverrides` comes from the highest source that sets it, unless a
//!   higher one sets `availableModels`.

use serde_json::{Map, Value};

use super::json_path::{at, set};
use super::merge::merge_into;

/// Keys the lower source does not bring.
const NOT_MERGED: &[&str] = &[
    "apiKeyHelper",
    "awsAuthRefresh",
    "awsCredentialExport",
    "gcpAuthRefresh",
    "otelHeadersHelper",
    "proxyAuthHelper",
    "forceLoginOrgUUID",
    "forceLoginMethod",
    "forceLoginGatewayUrl",
    "gatewayInternalNetworks",
    "allowNestedModelAccessUnderForceLogin",
    "parentSettingsBehavior",
    "env",
    "modelPicker",
    "policyHelper",
    "policyHelpers",
    "managedSourcesBehavior",
    "wslInheritsWindowsSettings",
    "modelCatalogUrl",
    "modelCatalogPublicKey",
];

/// Lists the higher source replaces whole.
const REPLACED: &[&str] = &[
    "allowedMcpServers",
    "availableModels",
    "strictKnownMarketplaces",
    "allowedChannelPlugins",
    "allowedProviders",
    "awsPairs",
    "ripgrep",
];

/// Each restrictive setting and its restrictive values, most restrictive
/// first.
const RESTRICTIVE: &[(&[&str], &[&str])] = &[
    (&["allowManagedPermissionRulesOnly"], &["true"]),
    (&["allowManagedHooksOnly"], &["true"]),
    (&["allowManagedMcpServersOnly"], &["true"]),
    (&["enforceAvailableModels"], &["true"]),
    (&["disableAllHooks"], &["true"]),
    (&["disableClaudeAiConnectors"], &["true"]),
    (&["disableCommandPluginSources"], &["true"]),
    (&["disableSideloadFlags"], &["true"]),
    (&["disableSkillShellExecution"], &["true"]),
    (&["disableWindowsBashCommandSplit"], &["true"]),
    (&["disableRemoteControl"], &["true"]),
    (&["disableAgentView"], &["true"]),
    (&["disableWorkflows"], &["true"]),
    (&["disableArtifact"], &["true"]),
    (&["disableBundledSkills"], &["true"]),
    (&["fastModePerSessionOptIn"], &["true"]),
    (&["isolatePeerMachines"], &["true"]),
    (&["strictPluginOnlyCustomization"], &["true"]),
    (&["disableAutoMode"], &["\"disable\""]),
    (&["disableDeepLinkRegistration"], &["\"disable\""]),
    (
        &["permissions", "disableBypassPermissionsMode"],
        &["\"disable\""],
    ),
    (&["permissions", "disableAutoMode"], &["\"disable\""]),
    (
        &["permissions", "blockReadsOutsideWorkingDirectories"],
        &["true"],
    ),
    (
        &["permissions", "blockWritesOutsideWorkingDirectories"],
        &["true"],
    ),
    (&["permissions", "denyInsteadOfPrompting"], &["true"]),
    (&["autoMode", "classifyAllShell"], &["true"]),
    (&["worktree", "bgIsolation"], &["\"worktree\""]),
    (&["enableArtifact"], &["false"]),
    (&["enableWorkflows"], &["false"]),
    (&["syncClaudeAiSkills"], &["false"]),
    (&["syncClaudeAiPlugins"], &["false"]),
    (&["useAutoModeDuringPlan"], &["false"]),
    (&["skipDangerousModePermissionPrompt"], &["false"]),
    (&["skipAutoPermissionPrompt"], &["false"]),
    (&["enableAllProjectMcpServers"], &["false"]),
    (&["channelsEnabled"], &["false"]),
    (&["skipWebFetchPreflight"], &["false"]),
    (&["skipWorkflowUsageWarning"], &["false"]),
    (&["autoUploadSessions"], &["false"]),
    (&["fileCheckpointingEnabled"], &["false"]),
    (&["remoteControlAtStartup"], &["false"]),
    (&["remoteMessageReceipts"], &["\"off\"", "\"on\""]),
    (&["remoteTools", "allowUnattendedServing"], &["false"]),
    (&["autoContinueAtUsageLimit"], &["false"]),
    (&["responseComparisonEnabled"], &["false"]),
    (&["attribution", "sessionUrl"], &["false"]),
    (&["crossSessionInbound"], &["\"refuse\"", "\"hold\""]),
    (
        &["remoteControl", "shareHostProfile"],
        &["\"off\"", "\"basic\""],
    ),
    (&["modelProposedGoals"], &["\"disabled\"", "\"alwaysAsk\""]),
    (
        &["maxEffortLevel"],
        &["\"low\"", "\"medium\"", "\"high\"", "\"xhigh\"", "\"max\""],
    ),
    (&["feedbackDrafts"], &["\"off\""]),
    (&["availableModelsMatch"], &["\"exact\""]),
    (&["askUserQuestionTimeout"], &["\"never\""]),
    (&["dialogExpiry"], &["\"never\""]),
    (&["sandbox", "enabled"], &["true"]),
    (&["sandbox", "failIfUnavailable"], &["true"]),
    (&["sandbox", "autoAllowBashIfSandboxed"], &["false"]),
    (&["sandbox", "allowUnsandboxedCommands"], &["false"]),
    (&["sandbox", "enableWeakerNestedSandbox"], &["false"]),
    (&["sandbox", "enableWeakerNetworkIsolation"], &["false"]),
    (&["sandbox", "allowAppleEvents"], &["false"]),
    (&["sandbox", "allowNestedUserNamespaces"], &["false"]),
    (
        &["sandbox", "network", "allowManagedDomainsOnly"],
        &["true"],
    ),
    (&["sandbox", "network", "strictAllowlist"], &["true"]),
    (&["sandbox", "network", "allowAllUnixSockets"], &["false"]),
    (&["sandbox", "network", "allowLocalBinding"], &["false"]),
    (&["sandbox", "windows", "backend"], &["\"sandboxuser\""]),
    (
        &["sandbox", "filesystem", "allowManagedReadPathsOnly"],
        &["true"],
    ),
    (&["sandbox", "filesystem", "disabled"], &["false"]),
    (
        &["sandbox", "credentials", "allowPlaintextInject"],
        &["false"],
    ),
    (
        &["sandbox", "credentials", "sigv4", "streaming"],
        &["\"deny\""],
    ),
    (
        &["sandbox", "credentials", "sigv4", "presigned"],
        &["\"deny\""],
    ),
    (
        &["sandbox", "credentials", "sigv4", "sigv4a"],
        &["\"deny\""],
    ),
    (&["isolation", "required"], &["true"]),
    (&["isolation", "persistHome"], &["false"]),
];

/// Whether `winner` asks for its sources to merge.
pub(crate) fn merges(winner: &Map<String, Value>) -> bool {
    winner.get("managedSourcesBehavior").and_then(Value::as_str) == Some("merge")
}

/// `winner` (its `managedSourcesBehavior` left out) with `lower` merged
/// under it.
pub(crate) fn merge_sources(
    winner: &Map<String, Value>,
    lower: &Map<String, Value>,
) -> Map<String, Value> {
    let mut winner = winner.clone();
    winner.remove("managedSourcesBehavior");
    let mut lower = lower.clone();
    lower.retain(|k, _| !NOT_MERGED.contains(&k.as_str()));
    if let Some(Value::Object(p)) = lower.get_mut("permissions") {
        p.remove("defaultMode");
    }
    let mut merged = Map::new();
    merge_listing_higher_first(&mut merged, &lower);
    merge_listing_higher_first(&mut merged, &winner);
    let sources = [&winner, &lower];
    for (path, values) in RESTRICTIVE {
        let values: Vec<Value> = values
            .iter()
            .filter_map(|v| serde_json::from_str(v).ok())
            .collect();
        let most = sources
            .iter()
            .filter_map(|s| at(s, path))
            .filter_map(|v| values.iter().position(|r| r == v))
            .min();
        match most {
            Some(i) => set(&mut merged, path, Some(values[i].clone())),
            None if at(&winner, path).is_none() && at(&merged, path).is_some() => {
                set(&mut merged, path, None)
            }
            None => {}
        }
    }
    combine_surfaces(&mut merged, &sources);
    let first = |key: &str| sources.iter().position(|s| s.contains_key(key));
    match (first("modelOverrides"), first("availableModels")) {
        (Some(o), models) if models.is_none_or(|m| o <= m) => {
            if let Some(v) = sources[o].get("modelOverrides") {
                merged.insert("modelOverrides".into(), v.clone());
            }
        }
        _ => {
            merged.remove("modelOverrides");
        }
    }
    merged
}

/// Merges `higher` into `lower`: lists without repeats, `higher`'s items
/// first, allowlists replaced; anything else as the cascade merges.
fn merge_listing_higher_first(lower: &mut Map<String, Value>, higher: &Map<String, Value>) {
    for (key, value) in higher {
        match (lower.get_mut(key), value) {
            (Some(slot), v) if REPLACED.contains(&key.as_str()) => *slot = v.clone(),
            (Some(Value::Array(l)), Value::Array(h)) if key != "fallbackModel" => {
                let mut out: Vec<Value> = Vec::new();
                for item in h.iter().chain(l.iter()) {
                    if !out.contains(item) || item.is_object() || item.is_array() {
                        out.push(item.clone());
                    }
                }
                *l = out;
            }
            (Some(Value::Object(l)), Value::Object(h)) => merge_listing_higher_first(l, h),
            (Some(_), _) | (None, _) => {
                let mut one = Map::new();
                one.insert(key.clone(), value.clone());
                merge_into(lower, &one);
            }
        }
    }
}

/// Locked plugin surfaces: every source's list, unless one locks all.
fn combine_surfaces(merged: &mut Map<String, Value>, sources: &[&Map<String, Value>]) {
    const KEY: &str = "strictPluginOnlyCustomization";
    if merged.get(KEY) == Some(&Value::Bool(true)) {
        return;
    }
    let mut all: Vec<Value> = Vec::new();
    for source in sources {
        for item in source
            .get(KEY)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !all.contains(item) {
                all.push(item.clone());
            }
        }
    }
    if !all.is_empty() {
        merged.insert(KEY.into(), Value::Array(all));
    } else if !sources[0].contains_key(KEY) {
        merged.remove(KEY);
    }
}
