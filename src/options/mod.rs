//! [`Options`] for a Claude Code session, and their mapping to the CLI's argv
//! and environment ([`Options::to_command`]) and to the `initialize` control
//! request ([`Options::initialize_request`]).
//!
//! Each field is set one way, by a consuming builder method of the same
//! name (except where the method's docs say it sets another); the fields a
//! program commonly reads back have `get_` getters:
//!
//! ```
//! use claude_agent::options::{CommandContext, Options, PermissionMode};
//! use std::path::PathBuf;
//!
//! let opts = Options::new()
//!     .model("claude-sonnet-4-5")
//!     .max_turns(3)
//!     .allowed_tools(["Read", "Grep"])
//!     .permission_mode(PermissionMode::AcceptEdits);
//! let cmd = opts.to_command(PathBuf::from("claude"), &CommandContext::default())?;
//! assert!(cmd.args.iter().any(|a| a == "--max-turns"));
//! # Ok::<(), claude_agent::options::OptionsError>(())
//! ```
//!
//! # Flag injection
//!
//! The CLI parses its argv with flags that take values, so a value beginning
//! with `-` could be read as a flag. The rules, per option:
//!
//! - `resume`, `session_id`, `resume_session_at`, `setting_sources` always use
//!   `--flag=value`.
//! - Free text and paths (`system_prompt` text, appended prompt, prompt file,
//!   `settings`, `managed_settings`, `mcp_servers` JSON or path, `add_dirs`,
//!   `project_config_root`, `plugins`, `debug_file`, `output_format`,
//!   `extra_args` values) use a separate argv element like
//!   the official SDKs, and switch to `--flag=value` when the value starts
//!   with `-`: a prompt may legitimately start with `- `.
//! - Names (`model`, `fallback_model`, `permission_prompt_tool_name`, tools,
//!   skills, betas) are rejected with a typed [`OptionsError`] when they start
//!   with `-`: no valid name does, so it is a mistake or an attack.
//! - Any value containing a NUL byte is rejected.

mod agent;
mod argv;
mod builder;
mod builder_more;
mod capability;
mod command;
mod default_mode;
mod denied_models;
mod env;
mod error;
mod getters;
mod initialize;
mod json;
mod mcp;
mod mcp_delivery;
mod mcp_policy;
mod mcp_setters;
mod model_id;
mod sandbox;
mod tool_config;
mod types;
mod validate;
mod workspace_trust;

#[cfg(test)]
mod argv_tests;
#[cfg(test)]
mod default_mode_tests;
#[cfg(test)]
mod later_options_tests;
#[cfg(test)]
mod newer_options_tests;
#[cfg(test)]
mod validate_tests;
#[cfg(test)]
mod workspace_trust_tests;

pub use agent::AgentDefinition;
pub use capability::CapabilityError;
pub use command::{CliCommand, CommandContext};
pub use default_mode::filter_escalating_default_mode;
pub use denied_models::{DeniedModelsMatch, match_denied_models};
pub use error::OptionsError;
pub use mcp::{McpServerConfig, McpServers};
pub use mcp_delivery::McpDelivery;
pub use mcp_policy::{McpOrgMaxPermission, McpPermissionPolicy, McpToolPolicy};
pub use sandbox::{SandboxNetwork, SandboxSettings};
pub use tool_config::{PreviewFormat, ToolConfig};
pub use types::{
    Effort, OutputFormat, PermissionMode, PermissionPrompts, PluginDelivery,
    SYSTEM_PROMPT_DYNAMIC_BOUNDARY, SettingSource, Settings, Skills, SystemPrompt, Thinking,
    ThinkingDisplay, Tools,
};
pub use workspace_trust::WorkspaceTrust;

use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

/// Everything that configures one Claude Code session, as in the official
/// Agent SDKs. See the [module docs](self) for how values reach the CLI.
///
/// Callbacks (permission prompts, hooks, in-process MCP tools) are not here:
/// the SDK layer owns them and tells [`Options::to_command`] and
/// [`Options::initialize_request`] about them.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Options {
    /// Base tool set (`--tools`); unset keeps the CLI's default.
    pub(crate) tools: Option<Tools>,
    /// Tools allowed without asking (`--allowedTools a,b`).
    pub(crate) allowed_tools: Vec<String>,
    /// Tools removed from the model's context (`--disallowedTools a,b`).
    pub(crate) disallowed_tools: Vec<String>,
    /// System prompt; unset sends `--system-prompt ""`.
    pub(crate) system_prompt: Option<SystemPrompt>,
    /// MCP servers (`--mcp-config`, and `initialize` for the external
    /// servers of a list: see [`McpDelivery`]).
    pub(crate) mcp_servers: McpServers,
    /// Where external MCP servers (and their `env` and `headers`) go;
    /// builder method `mcp_delivery`.
    pub(crate) mcp_delivery: McpDelivery,
    /// Use only the MCP servers given here (`--strict-mcp-config`).
    pub(crate) strict_mcp_config: bool,
    /// Permission mode (`--permission-mode`).
    pub(crate) permission_mode: Option<PermissionMode>,
    /// MCP tool that answers permission prompts (`--permission-prompt-tool`).
    /// Cannot be combined with a permission callback.
    pub(crate) permission_prompt_tool_name: Option<String>,
    /// Continue the most recent conversation in the cwd (`--continue`).
    pub(crate) continue_conversation: bool,
    /// Resume this session (`--resume=ID`).
    pub(crate) resume: Option<String>,
    /// Use this id for the new session (`--session-id=ID`).
    pub(crate) session_id: Option<String>,
    /// Resume only up to this message (`--resume-session-at=UUID`).
    pub(crate) resume_session_at: Option<String>,
    /// With `resume_session_at`: the uuid of the user prompt whose turn the
    /// truncating resume discards (`--resume-drops-turn=UUID`). The CLI
    /// then refuses the resume ("Resume rejected by --resume-drops-turn:")
    /// when anything else would be dropped with it.
    pub(crate) resume_drops_turn: Option<String>,
    /// `Some(false)`: do not write the session to disk; it cannot be resumed
    /// (`--no-session-persistence`). Unset or `true`: the CLI persists.
    pub(crate) persist_session: Option<bool>,
    /// Resume into a new session id instead of appending (`--fork-session`).
    pub(crate) fork_session: bool,
    /// Maximum agentic turns (`--max-turns N`); must be at least 1.
    pub(crate) max_turns: Option<u32>,
    /// Spending cap in USD (`--max-budget-usd X`); finite and non-negative.
    pub(crate) max_budget_usd: Option<f64>,
    /// API-side task budget in tokens (`--task-budget N`): the model sees
    /// what remains and paces itself.
    pub(crate) task_budget: Option<u64>,
    /// Model (`--model`).
    pub(crate) model: Option<String>,
    /// Run the main thread as this agent (`--agent NAME`): one of
    /// [`agents`](Self::agents) or an agent the CLI discovers. Builder:
    /// [`main_agent`](Self::main_agent) (`agent` adds a subagent).
    pub(crate) agent: Option<String>,
    /// Model used when the main one is overloaded (`--fallback-model`).
    pub(crate) fallback_model: Option<String>,
    /// API beta headers (`--betas a,b`).
    pub(crate) betas: Vec<String>,
    /// Extra settings (`--settings`).
    pub(crate) settings: Option<Settings>,
    /// Sandbox settings, merged into the settings JSON under `sandbox`.
    pub(crate) sandbox: Option<SandboxSettings>,
    /// Extra directories the tools may access (`--add-dir D`, repeated).
    pub(crate) add_dirs: Vec<PathBuf>,
    /// Emit `stream_event` partial messages (`--include-partial-messages`).
    pub(crate) include_partial_messages: bool,
    /// Emit hook lifecycle system messages (`--include-hook-events`).
    pub(crate) include_hook_events: bool,
    /// Which setting files the CLI loads (`--setting-sources=a,b`); unset
    /// keeps the CLI's default, empty loads none.
    pub(crate) setting_sources: Option<Vec<SettingSource>>,
    /// Local plugin directories (`--plugin-dir P`, repeated).
    pub(crate) plugins: Vec<PathBuf>,
    /// Extended thinking.
    pub(crate) thinking: Option<Thinking>,
    /// Summarized or omitted thinking text (`--thinking-display`); needs
    /// `thinking` adaptive or enabled.
    pub(crate) thinking_display: Option<ThinkingDisplay>,
    /// Reasoning effort (`--effort`).
    pub(crate) effort: Option<Effort>,
    /// Structured output (`--json-schema`).
    pub(crate) output_format: Option<OutputFormat>,
    /// Flags this crate does not know, in order: `(name, value)` becomes
    /// `--name`, `--name value`, or `--name=value` when value starts with `-`.
    pub(crate) extra_args: Vec<(String, Option<String>)>,
    /// Names your app in the CLI's User-Agent (`CLAUDE_AGENT_SDK_CLIENT_APP`,
    /// e.g. `my-app/1.0`); wins over the same variable in `env`.
    pub(crate) client_app: Option<String>,
    /// Environment variables for the CLI, over the inherited ones.
    pub(crate) env: Vec<(OsString, OsString)>,
    /// Working directory of the CLI; must exist.
    pub(crate) cwd: Option<PathBuf>,
    /// Path to the CLI; unset means [discovery](crate::discovery).
    pub(crate) cli_path: Option<PathBuf>,
    /// Run the CLI as this OS user (a login name or a numeric uid): its uid,
    /// gid and groups, with `HOME`, `USER` and `LOGNAME` set from its
    /// account unless `env` sets them. Needs root (or `CAP_SETUID` and
    /// `CAP_SETGID`); applied when the client spawns the CLI, which fails
    /// with [`OptionsError::User`] when the user is unknown or the switch
    /// is not allowed. Linux only.
    pub(crate) user: Option<String>,
    /// Let the CLI checkpoint files for `rewind_files`
    /// (`CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true`).
    pub(crate) enable_file_checkpointing: bool,
    /// Programmatic subagents, sent in `initialize`.
    pub(crate) agents: Vec<(String, AgentDefinition)>,
    /// Skills the session may use (see [`Skills`]); unset leaves the CLI's
    /// defaults untouched.
    pub(crate) skills: Option<Skills>,
    /// Forward subagents' text to the stream (`forwardSubagentText` in
    /// `initialize`).
    pub(crate) forward_subagent_text: bool,
    /// Send every user message marked `client_composed`, so the CLI delivers
    /// its text as written: no `@path` file expansion, no slash commands.
    /// For text the end user did not type. While on, no message can opt
    /// out; for per-message control leave it off and use
    /// [`Prompt::verbatim`](crate::client::Prompt::verbatim). The CLI then also
    /// skips the context it attaches at the start of a turn (nested
    /// `CLAUDE.md`, skill listings, reminders) until the turn's first tool
    /// call. Claude Code 2.1.248 or later; older versions ignore it.
    pub(crate) verbatim_prompts: bool,
    /// Further `initialize` fields this crate has no option for, sent as
    /// given. A field an option above sets, and `subtype` and `hooks`, are
    /// not replaced. Builder: [`initialize_field`](Self::initialize_field).
    pub(crate) initialize_extra: serde_json::Map<String, Value>,
    /// The trusted checkout `cwd` is a worktree of: project settings,
    /// `.mcp.json`, the `.claude` trees and `CLAUDE_PROJECT_DIR` come from
    /// here instead of `cwd` (`--project-config-root DIR`; an absolute
    /// path).
    pub(crate) project_config_root: Option<PathBuf>,
    /// Tool-name aliases, single hop: a model `tool_use` named by a key runs
    /// the tool its value names (`toolAliases` in `initialize`). Builder:
    /// [`tool_alias`](Self::tool_alias), one pair at a time.
    pub(crate) tool_aliases: Vec<(String, String)>,
    /// Settings of built-in tools (`toolConfig`, through the CLI's
    /// environment).
    pub(crate) tool_config: Option<ToolConfig>,
    /// Declare that this host shows a stop control per background task
    /// wired to `stop_task`, so an interrupt spares running background
    /// agents (`perTaskStopAffordance` in `initialize`).
    pub(crate) per_task_stop_affordance: bool,
    /// Workflow text that replaces the default body of the plan-mode
    /// reminder (`planModeInstructions` in `initialize`).
    pub(crate) plan_mode_instructions: Option<String>,
    /// Allow `bypassPermissions` in this session
    /// (`--allow-dangerously-skip-permissions`).
    pub(crate) allow_dangerously_skip_permissions: bool,
    /// Who answers permission prompts (`--permission-prompts`).
    pub(crate) permission_prompts: Option<PermissionPrompts>,
    /// How [`plugins`](Self::plugins) reach the CLI.
    pub(crate) plugin_delivery: PluginDelivery,
    /// Emit a `prompt_suggestion` after each turn (`promptSuggestions` in
    /// `initialize`); `false` turns them off where settings turn them on.
    pub(crate) prompt_suggestions: Option<bool>,
    /// AI-written progress summaries for running subagents on
    /// `task_progress` (`agentProgressSummaries` in `initialize`).
    pub(crate) agent_progress_summaries: Option<bool>,
    /// Policy-tier settings from this parent process (`--managed-settings
    /// JSON`); the CLI keeps only their restrictive parts.
    pub(crate) managed_settings: Option<serde_json::Map<String, Value>>,
    /// Debug logging (`--debug`); [`debug_file`](Self::debug_file) wins.
    pub(crate) debug: bool,
    /// Write debug logs to this file (`--debug-file PATH`).
    pub(crate) debug_file: Option<PathBuf>,
    /// Title of a new session, instead of one generated from the first
    /// prompt (`title` in `initialize`); a resumed session keeps its own.
    pub(crate) title: Option<String>,
    /// Bound on each session-store call while restoring a session before
    /// the spawn (`loadTimeoutMs`); unset: 60 s.
    pub(crate) load_timeout: Option<Duration>,
    /// The host's word that the user accepted a trust dialog for the
    /// session's directory (`workspaceTrust` in `initialize`); the CLI
    /// persists the grant as its own dialog would. Not sent by
    /// [`ClientBuilder::prewarm`](crate::client::ClientBuilder::prewarm): a spare
    /// takes it at the claim ([`Claim::workspace_trust`](crate::client::Claim::workspace_trust)).
    pub(crate) workspace_trust: Option<WorkspaceTrust>,
}

impl Options {
    /// Options with every field unset: the CLI's defaults and an empty system
    /// prompt.
    pub fn new() -> Self {
        Self::default()
    }
}
