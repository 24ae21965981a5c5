//! Small value types used by [`Options`](super::Options).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::PathBuf;

/// The base set of tools the model may use (`--tools`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tools {
    /// Exactly these tools; an empty list disables every built-in tool
    /// (`--tools ""`).
    List(Vec<String>),
    /// The `claude_code` preset, i.e. the CLI's default set (`--tools default`).
    Preset,
}

/// The system prompt (`--system-prompt`, `--append-system-prompt`,
/// `--system-prompt-file`).
///
/// Leaving it unset sends `--system-prompt ""`: like the official SDKs, an
/// embedded session gets no Claude Code system prompt unless asked for one.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SystemPrompt {
    /// Replace the system prompt with this text.
    Text(String),
    /// The `claude_code` preset, optionally with text appended.
    Preset {
        /// Text appended to the preset (`--append-system-prompt`).
        append: Option<String>,
        /// Move per-session context (cwd, git status...) out of the system
        /// prompt so it can be cached across sessions; sent in `initialize`
        /// as `excludeDynamicSections`.
        exclude_dynamic_sections: Option<bool>,
        /// Record the rendered prompt on the first request and send the
        /// record on every later one, resumes included, until compaction
        /// (`systemPromptSnapshot`; see [`Custom`](Self::Custom)).
        snapshot: Option<bool>,
    },
    /// Read the system prompt from a file (`--system-prompt-file`).
    File(PathBuf),
    /// Replace the system prompt with this text, like [`Text`](Self::Text),
    /// and say whether the session keeps the prompt it recorded on its first
    /// request (`systemPromptSnapshot` in `initialize`).
    Custom {
        /// The system prompt (`--system-prompt`).
        prompt: String,
        /// `true`: every later request, resumes included, sends the recorded
        /// prompt until compaction; `false`: rebuilt on every request; unset:
        /// the CLI's default (recorded). Claude Code 2.1.257 or later.
        snapshot: Option<bool>,
    },
    /// A custom system prompt as blocks (TS `systemPrompt: string[]`), sent
    /// in `initialize` as `systemPrompt`. An element equal to
    /// [`SYSTEM_PROMPT_DYNAMIC_BOUNDARY`] marks where the static prefix,
    /// cacheable across sessions, ends and the per-session suffix begins.
    /// The command line carries `--system-prompt ""`, which the blocks
    /// replace once the CLI reads `initialize`.
    Blocks {
        /// The blocks, in order.
        blocks: Vec<String>,
        /// As for [`Custom`](Self::Custom): whether the rendered prompt is
        /// recorded once and reused (`systemPromptSnapshot`).
        snapshot: Option<bool>,
    },
}

/// The block that splits a [`SystemPrompt::Blocks`] prompt into its
/// cacheable prefix and its per-session suffix (the TS SDK's
/// `SYSTEM_PROMPT_DYNAMIC_BOUNDARY`).
pub const SYSTEM_PROMPT_DYNAMIC_BOUNDARY: &str = "__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__";

impl SystemPrompt {
    /// A custom system prompt given as blocks (see [`Blocks`](Self::Blocks)).
    pub fn blocks<I: IntoIterator<Item = S>, S: Into<String>>(blocks: I) -> Self {
        Self::Blocks {
            blocks: blocks.into_iter().map(Into::into).collect(),
            snapshot: None,
        }
    }

    /// The `claude_code` preset with nothing appended.
    pub fn preset() -> Self {
        Self::Preset {
            append: None,
            exclude_dynamic_sections: None,
            snapshot: None,
        }
    }

    /// The `claude_code` preset with `text` appended.
    pub fn preset_append(text: impl Into<String>) -> Self {
        Self::Preset {
            append: Some(text.into()),
            exclude_dynamic_sections: None,
            snapshot: None,
        }
    }

    /// Whether the session records its rendered system prompt once and
    /// reuses it (`true`, the CLI's default) or renders it fresh on every
    /// request (`false`, for a host that changes its `append` within a
    /// session). Text becomes [`Custom`](Self::Custom); a file prompt has
    /// no such setting and is returned as it is.
    pub fn snapshot(self, on: bool) -> Self {
        match self {
            Self::Preset {
                append,
                exclude_dynamic_sections,
                ..
            } => Self::Preset {
                append,
                exclude_dynamic_sections,
                snapshot: Some(on),
            },
            Self::Text(prompt) | Self::Custom { prompt, .. } => Self::Custom {
                prompt,
                snapshot: Some(on),
            },
            Self::Blocks { blocks, .. } => Self::Blocks {
                blocks,
                snapshot: Some(on),
            },
            file @ Self::File(_) => file,
        }
    }
}

/// How tool permissions are decided (`--permission-mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum PermissionMode {
    /// Ask for anything not allowed by rules.
    Default,
    /// Accept file edits without asking.
    AcceptEdits,
    /// Plan only; no tool executes.
    Plan,
    /// Allow everything.
    BypassPermissions,
    /// Deny anything not pre-approved instead of asking.
    DontAsk,
    /// Let the CLI's classifier decide.
    Auto,
}

impl PermissionMode {
    /// Every mode, in the CLI's documentation order.
    pub const ALL: [Self; 6] = [
        Self::Default,
        Self::AcceptEdits,
        Self::Plan,
        Self::BypassPermissions,
        Self::DontAsk,
        Self::Auto,
    ];

    /// The mode with this CLI spelling (`acceptEdits`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The CLI's spelling of this mode.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::AcceptEdits => "acceptEdits",
            Self::Plan => "plan",
            Self::BypassPermissions => "bypassPermissions",
            Self::DontAsk => "dontAsk",
            Self::Auto => "auto",
        }
    }
}

/// Extended thinking (`--thinking`, `--max-thinking-tokens`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// The model decides how much to think (`--thinking adaptive`).
    Adaptive,
    /// Think with a fixed token budget (`--max-thinking-tokens N`).
    Enabled {
        /// Maximum thinking tokens per model call.
        budget_tokens: u32,
    },
    /// No extended thinking (`--thinking disabled`).
    Disabled,
}

/// Whether thinking text comes back summarized or omitted
/// (`--thinking-display`); recent models omit it unless asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ThinkingDisplay {
    /// `summarized`: thinking blocks carry summarized text.
    Summarized,
    /// `omitted`: thinking blocks carry only a signature.
    Omitted,
    /// `highlights`: one short title per stretch of thinking (sessions
    /// Anthropic hosts; elsewhere the CLI refuses it or falls back to
    /// `omitted`).
    Highlights,
}

impl ThinkingDisplay {
    /// The CLI's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Summarized => "summarized",
            Self::Omitted => "omitted",
            Self::Highlights => "highlights",
        }
    }
}

/// Which skills the session may use.
///
/// Either form also allows the `Skill` tool for them (`Skill` or
/// `Skill(name)` in `--allowedTools`) and, when
/// [`setting_sources`](super::Options::setting_sources) is unset, loads the
/// `user` and `project` settings so the CLI discovers installed skills.
/// This filters the model's listing; it is not a sandbox (skill files stay
/// readable with Read or Bash).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Skills {
    /// Every discovered skill.
    All,
    /// Only these skills (directory name, or `plugin:skill`); sent in
    /// `initialize`. Empty hides every skill.
    List(Vec<String>),
}

/// Reasoning effort (`--effort`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Effort {
    /// `low`
    Low,
    /// `medium`
    Medium,
    /// `high`
    High,
    /// `xhigh`
    Xhigh,
    /// `max`
    Max,
}

impl Effort {
    /// The CLI's spelling of this level.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Xhigh => "xhigh",
            Self::Max => "max",
        }
    }
}

/// Where the CLI loads settings from (`--setting-sources=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SettingSource {
    /// `~/.claude/settings.json`
    User,
    /// `.claude/settings.json` in the project.
    Project,
    /// `.claude/settings.local.json` in the project.
    Local,
}

impl SettingSource {
    /// The CLI's spelling of this source.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Local => "local",
        }
    }
}

/// Structured output for the final result.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// The result must match this JSON schema (`--json-schema JSON`).
    JsonSchema(Value),
}

/// Extra settings for the CLI (`--settings`).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Settings {
    /// Settings given inline as a JSON value.
    Json(Value),
    /// Settings given inline as JSON text, passed through unchanged.
    JsonText(String),
    /// A settings file. Passed as a path unless sandbox settings must be
    /// merged in, in which case it is read when the command is built.
    Path(PathBuf),
}

/// Who answers permission prompts (`--permission-prompts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionPrompts {
    /// `host`, the CLI's default: this process answers, through the
    /// permission callback or `permission_prompt_tool_name`.
    Host,
    /// `none`: nobody answers. The permission mode, rules and hooks still
    /// decide; anything that would prompt is denied at once, with a message
    /// telling the model the session has no approval surface, and the
    /// permission callback is never called.
    None,
}

impl PermissionPrompts {
    /// The CLI's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Host => "host",
            Self::None => "none",
        }
    }
}

/// How [`plugin`](super::Options::plugin) directories reach the CLI.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum PluginDelivery {
    /// One `--plugin-dir` flag per plugin (the default; any CLI version).
    #[default]
    Argv,
    /// The list travels in the `initialize` request (`plugins`) and the CLI
    /// starts with `--await-initialize`, so the command line does not grow
    /// with the plugin count. Claude Code 2.1.261 or later. A list with a
    /// path that is not UTF-8 stays on the command line.
    Initialize,
}
