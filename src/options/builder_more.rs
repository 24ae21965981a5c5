//! Builder methods for the options the TypeScript SDK added later (project
//! config root, tool aliases, permission prompts, plugin delivery, debug
//! output, title, ...), one per [`Options`] field.

use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

use super::{Options, PermissionPrompts, PluginDelivery, ToolConfig, WorkspaceTrust};

impl Options {
    /// The trusted checkout `cwd` is a worktree of (absolute path).
    pub fn project_config_root(mut self, dir: impl Into<PathBuf>) -> Self {
        self.project_config_root = Some(dir.into());
        self
    }

    /// Route the model's `tool_use` named `name` to the tool `target`
    /// (replacing an earlier alias of `name`).
    pub fn tool_alias(mut self, name: impl Into<String>, target: impl Into<String>) -> Self {
        let name = name.into();
        self.tool_aliases.retain(|(n, _)| *n != name);
        self.tool_aliases.push((name, target.into()));
        self
    }

    /// Settings of built-in tools.
    pub fn tool_config(mut self, config: ToolConfig) -> Self {
        self.tool_config = Some(config);
        self
    }

    /// Declare a per-task stop control (interrupts spare background agents).
    pub fn per_task_stop_affordance(mut self, on: bool) -> Self {
        self.per_task_stop_affordance = on;
        self
    }

    /// Workflow text for the plan-mode reminder.
    pub fn plan_mode_instructions(mut self, text: impl Into<String>) -> Self {
        self.plan_mode_instructions = Some(text.into());
        self
    }

    /// Allow `bypassPermissions`.
    pub fn allow_dangerously_skip_permissions(mut self, on: bool) -> Self {
        self.allow_dangerously_skip_permissions = on;
        self
    }

    /// Who answers permission prompts.
    pub fn permission_prompts(mut self, who: PermissionPrompts) -> Self {
        self.permission_prompts = Some(who);
        self
    }

    /// How plugins reach the CLI.
    pub fn plugin_delivery(mut self, delivery: PluginDelivery) -> Self {
        self.plugin_delivery = delivery;
        self
    }

    /// Prompt suggestions after each turn.
    pub fn prompt_suggestions(mut self, on: bool) -> Self {
        self.prompt_suggestions = Some(on);
        self
    }

    /// Progress summaries for running subagents.
    pub fn agent_progress_summaries(mut self, on: bool) -> Self {
        self.agent_progress_summaries = Some(on);
        self
    }

    /// Policy-tier settings from this process.
    pub fn managed_settings(mut self, settings: serde_json::Map<String, Value>) -> Self {
        self.managed_settings = Some(settings);
        self
    }

    /// Debug logging.
    pub fn debug(mut self, on: bool) -> Self {
        self.debug = on;
        self
    }

    /// Debug logs to this file.
    pub fn debug_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.debug_file = Some(path.into());
        self
    }

    /// Title of a new session.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Bound on each session-store call while restoring a session.
    pub fn load_timeout(mut self, timeout: Duration) -> Self {
        self.load_timeout = Some(timeout);
        self
    }

    /// The user accepted a trust dialog for the session's directory
    /// (`workspaceTrust` in `initialize`).
    pub fn workspace_trust(mut self, trust: WorkspaceTrust) -> Self {
        self.workspace_trust = Some(trust);
        self
    }
}
