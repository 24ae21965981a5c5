//! [`Options`] -> argv, in the official SDKs' flag order.

use serde_json::{Map, Value};
use std::ffi::{OsStr, OsString};

use super::json::to_argv_json;
use super::mcp::McpConfigDoc;
use super::mcp_delivery::{argv_servers, initialize_servers};
use super::{
    CommandContext, McpServers, Options, OptionsError, OutputFormat, PluginDelivery, SettingSource,
    Settings, Skills, SystemPrompt, Thinking, Tools,
};

/// Accumulates argv, refusing values that cannot be passed to a process.
struct Argv(Vec<OsString>);

impl Argv {
    fn flag(&mut self, flag: &str) {
        self.0.push(flag.into());
    }

    /// `--flag value`, or `--flag=value` when the value starts with `-` so it
    /// can never be read as a flag of its own.
    fn pair(
        &mut self,
        flag: &str,
        value: &OsStr,
        option: &'static str,
    ) -> Result<(), OptionsError> {
        check_nul(value, option)?;
        if value.as_encoded_bytes().starts_with(b"-") {
            self.eq(flag, value, option)
        } else {
            self.0.push(flag.into());
            self.0.push(value.to_owned());
            Ok(())
        }
    }

    /// `--flag=value`, always.
    fn eq(&mut self, flag: &str, value: &OsStr, option: &'static str) -> Result<(), OptionsError> {
        check_nul(value, option)?;
        let mut arg = OsString::from(flag);
        arg.push("=");
        arg.push(value);
        self.0.push(arg);
        Ok(())
    }
}

fn check_nul(value: &OsStr, option: &'static str) -> Result<(), OptionsError> {
    if value.as_encoded_bytes().contains(&0) {
        return Err(OptionsError::NulByte { option });
    }
    Ok(())
}

/// Python's `str(float)` for the common cases (`1.0`, `0.25`), so budgets
/// print as the official SDK prints them.
fn format_budget(usd: f64) -> String {
    if usd.fract() == 0.0 && usd.abs() < 1e16 {
        format!("{usd:.1}")
    } else {
        format!("{usd}")
    }
}

/// Build the argv (without the program). Assumes [`Options::validate`] passed.
pub(crate) fn build(o: &Options, ctx: &CommandContext) -> Result<Vec<OsString>, OptionsError> {
    let mut a = Argv(Vec::with_capacity(16));
    a.flag("--output-format");
    a.flag("stream-json");
    a.flag("--verbose");

    match &o.system_prompt {
        // Blocks travel in `initialize`, which replaces this empty prompt.
        None | Some(SystemPrompt::Blocks { .. }) => {
            a.pair("--system-prompt", "".as_ref(), "system_prompt")?
        }
        Some(SystemPrompt::Text(t) | SystemPrompt::Custom { prompt: t, .. }) => {
            a.pair("--system-prompt", t.as_ref(), "system_prompt")?
        }
        Some(SystemPrompt::Preset {
            append: Some(t), ..
        }) => a.pair("--append-system-prompt", t.as_ref(), "system_prompt")?,
        Some(SystemPrompt::Preset { append: None, .. }) => {}
        Some(SystemPrompt::File(p)) => {
            a.pair("--system-prompt-file", p.as_ref(), "system_prompt")?
        }
    }
    match &o.tools {
        None => {}
        Some(Tools::List(list)) => a.pair("--tools", list.join(",").as_ref(), "tools")?,
        Some(Tools::Preset) => a.pair("--tools", "default".as_ref(), "tools")?,
    }
    let allowed = allowed_tools(o);
    if !allowed.is_empty() {
        a.pair(
            "--allowedTools",
            allowed.join(",").as_ref(),
            "allowed_tools",
        )?;
    }
    if let Some(n) = o.max_turns {
        a.pair("--max-turns", n.to_string().as_ref(), "max_turns")?;
    }
    if let Some(usd) = o.max_budget_usd {
        a.pair(
            "--max-budget-usd",
            format_budget(usd).as_ref(),
            "max_budget_usd",
        )?;
    }
    if !o.disallowed_tools.is_empty() {
        a.pair(
            "--disallowedTools",
            o.disallowed_tools.join(",").as_ref(),
            "disallowed_tools",
        )?;
    }
    if let Some(n) = o.task_budget {
        a.pair("--task-budget", n.to_string().as_ref(), "task_budget")?;
    }
    if let Some(m) = &o.model {
        a.pair("--model", m.as_ref(), "model")?;
    }
    if let Some(name) = &o.agent {
        a.pair("--agent", name.as_ref(), "agent")?;
    }
    if let Some(m) = &o.fallback_model {
        a.pair("--fallback-model", m.as_ref(), "fallback_model")?;
    }
    if !o.betas.is_empty() {
        a.pair("--betas", o.betas.join(",").as_ref(), "betas")?;
    }
    // validate() guarantees at most one of the two.
    if ctx.permission_callback {
        a.pair(
            "--permission-prompt-tool",
            "stdio".as_ref(),
            "permission_prompt_tool_name",
        )?;
    } else if let Some(t) = &o.permission_prompt_tool_name {
        a.pair(
            "--permission-prompt-tool",
            t.as_ref(),
            "permission_prompt_tool_name",
        )?;
    }
    if let Some(who) = o.permission_prompts {
        a.pair(
            "--permission-prompts",
            who.as_str().as_ref(),
            "permission_prompts",
        )?;
    }
    if ctx.session_mirror {
        a.flag("--session-mirror");
    }
    if let Some(m) = o.permission_mode {
        a.pair("--permission-mode", m.as_str().as_ref(), "permission_mode")?;
    }
    if o.allow_dangerously_skip_permissions {
        a.flag("--allow-dangerously-skip-permissions");
    }
    if o.continue_conversation {
        a.flag("--continue");
    }
    if let Some(id) = &o.resume {
        a.eq("--resume", id.as_ref(), "resume")?;
    }
    if let Some(id) = &o.session_id {
        a.eq("--session-id", id.as_ref(), "session_id")?;
    }
    if o.persist_session == Some(false) {
        a.flag("--no-session-persistence");
    }
    if let Some(uuid) = &o.resume_session_at {
        a.eq("--resume-session-at", uuid.as_ref(), "resume_session_at")?;
    }
    // Forwarded even when empty, so the CLI rejects a malformed guard
    // rather than the SDK silently disarming it.
    if let Some(uuid) = &o.resume_drops_turn {
        a.eq("--resume-drops-turn", uuid.as_ref(), "resume_drops_turn")?;
    }
    if let Some(s) = settings_value(o)? {
        a.pair("--settings", &s, "settings")?;
    }
    if let Some(root) = &o.project_config_root {
        a.pair(
            "--project-config-root",
            root.as_ref(),
            "project_config_root",
        )?;
    }
    for dir in &o.add_dirs {
        a.pair("--add-dir", dir.as_ref(), "add_dirs")?;
    }
    match &o.mcp_servers {
        McpServers::Servers(list) if list.is_empty() => {}
        McpServers::Servers(list) => {
            let kept = argv_servers(list, o.mcp_delivery);
            if !kept.is_empty() {
                let doc = to_argv_json(&McpConfigDoc(&kept), "mcp config")?;
                a.pair("--mcp-config", doc.as_ref(), "mcp_servers")?;
            }
        }
        McpServers::Json(text) => a.pair("--mcp-config", text.as_ref(), "mcp_servers")?,
        McpServers::Path(p) => a.pair("--mcp-config", p.as_ref(), "mcp_servers")?,
    }
    // The CLI must read the initialize request at startup to start them.
    if !initialize_servers(&o.mcp_servers, o.mcp_delivery).is_empty() || plugins_in_initialize(o) {
        a.flag("--await-initialize");
    }
    if o.include_partial_messages {
        a.flag("--include-partial-messages");
    }
    if o.include_hook_events {
        a.flag("--include-hook-events");
    }
    if o.strict_mcp_config {
        a.flag("--strict-mcp-config");
    }
    if o.fork_session {
        a.flag("--fork-session");
    }
    if let Some(sources) = setting_sources(o) {
        let joined: Vec<&str> = sources.iter().map(|s| s.as_str()).collect();
        a.eq(
            "--setting-sources",
            joined.join(",").as_ref(),
            "setting_sources",
        )?;
    }
    if !plugins_in_initialize(o) {
        for dir in &o.plugins {
            a.pair("--plugin-dir", dir.as_ref(), "plugins")?;
        }
    }
    if let Some(path) = &o.debug_file {
        a.pair("--debug-file", path.as_ref(), "debug_file")?;
    } else if o.debug {
        a.flag("--debug");
    }
    if let Some(managed) = &o.managed_settings {
        let text = to_argv_json(managed, "managed_settings")?;
        a.pair("--managed-settings", text.as_ref(), "managed_settings")?;
    }
    for (name, value) in &o.extra_args {
        let flag = format!("--{name}");
        match value {
            None => a.flag(&flag),
            Some(v) => a.pair(&flag, v.as_ref(), "extra_args")?,
        }
    }
    match o.thinking {
        None => {}
        Some(Thinking::Adaptive) => a.pair("--thinking", "adaptive".as_ref(), "thinking")?,
        Some(Thinking::Enabled { budget_tokens }) => a.pair(
            "--max-thinking-tokens",
            budget_tokens.to_string().as_ref(),
            "thinking",
        )?,
        Some(Thinking::Disabled) => a.pair("--thinking", "disabled".as_ref(), "thinking")?,
    }
    // validate() guarantees thinking is adaptive or enabled.
    if let Some(d) = o.thinking_display {
        a.pair(
            "--thinking-display",
            d.as_str().as_ref(),
            "thinking_display",
        )?;
    }
    if let Some(e) = o.effort {
        a.pair("--effort", e.as_str().as_ref(), "effort")?;
    }
    if let Some(OutputFormat::JsonSchema(schema)) = &o.output_format {
        let text = to_argv_json(schema, "output_format")?;
        a.pair("--json-schema", text.as_ref(), "output_format")?;
    }
    a.flag("--input-format");
    a.flag("stream-json");
    Ok(a.0)
}

/// Plugins go in `initialize` (and so the CLI must await it). JSON carries
/// only UTF-8, so a list with another path stays on argv, which carries it.
pub(crate) fn plugins_in_initialize(o: &Options) -> bool {
    o.plugin_delivery == PluginDelivery::Initialize
        && !o.plugins.is_empty()
        && o.plugins.iter().all(|p| p.to_str().is_some())
}

/// `allowed_tools` plus the `Skill` rules [`Options::skills`] implies.
fn allowed_tools(o: &Options) -> Vec<String> {
    let mut tools = o.allowed_tools.clone();
    let mut add = |rule: String| {
        if !tools.contains(&rule) {
            tools.push(rule);
        }
    };
    match &o.skills {
        None => {}
        Some(Skills::All) => add("Skill".to_owned()),
        Some(Skills::List(names)) => names.iter().for_each(|n| add(format!("Skill({n})"))),
    }
    tools
}

/// `setting_sources`, defaulting to user and project when skills are set,
/// so the CLI discovers installed skills.
fn setting_sources(o: &Options) -> Option<Vec<SettingSource>> {
    match (&o.setting_sources, &o.skills) {
        (Some(s), _) => Some(s.clone()),
        (None, Some(_)) => Some(vec![SettingSource::User, SettingSource::Project]),
        (None, None) => None,
    }
}

/// The `--settings` value: passed through unless sandbox settings must be
/// merged in, which needs the settings as a JSON object.
fn settings_value(o: &Options) -> Result<Option<OsString>, OptionsError> {
    let Some(sandbox) = &o.sandbox else {
        return Ok(match &o.settings {
            None => None,
            Some(Settings::Json(v)) => Some(to_argv_json(v, "settings")?.into()),
            Some(Settings::JsonText(t)) => Some(t.into()),
            Some(Settings::Path(p)) => Some(p.into()),
        });
    };
    let parsed = match &o.settings {
        None => Value::Object(Map::new()),
        Some(Settings::Json(v)) => v.clone(),
        Some(Settings::JsonText(t)) => {
            serde_json::from_str(t).map_err(|source| OptionsError::Json {
                what: "settings",
                source,
            })?
        }
        Some(Settings::Path(p)) => {
            // Read as the CLI would: relative to its cwd, BOM or not.
            let path = match &o.cwd {
                Some(cwd) if p.is_relative() => cwd.join(p),
                _ => p.clone(),
            };
            let text =
                std::fs::read_to_string(&path).map_err(|source| OptionsError::SettingsFile {
                    path: path.clone(),
                    source,
                })?;
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            serde_json::from_str(text).map_err(|source| OptionsError::Json {
                what: "settings file",
                source,
            })?
        }
    };
    let Value::Object(mut map) = parsed else {
        return Err(OptionsError::SettingsNotObject);
    };
    let sandbox = serde_json::to_value(sandbox).map_err(|source| OptionsError::Json {
        what: "sandbox settings",
        source,
    })?;
    map.insert("sandbox".to_owned(), sandbox);
    Ok(Some(to_argv_json(&Value::Object(map), "settings")?.into()))
}
