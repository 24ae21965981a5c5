//! What a parent's restrictive part keeps of what the CLI builds in: the
//! restrictive options of its built-in security plugin (`pluginConfigs`),
//! and the AWS variable names it pairs automatically, which a parent's
//! `sandbox.credentials.awsPairs` may only keep from being paired. As the
//! TypeScript SDK 0.3.332 builds them.

use serde_json::{Map, Value, json};

use super::json_path::at;

/// The names AWS pairs automatically; a parent that pairs them otherwise
/// may only keep them from being paired.
const AWS_STANDARD_NAMES: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
];

/// A parent's `awsPairs` as TS passes them on: each standard name they
/// mention (in order, once) in a pair whose secret names no variable, so
/// the name is not paired automatically and nothing is re-signed with it.
pub(crate) fn aws_pair_suppressors(pairs: Option<&Value>) -> Vec<Value> {
    let mut names: Vec<&str> = Vec::new();
    let pairs = pairs.and_then(Value::as_array).map(Vec::as_slice);
    for pair in pairs
        .unwrap_or_default()
        .iter()
        .filter_map(Value::as_object)
    {
        for field in ["accessKeyIdVar", "secretAccessKeyVar", "sessionTokenVar"] {
            if let Some(name) = pair.get(field).and_then(Value::as_str)
                && !names.contains(&name)
            {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        .filter(|n| AWS_STANDARD_NAMES.contains(n))
        .enumerate()
        .map(|(i, name)| {
            json!({
                "accessKeyIdVar": name,
                "secretAccessKeyVar": format!("_PARENT_PAIR_SUPPRESSOR_{}_", i + 1),
            })
        })
        .collect()
}

/// The CLI's built-in security plugin, under its two names; the later
/// one's options win.
const SECURITY_PLUGINS: &[&str] = &["sec-default@builtin", "cc-plugin-sec-default@builtin"];

/// The security plugin's options a parent may set, as they only restrict.
const SECURITY_OPTIONS: &[&str] = &["allowManagedModsOnly", "forceHotReloadPrompt"];

/// The parent's restrictive options of the built-in security plugin, under
/// its current name: an option set to `false` (under either name) or to a
/// value that is not a string, number, boolean or list of strings is not
/// kept.
pub(crate) fn plugin_configs_part(parent: &Map<String, Value>) -> Option<Value> {
    let mut seen: Map<String, Value> = Map::new();
    for plugin in SECURITY_PLUGINS {
        let Some(Value::Object(options)) = at(parent, &["pluginConfigs", plugin, "options"]) else {
            continue;
        };
        for (name, value) in options {
            if value == &Value::Bool(false) || is_option_value(value) {
                seen.insert(name.clone(), value.clone());
            }
        }
    }
    let kept: Map<String, Value> = SECURITY_OPTIONS
        .iter()
        .filter_map(|name| {
            let value = seen.get(*name).filter(|v| is_option_value(v))?;
            Some(((*name).to_owned(), value.clone()))
        })
        .collect();
    let current = SECURITY_PLUGINS.last().copied().unwrap_or_default();
    (!kept.is_empty()).then(|| json!({ current: { "options": kept } }))
}

/// A plugin option's value that counts: not `false`, and a string, number,
/// boolean or list of strings.
fn is_option_value(value: &Value) -> bool {
    match value {
        Value::Bool(b) => *b,
        Value::String(_) | Value::Number(_) => true,
        Value::Array(items) => items.iter().all(Value::is_string),
        _ => false,
    }
}
