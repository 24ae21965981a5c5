//! Typed validation errors raised before anything is spawned.

use std::path::PathBuf;

/// Why [`Options`](super::Options) could not be turned into a command line.
///
/// Every variant is detected by [`Options::validate`](super::Options::validate)
/// (called by [`Options::to_command`](super::Options::to_command)), before any
/// process is spawned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OptionsError {
    /// A tool, skill or beta name that could inject a flag or split a list.
    #[error("invalid name {name:?} in {option}: {reason}")]
    InvalidName {
        /// The option holding the name (`allowed_tools`, `skills`, ...).
        option: &'static str,
        /// The offending name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A value that would be read as a flag where the option does not use the
    /// `--flag=value` form (`model`, `fallback_model`).
    #[error("{option} value {value:?} starts with '-' and would be read as a flag")]
    DashValue {
        /// The option holding the value.
        option: &'static str,
        /// The offending value.
        value: String,
    },
    /// A value that is empty where the CLI needs a non-empty one.
    #[error("{option} must not be empty")]
    EmptyValue {
        /// The option holding the value.
        option: &'static str,
    },
    /// A value containing a NUL byte, which cannot be passed to a process.
    #[error("{option} contains a nul byte")]
    NulByte {
        /// The option holding the value.
        option: &'static str,
    },
    /// A permission callback and a permission-prompt tool were both given; the
    /// callback needs `--permission-prompt-tool stdio` for itself.
    #[error(
        "a permission callback cannot be combined with permission_prompt_tool_name {tool_name:?}"
    )]
    PermissionPromptConflict {
        /// The tool name that conflicts with the callback.
        tool_name: String,
    },
    /// The working directory does not exist or cannot be inspected.
    #[error("working directory {} does not exist or is not accessible", path.display())]
    CwdMissing {
        /// The configured working directory.
        path: PathBuf,
        /// The error from inspecting it.
        #[source]
        source: std::io::Error,
    },
    /// The working directory exists but is not a directory.
    #[error("working directory {} is not a directory", path.display())]
    CwdNotDirectory {
        /// The configured working directory.
        path: PathBuf,
    },
    /// `thinking_display` was set without adaptive or enabled thinking.
    #[error("thinking_display needs thinking set to adaptive or enabled")]
    ThinkingDisplayWithoutThinking,
    /// `max_turns` was zero.
    #[error("max_turns must be at least 1")]
    ZeroMaxTurns,
    /// A session id that is not a UUID where one is required: the CLI
    /// requires one for `session_id`, and a session store restores a
    /// resumed session by its id (which is then a file name: `../x` must
    /// never reach it).
    #[error("{option} must be a session UUID{context}, got {value:?}")]
    NotASessionId {
        /// The option (`session_id`, `resume`).
        option: &'static str,
        /// Why a UUID is required here, if not always.
        context: &'static str,
        /// The rejected value.
        value: String,
    },
    /// `max_budget_usd` was negative, NaN or infinite.
    #[error("max_budget_usd must be a finite, non-negative number, got {value}")]
    InvalidBudget {
        /// The rejected value.
        value: f64,
    },
    /// An `extra_args` flag name that is empty or would not be one flag.
    #[error("invalid extra_args flag {flag:?}: {reason}")]
    InvalidExtraArg {
        /// The offending flag name (without the leading `--`).
        flag: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An MCP server with an empty name.
    #[error("mcp server name must not be empty")]
    EmptyMcpServerName,
    /// An environment variable name or value that cannot be set.
    #[error("invalid environment variable {key:?}: {reason}")]
    InvalidEnv {
        /// The variable name, lossily decoded.
        key: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The settings file (needed to merge sandbox settings) could not be read.
    #[error("cannot read settings file {}", path.display())]
    SettingsFile {
        /// The settings path.
        path: PathBuf,
        /// The read error.
        #[source]
        source: std::io::Error,
    },
    /// The settings are not a JSON object, so sandbox settings cannot be merged.
    #[error("settings must be a json object to merge sandbox settings into")]
    SettingsNotObject,
    /// The CLI cannot run as [`Options::user`](super::Options::user): no such
    /// user, or this process may not switch to it.
    #[error("cannot run the CLI as the configured user")]
    User(#[source] claude_agent_actors::process::UserError),
    /// JSON could not be parsed or produced.
    #[error("invalid json in {what}")]
    Json {
        /// What was being parsed or written (`settings file`, `mcp config`...).
        what: &'static str,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
}
