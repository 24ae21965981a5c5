//! The `--jobs` file: one JSON object per line,
//! `{"tenant": "...", "prompt": "...", ...options}`.

use std::path::PathBuf;

use claude_agent::Options;
use claude_agent::options::{PermissionMode, Settings, SystemPrompt};
use serde_json::{Map, Value};

/// One job of the file.
#[derive(Debug, Clone)]
pub(crate) struct Job {
    /// 1-based line number in the file.
    pub(crate) line: usize,
    /// The job's own `id`, when given (echoed in the output).
    pub(crate) id: Option<Value>,
    pub(crate) tenant: String,
    pub(crate) prompt: String,
    pub(crate) options: Options,
}

/// Keys a job line may carry besides `tenant`, `prompt` and `id`.
const OPTION_KEYS: &[&str] = &[
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

/// Parses every line (blank lines and `#` comments are skipped). Errors
/// name the line; all of them are returned, not just the first.
pub(crate) fn parse(text: &str, base: &Options) -> Result<Vec<Job>, Vec<String>> {
    let mut jobs = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match parse_line(trimmed, base) {
            Ok((tenant, prompt, id, options)) => jobs.push(Job {
                line,
                id,
                tenant,
                prompt,
                options,
            }),
            Err(e) => errors.push(format!("line {line}: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(jobs)
    } else {
        Err(errors)
    }
}

type Parsed = (String, String, Option<Value>, Options);

fn parse_line(text: &str, base: &Options) -> Result<Parsed, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| {
        let prefix: String = text.chars().take(60).collect();
        format!("not a JSON object ({e}): {prefix}")
    })?;
    let Value::Object(mut obj) = value else {
        return Err("not a JSON object".into());
    };
    let tenant = take_string(&mut obj, "tenant")?.ok_or("missing \"tenant\"")?;
    if tenant.is_empty() {
        return Err("\"tenant\" is empty".into());
    }
    let prompt = take_string(&mut obj, "prompt")?.ok_or("missing \"prompt\"")?;
    let id = obj.remove("id");
    if let Some(unknown) = obj.keys().find(|k| !OPTION_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "unknown option \"{unknown}\" (known: tenant, prompt, id, {})",
            OPTION_KEYS.join(", ")
        ));
    }
    let options = apply(base.clone(), &mut obj)?;
    Ok((tenant, prompt, id, options))
}

fn apply(mut o: Options, obj: &mut Map<String, Value>) -> Result<Options, String> {
    if let Some(m) = take_string(obj, "model")? {
        o = o.model(m);
    }
    if let Some(m) = take_string(obj, "fallback_model")? {
        o = o.fallback_model(m);
    }
    if let Some(m) = take_string(obj, "permission_mode")? {
        let mode = PermissionMode::from_name(&m)
            .ok_or_else(|| format!("unknown permission_mode \"{m}\""))?;
        o = o.permission_mode(mode);
    }
    if let Some(v) = obj.remove("max_turns") {
        let n = v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or("\"max_turns\" must be a non-negative integer")?;
        o = o.max_turns(n);
    }
    if let Some(v) = obj.remove("max_budget_usd") {
        let usd = v.as_f64().ok_or("\"max_budget_usd\" must be a number")?;
        o = o.max_budget_usd(usd);
    }
    if let Some(dir) = take_string(obj, "cwd")? {
        o = o.cwd(PathBuf::from(dir));
    }
    if let Some(p) = take_string(obj, "system_prompt")? {
        o = o.system_prompt(SystemPrompt::Text(p));
    }
    if let Some(p) = take_string(obj, "append_system_prompt")? {
        o = o.system_prompt(SystemPrompt::preset_append(p));
    }
    if let Some(tools) = take_strings(obj, "allowed_tools")? {
        o = o.allowed_tools(tools);
    }
    if let Some(tools) = take_strings(obj, "disallowed_tools")? {
        o = o.disallowed_tools(tools);
    }
    if let Some(dirs) = take_strings(obj, "add_dirs")? {
        for d in dirs {
            o = o.add_dir(PathBuf::from(d));
        }
    }
    if let Some(s) = take_string(obj, "settings")? {
        // Inline JSON text, or a file path, as `--settings` takes.
        let settings = if s.trim_start().starts_with('{') {
            Settings::JsonText(s)
        } else {
            Settings::Path(PathBuf::from(s))
        };
        o = o.settings(settings);
    }
    if let Some(env) = obj.remove("env") {
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

fn take_string(obj: &mut Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(format!("\"{key}\" must be a string")),
    }
}

fn take_strings(obj: &mut Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, String> {
    match obj.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                _ => Err(format!("\"{key}\" must be an array of strings")),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(format!("\"{key}\" must be an array of strings")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_parse_with_options_and_errors_name_their_line() {
        let text = r#"
# a comment
{"tenant": "a", "prompt": "one", "model": "m1", "max_turns": 2, "allowed_tools": ["Read"], "env": {"K": "V"}}
{"tenant": "b", "prompt": "two", "id": 7}
"#;
        let jobs = parse(text, &Options::new()).unwrap();
        assert_eq!(jobs.len(), 2);
        assert_eq!((jobs[0].line, jobs[0].tenant.as_str()), (3, "a"));
        assert_eq!(jobs[1].id, Some(serde_json::json!(7)));
        let bad = "{\"prompt\": \"x\"}\nnot json\n{\"tenant\": \"t\", \"prompt\": \"p\", \"modle\": \"x\"}\n{\"tenant\": \"t\", \"prompt\": \"p\", \"max_turns\": -1}";
        let errors = parse(bad, &Options::new()).unwrap_err();
        assert_eq!(errors.len(), 4, "{errors:?}");
        assert!(errors[0].starts_with("line 1: missing \"tenant\""));
        assert!(errors[1].starts_with("line 2: not a JSON object"));
        assert!(errors[2].contains("unknown option \"modle\""));
        assert!(errors[3].contains("max_turns"));
    }
}
