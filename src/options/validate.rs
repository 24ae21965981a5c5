//! Checks that run before anything is spawned.

use std::ffi::OsStr;

use super::{CommandContext, McpServers, Options, OptionsError, Skills, Thinking, Tools};

/// A name that goes into a comma-separated list or stands alone after a flag.
fn check_name(option: &'static str, name: &str) -> Result<(), OptionsError> {
    let reason = if name.is_empty() {
        "is empty"
    } else if name.starts_with('-') {
        "starts with '-' and would be read as a flag"
    } else if name.contains(',') {
        "contains ',' and would split the list"
    } else if name.contains(['\n', '\r']) {
        "contains a line break"
    } else if name.contains('\0') {
        "contains a nul byte"
    } else {
        return Ok(());
    };
    Err(OptionsError::InvalidName {
        option,
        name: name.to_owned(),
        reason,
    })
}

fn check_names(option: &'static str, names: &[String]) -> Result<(), OptionsError> {
    names.iter().try_for_each(|n| check_name(option, n))
}

/// A skill name, which becomes a `Skill(name)` rule in `--allowedTools`:
/// the CLI splits rules on commas and spaces outside parentheses and does
/// not unescape before splitting, so delimiters cannot pass through.
fn check_skill_name(name: &str) -> Result<(), OptionsError> {
    check_name("skills", name)?;
    let reason = if name.trim() != name {
        "has leading or trailing whitespace, which never matches"
    } else if name.contains(['(', ')']) || name.chars().any(char::is_control) {
        "contains a parenthesis or a control character"
    } else if name.contains('\u{feff}') {
        "contains a byte-order mark"
    } else if name == "*" {
        "is '*'; use Skills::All for every skill"
    } else if name.ends_with(":*") || name.ends_with(" *") {
        "is a wildcard; list each skill by its exact name"
    } else if name.starts_with('/') {
        "starts with '/'; give the skill's name, not its slash command"
    } else if name.contains("\\\\") || name.ends_with('\\') {
        "has consecutive or trailing backslashes"
    } else {
        return Ok(());
    };
    Err(OptionsError::InvalidName {
        option: "skills",
        name: name.to_owned(),
        reason,
    })
}

/// A value passed as a separate argv element, where a leading `-` is refused.
fn check_flag_value(option: &'static str, value: &str) -> Result<(), OptionsError> {
    if value.is_empty() {
        return Err(OptionsError::EmptyValue { option });
    }
    if value.starts_with('-') {
        return Err(OptionsError::DashValue {
            option,
            value: value.to_owned(),
        });
    }
    Ok(())
}

fn check_non_empty(option: &'static str, value: Option<&String>) -> Result<(), OptionsError> {
    match value {
        Some(v) if v.is_empty() => Err(OptionsError::EmptyValue { option }),
        _ => Ok(()),
    }
}

fn check_session_id(
    option: &'static str,
    context: &'static str,
    value: Option<&str>,
) -> Result<(), OptionsError> {
    match value {
        Some(v) if !crate::session_id::is_session_id(v) => Err(OptionsError::NotASessionId {
            option,
            context,
            value: v.to_owned(),
        }),
        _ => Ok(()),
    }
}

fn check_extra_arg(flag: &str) -> Result<(), OptionsError> {
    let reason = if flag.is_empty() {
        "is empty"
    } else if flag.starts_with('-') {
        "starts with '-'; give the name without dashes"
    } else if flag.contains('=') {
        "contains '='"
    } else if flag.chars().any(char::is_whitespace) {
        "contains whitespace"
    } else if flag.contains('\0') {
        "contains a nul byte"
    } else {
        return Ok(());
    };
    Err(OptionsError::InvalidExtraArg {
        flag: flag.to_owned(),
        reason,
    })
}

fn check_env(key: &OsStr, value: &OsStr) -> Result<(), OptionsError> {
    let k = key.as_encoded_bytes();
    let reason = if k.is_empty() {
        "name is empty"
    } else if k.contains(&b'=') {
        "name contains '='"
    } else if k.contains(&0) {
        "name contains a nul byte"
    } else if value.as_encoded_bytes().contains(&0) {
        "value contains a nul byte"
    } else {
        return Ok(());
    };
    Err(OptionsError::InvalidEnv {
        key: key.to_string_lossy().into_owned(),
        reason,
    })
}

impl Options {
    /// Check every rule that does not need to build the command: names that
    /// could inject flags, conflicting options, out-of-range numbers, a
    /// missing cwd. [`Options::to_command`] runs this first and additionally
    /// refuses NUL bytes in argv values and unreadable settings files.
    ///
    /// This inspects the filesystem (one `stat` of the cwd).
    pub fn validate(&self, ctx: &CommandContext) -> Result<(), OptionsError> {
        if let Some(Tools::List(list)) = &self.tools {
            check_names("tools", list)?;
        }
        check_names("allowed_tools", &self.allowed_tools)?;
        check_names("disallowed_tools", &self.disallowed_tools)?;
        check_names("betas", &self.betas)?;
        if let Some(Skills::List(skills)) = &self.skills {
            skills.iter().try_for_each(|n| check_skill_name(n))?;
        }
        if let Some(a) = &self.agent {
            check_flag_value("agent", a)?;
        }
        if self.thinking_display.is_some()
            && !matches!(
                self.thinking,
                Some(Thinking::Adaptive | Thinking::Enabled { .. })
            )
        {
            return Err(OptionsError::ThinkingDisplayWithoutThinking);
        }
        if let Some(name) = &self.permission_prompt_tool_name {
            if ctx.permission_callback {
                return Err(OptionsError::PermissionPromptConflict {
                    tool_name: name.clone(),
                });
            }
            check_name("permission_prompt_tool_name", name)?;
        }
        if let Some(m) = &self.model {
            check_flag_value("model", m)?;
        }
        if let Some(m) = &self.fallback_model {
            check_flag_value("fallback_model", m)?;
        }
        check_non_empty("resume", self.resume.as_ref())?;
        check_non_empty("session_id", self.session_id.as_ref())?;
        check_non_empty("resume_session_at", self.resume_session_at.as_ref())?;
        check_session_id("session_id", "", self.session_id.as_deref())?;
        if ctx.session_mirror {
            let context = " when a session store restores it";
            check_session_id("resume", context, self.resume.as_deref())?;
        }
        if self.max_turns == Some(0) {
            return Err(OptionsError::ZeroMaxTurns);
        }
        if let Some(usd) = self.max_budget_usd {
            if !(usd.is_finite() && usd >= 0.0) {
                return Err(OptionsError::InvalidBudget { value: usd });
            }
        }
        for (flag, _) in &self.extra_args {
            check_extra_arg(flag)?;
        }
        if let McpServers::Servers(list) = &self.mcp_servers {
            if list.iter().any(|(name, _)| name.is_empty()) {
                return Err(OptionsError::EmptyMcpServerName);
            }
        }
        for (k, v) in &self.env {
            check_env(k, v)?;
        }
        if let Some(cwd) = &self.cwd {
            match std::fs::metadata(cwd) {
                Err(source) => {
                    return Err(OptionsError::CwdMissing {
                        path: cwd.clone(),
                        source,
                    });
                }
                Ok(meta) if !meta.is_dir() => {
                    return Err(OptionsError::CwdNotDirectory { path: cwd.clone() });
                }
                Ok(_) => {}
            }
        }
        Ok(())
    }
}
