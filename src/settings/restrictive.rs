//! Which parts of `managedSettings` (settings a parent process passes to
//! the policy tier) the CLI keeps: only those that restrict. As the
//! TypeScript SDK 0.3.332 builds that part: a switch is kept only at its
//! restrictive value; lists of denials are kept; lists that grant (`allow`
//! rules, allowed domains and read paths, allowlists of servers, models,
//! marketplaces, providers) are kept only while the administrator's
//! settings this part merges under do not own that decision; everything
//! else (`model`, `env`, hooks, helpers, `cleanupPeriodDays`,
//! `permissions.defaultMode`, ...) is dropped. The built-in security
//! plugin's restrictive options are kept under `pluginConfigs`, and AWS
//! credential pairs become pairs that suppress the standard names.

use serde_json::{Map, Value, json};

use super::json_path::{at, set};
use super::restrictive_builtin::{aws_pair_suppressors, plugin_configs_part};

/// Top-level switches kept at `true`.
const KEEP_TRUE: &[&str] = &[
    "disableSkillShellExecution",
    "disableRemoteControl",
    "disableAgentView",
    "disableWorkflows",
    "disableArtifact",
    "disableCommandPluginSources",
    "disableSideloadFlags",
    "disableWindowsBashCommandSplit",
    "allowManagedMcpServersOnly",
    "disableClaudeAiConnectors",
    "allowManagedPermissionRulesOnly",
    "enforceAvailableModels",
];

/// Top-level switches kept at `false`.
const KEEP_FALSE: &[&str] = &[
    "enableWorkflows",
    "enableArtifact",
    "syncClaudeAiSkills",
    "syncClaudeAiPlugins",
];

/// Allowlists kept only while the administrator sets none of its own.
const ALLOWLISTS: &[&str] = &[
    "allowedMcpServers",
    "availableModels",
    "strictKnownMarketplaces",
    "allowedProviders",
];

/// `permissions` switches kept at their restrictive value.
const PERMISSION_SWITCHES: &[(&str, &str)] = &[
    ("disableBypassPermissionsMode", "\"disable\""),
    ("disableAutoMode", "\"disable\""),
    ("blockReadsOutsideWorkingDirectories", "true"),
    ("blockWritesOutsideWorkingDirectories", "true"),
    ("denyInsteadOfPrompting", "true"),
];

/// `sandbox` switches (a path under `sandbox`) kept at their restrictive
/// value.
const SANDBOX_SWITCHES: &[(&[&str], &str)] = &[
    (&["enabled"], "true"),
    (&["failIfUnavailable"], "true"),
    (&["autoAllowBashIfSandboxed"], "false"),
    (&["allowUnsandboxedCommands"], "false"),
    (&["enableWeakerNestedSandbox"], "false"),
    (&["enableWeakerNetworkIsolation"], "false"),
    (&["allowAppleEvents"], "false"),
    (&["allowNestedUserNamespaces"], "false"),
    (&["network", "allowManagedDomainsOnly"], "true"),
    (&["network", "strictAllowlist"], "true"),
    (&["network", "allowAllUnixSockets"], "false"),
    (&["network", "allowLocalBinding"], "false"),
    (&["windows", "backend"], "\"sandboxuser\""),
    (&["filesystem", "allowManagedReadPathsOnly"], "true"),
    (&["filesystem", "disabled"], "false"),
    (&["credentials", "allowPlaintextInject"], "false"),
    (&["credentials", "sigv4", "streaming"], "\"deny\""),
    (&["credentials", "sigv4", "presigned"], "\"deny\""),
    (&["credentials", "sigv4", "sigv4a"], "\"deny\""),
];

/// The restrictive part of `parent` (as read, its values checked) when
/// nothing of an administrator's applies beside it.
pub(crate) fn restrictive_part(parent: &Map<String, Value>) -> Map<String, Value> {
    restrictive_part_under(parent, &Map::new())
}

/// The restrictive part of `parent` under `admin`, the administrator's
/// settings it merges under (empty when none apply): what `admin` owns
/// (its allowlists, `allowManagedPermissionRulesOnly`, managed-only
/// domains or read paths, its hooks) keeps the parent's grants out.
pub(crate) fn restrictive_part_under(
    parent: &Map<String, Value>,
    admin: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    let is = |key: &str, want: Value| parent.get(key) == Some(&want);
    if is("allowManagedHooksOnly", json!(true)) || hooks_disabled(parent.get("disableAllHooks")) {
        out.insert("allowManagedHooksOnly".into(), json!(true));
    }
    for key in KEEP_TRUE {
        if is(key, json!(true)) {
            out.insert((*key).into(), json!(true));
        }
    }
    for key in KEEP_FALSE {
        if is(key, json!(false)) {
            out.insert((*key).into(), json!(false));
        }
    }
    // An empty allowlist of hook URLs or variables restricts only while the
    // administrator brings no hooks or plugins that would need them.
    let admin_plugins = admin
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .is_some_and(|p| p.values().any(|v| v != &json!(false) && !v.is_null()));
    if !admin.contains_key("hooks") && !admin_plugins {
        for key in ["allowedHttpHookUrls", "httpHookAllowedEnvVars"] {
            if parent
                .get(key)
                .and_then(Value::as_array)
                .is_some_and(Vec::is_empty)
            {
                out.insert(key.into(), json!([]));
            }
        }
    }
    if let Some(configs) = plugin_configs_part(parent) {
        out.insert("pluginConfigs".into(), configs);
    }
    if at(parent, &["remoteTools", "allowUnattendedServing"]) == Some(&json!(false)) {
        out.insert(
            "remoteTools".into(),
            json!({"allowUnattendedServing": false}),
        );
    }
    if is("disableAutoMode", json!("disable")) {
        out.insert("disableAutoMode".into(), json!("disable"));
    }
    if let Some(level @ Value::String(s)) = at(parent, &["remoteControl", "shareHostProfile"])
        && (s == "off" || s == "basic")
    {
        out.insert("remoteControl".into(), json!({"shareHostProfile": level}));
    }
    let mut attribution = Map::new();
    if commit_trailers_disabled(parent) {
        attribution.insert("commitTrailers".into(), json!(false));
    }
    if at(parent, &["attribution", "sessionUrl"]) == Some(&json!(false)) {
        attribution.insert("sessionUrl".into(), json!(false));
    }
    if !attribution.is_empty() {
        out.insert("attribution".into(), Value::Object(attribution));
    }
    match parent.get("strictPluginOnlyCustomization") {
        Some(v @ Value::Bool(true)) => {
            out.insert("strictPluginOnlyCustomization".into(), v.clone());
        }
        Some(v @ Value::Array(items)) if !items.is_empty() => {
            out.insert("strictPluginOnlyCustomization".into(), v.clone());
        }
        _ => {}
    }
    if let Some(v) = parent.get("deniedMcpServers").filter(|v| truthy(v)) {
        out.insert("deniedMcpServers".into(), v.clone());
    }
    for key in ["blockedMarketplaces", "deniedModels"] {
        if let Some(v @ Value::Array(items)) = parent.get(key)
            && !items.is_empty()
        {
            out.insert(key.into(), v.clone());
        }
    }
    for key in std::iter::once("forceLoginOrgUUID").chain(ALLOWLISTS.iter().copied()) {
        if let Some(v) = parent.get(key).filter(|v| truthy(v))
            && !admin.contains_key(key)
        {
            out.insert(key.into(), v.clone());
        }
    }
    if is("availableModelsMatch", json!("exact")) {
        out.insert("availableModelsMatch".into(), json!("exact"));
    }
    if let Some(Value::Object(permissions)) = parent.get("permissions") {
        let part = permissions_part(permissions, admin);
        if !part.is_empty() {
            out.insert("permissions".into(), Value::Object(part));
        }
    }
    if let Some(Value::Object(sandbox)) = parent.get("sandbox") {
        let part = sandbox_part(sandbox, admin);
        if !part.is_empty() {
            out.insert("sandbox".into(), Value::Object(part));
        }
    }
    out
}

fn permissions_part(
    permissions: &Map<String, Value>,
    admin: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ["deny", "ask"] {
        let Some(rules) = permissions.get(key) else {
            continue;
        };
        // A rule like `Read(!path)` carves an exception out of the rules
        // before it: it restricts nothing, so it is left out.
        let kept = match rules {
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .filter(|r| !r.as_str().is_some_and(is_exception_rule))
                    .cloned()
                    .collect(),
            ),
            other => other.clone(),
        };
        out.insert(key.into(), kept);
    }
    for (key, want) in PERMISSION_SWITCHES {
        let want: Value = serde_json::from_str(want).unwrap_or(Value::Null);
        if permissions.get(*key) == Some(&want) {
            out.insert((*key).into(), want);
        }
    }
    if at(admin, &["allowManagedPermissionRulesOnly"]) != Some(&json!(true)) {
        let domains_managed =
            at(admin, &["sandbox", "network", "allowManagedDomainsOnly"]) == Some(&json!(true));
        if let Some(allow) = permissions.get("allow").filter(|v| truthy(v))
            && !domains_managed
        {
            out.insert("allow".into(), allow.clone());
        }
        if let Some(dirs) = permissions
            .get("additionalDirectories")
            .filter(|v| truthy(v))
        {
            out.insert("additionalDirectories".into(), dirs.clone());
        }
    }
    out
}

fn sandbox_part(sandbox: &Map<String, Value>, admin: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (section, denials, grant, owned) in [
        (
            "network",
            &["deniedDomains"][..],
            "allowedDomains",
            "allowManagedDomainsOnly",
        ),
        (
            "filesystem",
            &["denyRead", "denyWrite"][..],
            "allowRead",
            "allowManagedReadPathsOnly",
        ),
    ] {
        let Some(Value::Object(inner)) = sandbox.get(section) else {
            continue;
        };
        // Denials always; the grant only while the administrator's switch
        // does not make that list the administrator's own.
        let mut part = pick(inner, denials);
        let managed = at(admin, &["sandbox", section, owned]) == Some(&json!(true));
        if let Some(v) = inner.get(grant).filter(|v| truthy(v))
            && !managed
        {
            part.insert(grant.into(), v.clone());
        }
        if !part.is_empty() {
            out.insert(section.into(), Value::Object(part));
        }
    }
    if let Some(Value::Object(credentials)) = sandbox.get("credentials") {
        let part = credentials_part(credentials);
        if !part.is_empty() {
            out.insert("credentials".into(), Value::Object(part));
        }
    }
    for (path, want) in SANDBOX_SWITCHES {
        let want: Value = serde_json::from_str(want).unwrap_or(Value::Null);
        if at(sandbox, path) == Some(&want) {
            set(&mut out, path, Some(want));
        }
    }
    out
}

/// Credentials a parent passes on restrict only: a file becomes a denial
/// or a mask injected nowhere, an environment variable only as a denial.
fn credentials_part(credentials: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    let list = |key: &str| {
        credentials
            .get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let files: Vec<Value> = list("files")
        .iter()
        .map(|f| match f.get("mode").and_then(Value::as_str) {
            Some("deny") => json!({"path": f.get("path"), "mode": "deny"}),
            _ => json!({"path": f.get("path"), "mode": "mask", "injectHosts": []}),
        })
        .collect();
    if !files.is_empty() {
        out.insert("files".into(), Value::Array(files));
    }
    let env_vars: Vec<Value> = list("envVars")
        .iter()
        .filter(|v| v.get("mode").and_then(Value::as_str) == Some("deny"))
        .map(|v| json!({"name": v.get("name"), "mode": "deny"}))
        .collect();
    if !env_vars.is_empty() {
        out.insert("envVars".into(), Value::Array(env_vars));
    }
    if let Some(Value::Object(sigv4)) = credentials.get("sigv4") {
        let denied = ["streaming", "presigned", "sigv4a"]
            .into_iter()
            .filter(|k| sigv4.get(*k).and_then(Value::as_str) == Some("deny"))
            .map(|k| (k.to_owned(), json!("deny")));
        out.insert("sigv4".into(), Value::Object(denied.collect()));
    }
    let pairs = aws_pair_suppressors(credentials.get("awsPairs"));
    if !pairs.is_empty() {
        out.insert("awsPairs".into(), Value::Array(pairs));
    }
    out
}

/// Whether the parent's settings switch commit trailers off: by
/// `attribution.commitTrailers: false`, an empty `attribution.commit`, or
/// (with neither said) `includeCoAuthoredBy: false`.
fn commit_trailers_disabled(parent: &Map<String, Value>) -> bool {
    let attribution = parent.get("attribution");
    if let Some(Value::Bool(on)) = attribution.and_then(|a| a.get("commitTrailers")) {
        return !on;
    }
    if let Some(a) = attribution.filter(|a| a.get("commit").is_some() || a.get("pr").is_some()) {
        return a.get("commit") == Some(&json!(""));
    }
    parent.get("includeCoAuthoredBy") == Some(&json!(false))
}

/// `disableAllHooks` as the CLI reads a parent's: anything but unset,
/// `null`, `false` or `"false"` turns hooks off.
fn hooks_disabled(value: Option<&Value>) -> bool {
    !matches!(value, None | Some(Value::Null) | Some(Value::Bool(false)))
        && value != Some(&json!("false"))
}

fn is_exception_rule(rule: &str) -> bool {
    ["Read(", "Edit("].iter().any(|tool| {
        rule.strip_prefix(tool)
            .map(|rest| rest.strip_prefix("./").unwrap_or(rest))
            .is_some_and(|rest| rest.starts_with('!'))
    })
}

/// JavaScript truthiness, as the CLI tests a value's presence.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn pick(object: &Map<String, Value>, keys: &[&str]) -> Map<String, Value> {
    keys.iter()
        .filter_map(|k| object.get(*k).map(|v| ((*k).to_owned(), v.clone())))
        .collect()
}
