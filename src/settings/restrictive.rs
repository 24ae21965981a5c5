//! Which parts of `managedSettings` (settings a parent process passes to
//! the policy tier) the CLI keeps: only those that restrict. Lists of
//! rules and of models are kept whole; a switch is kept only at its
//! restrictive value; everything else (`model`, `env`, hooks, helpers,
//! `cleanupPeriodDays`, `permissions.defaultMode`, ...) is dropped.
//!
//! The table is what the TypeScript SDK 0.3.332 keeps, checked against its
//! answers in `testdata/resolve_settings/`. Its own allowlist is derived
//! from the CLI's settings schema; a key added there after that version is
//! dropped here until the table learns it.

use serde_json::{Map, Value};

/// What value of a key is kept.
#[derive(Clone, Copy)]
enum Keep {
    /// Any value (lists of rules, models, marketplaces).
    Any,
    /// Only this boolean.
    Bool(bool),
    /// Only this string.
    Str(&'static str),
    /// An object, filtered by its own table.
    Object(&'static [(&'static str, Keep)]),
}

const NETWORK: &[(&str, Keep)] = &[
    ("allowedDomains", Keep::Any),
    ("deniedDomains", Keep::Any),
    ("allowManagedDomainsOnly", Keep::Bool(true)),
    ("strictAllowlist", Keep::Bool(true)),
];

const FILESYSTEM: &[(&str, Keep)] = &[
    ("denyRead", Keep::Any),
    ("denyWrite", Keep::Any),
    ("allowManagedReadPathsOnly", Keep::Bool(true)),
];

const SANDBOX: &[(&str, Keep)] = &[
    ("enabled", Keep::Bool(true)),
    ("failIfUnavailable", Keep::Bool(true)),
    ("allowUnsandboxedCommands", Keep::Bool(false)),
    ("autoAllowBashIfSandboxed", Keep::Bool(false)),
    ("network", Keep::Object(NETWORK)),
    ("filesystem", Keep::Object(FILESYSTEM)),
];

const PERMISSIONS: &[(&str, Keep)] = &[
    ("allow", Keep::Any),
    ("deny", Keep::Any),
    ("ask", Keep::Any),
    ("additionalDirectories", Keep::Any),
    ("disableBypassPermissionsMode", Keep::Str("disable")),
    ("disableAutoMode", Keep::Str("disable")),
    ("blockReadsOutsideWorkingDirectories", Keep::Bool(true)),
    ("blockWritesOutsideWorkingDirectories", Keep::Bool(true)),
    ("denyInsteadOfPrompting", Keep::Bool(true)),
];

const TOP: &[(&str, Keep)] = &[
    ("allowManagedPermissionRulesOnly", Keep::Bool(true)),
    ("allowManagedHooksOnly", Keep::Bool(true)),
    ("allowManagedMcpServersOnly", Keep::Bool(true)),
    ("enforceAvailableModels", Keep::Bool(true)),
    ("disableClaudeAiConnectors", Keep::Bool(true)),
    ("strictPluginOnlyCustomization", Keep::Bool(true)),
    ("enableArtifact", Keep::Bool(false)),
    ("disableAutoMode", Keep::Str("disable")),
    ("availableModelsMatch", Keep::Str("exact")),
    ("strictKnownMarketplaces", Keep::Any),
    ("blockedMarketplaces", Keep::Any),
    ("deniedModels", Keep::Any),
    ("availableModels", Keep::Any),
    ("permissions", Keep::Object(PERMISSIONS)),
    ("sandbox", Keep::Object(SANDBOX)),
];

/// The restrictive part of `managed`; empty when nothing restricts.
pub(crate) fn restrictive_part(managed: &Map<String, Value>) -> Map<String, Value> {
    filter(managed, TOP)
}

fn filter(object: &Map<String, Value>, table: &[(&str, Keep)]) -> Map<String, Value> {
    let mut kept = Map::new();
    for (key, rule) in table {
        let Some(value) = object.get(*key) else {
            continue;
        };
        let value = match (rule, value) {
            (Keep::Any, v) => Some(v.clone()),
            (Keep::Bool(want), Value::Bool(b)) if b == want => Some(value.clone()),
            (Keep::Str(want), Value::String(s)) if s == want => Some(value.clone()),
            (Keep::Object(inner), Value::Object(o)) => {
                let part = filter(o, inner);
                (!part.is_empty()).then_some(Value::Object(part))
            }
            _ => None,
        };
        if let Some(value) = value {
            kept.insert((*key).to_owned(), value);
        }
    }
    kept
}
