//! The policy tier (`managed`): one source wins it whole, the highest that
//! holds settings: server-managed settings, then the managed-settings file
//! with its drop-ins, then a parent's `managedSettings` (only its
//! restrictive part, and only while neither administrator's source
//! applies). Two things of a lower administrator's source still count: its
//! `env`, under the winner's, and a longer `cleanupPeriodDays` (applied by
//! the cascade). A winner that says `parentSettingsBehavior: "merge"` takes
//! the parent's restrictive part under its own settings. Not built:
//! `managedSourcesBehavior: "merge"` (every administrator's source merged,
//! each key by its own rule), read as the default, the winner alone.

use serde_json::{Map, Value};

use super::merge::merge_into;
use super::restrictive::{restrictive_part, restrictive_part_under};
use super::sources_merge::{merge_sources, merges};
use super::types::PolicyOrigin;

/// The policy sources, already read.
#[derive(Debug, Clone, Default)]
pub(crate) struct PolicyInputs {
    /// Server-managed settings.
    pub remote: Option<Map<String, Value>>,
    /// `managed-settings.json` with its drop-ins merged in.
    pub file: Option<Map<String, Value>>,
    /// A parent process's `managedSettings`, unfiltered.
    pub parent: Option<Map<String, Value>>,
}

/// The tier as it applies.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PolicyTier {
    /// Its settings.
    pub settings: Map<String, Value>,
    /// The source that won it.
    pub origin: PolicyOrigin,
    /// A lower administrator's source's `cleanupPeriodDays`, when the
    /// winner sets none.
    pub lower_cleanup: Option<Value>,
}

/// The policy tier of `inputs`, or `None` when no source holds settings.
pub(crate) fn compose(inputs: &PolicyInputs) -> Option<PolicyTier> {
    let present = |m: &Option<Map<String, Value>>| m.as_ref().filter(|m| !m.is_empty()).cloned();
    let file = present(&inputs.file);
    if let Some(mut settings) = present(&inputs.remote) {
        if let Some(file) = file.as_ref().filter(|_| merges(&settings)) {
            settings = merge_sources(&settings, file);
        }
        settings.remove(SOURCES_BEHAVIOR);
        let lower_cleanup = match settings.contains_key(CLEANUP) {
            true => None,
            false => file.as_ref().and_then(|f| f.get(CLEANUP)).cloned(),
        };
        let file_env = file.as_ref().and_then(|f| f.get("env"));
        if let Some(Value::Object(file_env)) = file_env {
            let mut env = file_env.clone();
            match settings.get("env") {
                Some(Value::Object(remote_env)) => merge_into(&mut env, remote_env),
                // A remote `env` that is not an object stays as it is.
                Some(_) => env = Map::new(),
                None => {}
            }
            if !env.is_empty() {
                settings.insert("env".into(), Value::Object(env));
            }
        }
        return Some(PolicyTier {
            settings: with_parent(settings, inputs),
            origin: PolicyOrigin::Remote,
            lower_cleanup,
        });
    }
    if let Some(mut settings) = file {
        settings.remove(SOURCES_BEHAVIOR);
        return Some(PolicyTier {
            settings: with_parent(settings, inputs),
            origin: PolicyOrigin::File,
            lower_cleanup: None,
        });
    }
    let parent = restrictive_part(inputs.parent.as_ref()?);
    (!parent.is_empty()).then_some(PolicyTier {
        settings: parent,
        origin: PolicyOrigin::Parent,
        lower_cleanup: None,
    })
}

/// An administrator's `winner` with the parent's restrictive part merged
/// under it, when the winner asks for that; else `winner` alone. A
/// parent's switch that restricts wins over the winner's.
fn with_parent(winner: Map<String, Value>, inputs: &PolicyInputs) -> Map<String, Value> {
    let merge = winner.get("parentSettingsBehavior").and_then(Value::as_str) == Some("merge");
    let Some(parent) = inputs.parent.as_ref().filter(|_| merge) else {
        return winner;
    };
    let mut merged = restrictive_part_under(parent, &admin_view(&winner, inputs));
    if merged.is_empty() {
        return winner;
    }
    merge_into(&mut merged, &winner);
    for key in PARENT_SWITCHES_WIN {
        if let Some(value) = restrictive_part(parent).get(*key) {
            merged.insert((*key).into(), value.clone());
        }
    }
    merged
}

/// The parent's switches that stay on over an administrator's `false`.
const PARENT_SWITCHES_WIN: &[&str] = &[
    "availableModelsMatch",
    "allowManagedHooksOnly",
    "disableSkillShellExecution",
    "disableWindowsBashCommandSplit",
    "disableRemoteControl",
    "disableAgentView",
    "disableWorkflows",
    "disableArtifact",
    "enableWorkflows",
    "enableArtifact",
];

/// What of the administrators' settings decides which of a parent's
/// grants count: the winner's, with the managed-only switches any
/// administrator's source sets.
fn admin_view(winner: &Map<String, Value>, inputs: &PolicyInputs) -> Map<String, Value> {
    let mut view = winner.clone();
    let sources = [inputs.remote.as_ref(), inputs.file.as_ref()];
    let any = |f: &dyn Fn(&Map<String, Value>) -> Option<&Value>| {
        sources
            .iter()
            .flatten()
            .any(|s| f(s) == Some(&Value::Bool(true)))
    };
    if any(&|s| s.get("allowManagedPermissionRulesOnly")) {
        view.insert("allowManagedPermissionRulesOnly".into(), Value::Bool(true));
    }
    let sandbox = |s: &Map<String, Value>, group: &str, key: &str| {
        s.get("sandbox")
            .and_then(|v| v.get(group))
            .and_then(|v| v.get(key))
            .cloned()
    };
    for (group, key) in [
        ("network", "allowManagedDomainsOnly"),
        ("filesystem", "allowManagedReadPathsOnly"),
    ] {
        let set = sources
            .iter()
            .flatten()
            .any(|s| sandbox(s, group, key) == Some(Value::Bool(true)));
        if set {
            let mut patch = Map::new();
            patch.insert(
                "sandbox".into(),
                serde_json::json!({ group: { key: true } }),
            );
            merge_into(&mut view, &patch);
        }
    }
    view
}

const CLEANUP: &str = "cleanupPeriodDays";
/// How the administrator's sources combine; read, then left out of the tier.
const SOURCES_BEHAVIOR: &str = "managedSourcesBehavior";
