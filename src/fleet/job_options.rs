//! A job's option keys applied to [`Options`]: the `host` job format's
//! `model`, `permission_mode`, `max_turns`, ... each checked for its type.

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::options::Options;
use crate::options::{PermissionMode, Settings, SystemPrompt};

/// Keys a job may carry besides `tenant`, `prompt`, `id` and `session_id`.
pub const OPTION_KEYS: &[&str] = &[
    "model",
    "fallback_model",
    "permission_mode",
    "max_turns",
    "max_budget_usd",
    "cwd",
    "system_prompt",
    "append_system_prompt",
    "allowed_tools",
    "disallowed_tools",
    "add_dirs",
    "env",
    "settings",
];

/// Applies every option of `obj` to `o`; an unknown key or a value of the
/// wrong type is an error naming it.
pub(crate) fn apply(mut o: Options, obj: &Map<String, Value>) -> Result<Options, String> {
    if let Some(unknown) = obj.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown option \"{unknown}\" (known: tenant, prompt, id, session_id, {})",
            OPTION_KEYS.join(", ")
        ));
    }
    if let Some(m) = string(obj, "model")? {
        o = o.model(m);
    }
    if let Some(m) = string(obj, "fallback_model")? {
        o = o.fallback_model(m);
    }
    if let Some(m) = string(obj, "permission_mode")? {
        let mode = PermissionMode::from_name(m)
            .ok_or_else(|| format!("unknown permission_mode \"{m}\""))?;
        o = o.permission_mode(mode);
    }
    if let Some(v) = present(obj, "max_turns") {
        let n = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("\"max_turns\" must be a non-negative integer")?;
        o = o.max_turns(n);
    }
    if let Some(v) = present(obj, "max_budget_usd") {
        let usd = v.as_f64().ok_or("\"max_budget_usd\" must be a number")?;
        o = o.max_budget_usd(usd);
    }
    if let Some(dir) = string(obj, "cwd")? {
        o = o.cwd(PathBuf::from(dir));
    }
    if let Some(p) = string(obj, "system_prompt")? {
        o = o.system_prompt(SystemPrompt::Text(p.to_owned()));
    }
    if let Some(p) = string(obj, "append_system_prompt")? {
        o = o.system_prompt(SystemPrompt::preset_append(p));
    }
    if let Some(tools) = strings(obj, "allowed_tools")? {
        o = o.allowed_tools(tools);
    }
    if let Some(tools) = strings(obj, "disallowed_tools")? {
        o = o.disallowed_tools(tools);
    }
    if let Some(dirs) = strings(obj, "add_dirs")? {
        for d in dirs {
            o = o.add_dir(PathBuf::from(d));
        }
    }
    if let Some(s) = string(obj, "settings")? {
        // Inline JSON text, or a file path, as `--settings` takes.
        let settings = if s.trim_start().starts_with('{') {
            Settings::JsonText(s.to_owned())
        } else {
            Settings::Path(PathBuf::from(s))
        };
        o = o.settings(settings);
    }
    if let Some(env) = present(obj, "env") {
        let Value::Object(env) = env else {
            return Err("\"env\" must be an object of strings".into());
        };
        for (k, v) in env {
            let v = v
                .as_str()
                .ok_or_else(|| format!("\"env\".{k} must be a string"))?;
            o = o.env(k, v);
        }
    }
    Ok(o)
}

/// The value of `key`, unless absent or null.
fn present<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn string<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match present(obj, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("\"{key}\" must be a string")),
    }
}

fn strings(obj: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    let bad = || format!("\"{key}\" must be an array of strings");
    match present(obj, key) {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_owned).ok_or_else(bad))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(bad()),
    }
}
