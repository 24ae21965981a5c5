//! Consuming builder methods, one per [`Options`] field.

use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;

use super::{
    AgentDefinition, Effort, McpDelivery, McpServerConfig, McpServers, Options, OutputFormat,
    PermissionMode, SandboxSettings, SettingSource, Settings, Skills, SystemPrompt, Thinking,
    ThinkingDisplay, Tools,
};

fn strings<I: IntoIterator<Item = S>, S: Into<String>>(items: I) -> Vec<String> {
    items.into_iter().map(Into::into).collect()
}

impl Options {
    /// Set the base tool set to exactly these tools (`[]` disables all).
    pub fn tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.tools = Some(Tools::List(strings(tools)));
        self
    }

    /// Use the CLI's default tool set (`--tools default`).
    pub fn tools_preset(mut self) -> Self {
        self.tools = Some(Tools::Preset);
        self
    }

    /// Tools allowed without asking.
    pub fn allowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.allowed_tools = strings(tools);
        self
    }

    /// Tools removed from the model's context.
    pub fn disallowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tools: I,
    ) -> Self {
        self.disallowed_tools = strings(tools);
        self
    }

    /// The system prompt (text, preset or file).
    pub fn system_prompt(mut self, prompt: SystemPrompt) -> Self {
        self.system_prompt = Some(prompt);
        self
    }

    /// Add (or replace) a named MCP server.
    pub fn mcp_server(mut self, name: impl Into<String>, config: McpServerConfig) -> Self {
        let name = name.into();
        if !matches!(self.mcp_servers, McpServers::Servers(_)) {
            self.mcp_servers = McpServers::default();
        }
        if let McpServers::Servers(list) = &mut self.mcp_servers {
            list.retain(|(n, _)| *n != name);
            list.push((name, config));
        }
        self
    }

    /// Set the MCP configuration wholesale (servers, JSON text or path).
    pub fn mcp_servers(mut self, servers: McpServers) -> Self {
        self.mcp_servers = servers;
        self
    }

    /// Where the external MCP servers of a list go (default: the
    /// `initialize` request, keeping their secrets off the command line).
    pub fn mcp_delivery(mut self, delivery: McpDelivery) -> Self {
        self.mcp_delivery = delivery;
        self
    }

    /// Use only the MCP servers configured here.
    pub fn strict_mcp_config(mut self, on: bool) -> Self {
        self.strict_mcp_config = on;
        self
    }

    /// The permission mode.
    pub fn permission_mode(mut self, mode: PermissionMode) -> Self {
        self.permission_mode = Some(mode);
        self
    }

    /// An MCP tool that answers permission prompts.
    pub fn permission_prompt_tool_name(mut self, name: impl Into<String>) -> Self {
        self.permission_prompt_tool_name = Some(name.into());
        self
    }

    /// Continue the most recent conversation.
    pub fn continue_conversation(mut self, on: bool) -> Self {
        self.continue_conversation = on;
        self
    }

    /// Resume a session by id.
    pub fn resume(mut self, session_id: impl Into<String>) -> Self {
        self.resume = Some(session_id.into());
        self
    }

    /// Use this id for the new session.
    pub fn session_id(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = Some(session_id.into());
        self
    }

    /// Resume only up to this message uuid.
    pub fn resume_session_at(mut self, message_uuid: impl Into<String>) -> Self {
        self.resume_session_at = Some(message_uuid.into());
        self
    }

    /// Fork into a new session id when resuming.
    pub fn fork_session(mut self, on: bool) -> Self {
        self.fork_session = on;
        self
    }

    /// Maximum agentic turns (at least 1).
    pub fn max_turns(mut self, turns: u32) -> Self {
        self.max_turns = Some(turns);
        self
    }

    /// Spending cap in USD.
    pub fn max_budget_usd(mut self, usd: f64) -> Self {
        self.max_budget_usd = Some(usd);
        self
    }

    /// The model.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The fallback model.
    pub fn fallback_model(mut self, model: impl Into<String>) -> Self {
        self.fallback_model = Some(model.into());
        self
    }

    /// API beta headers.
    pub fn betas<I: IntoIterator<Item = S>, S: Into<String>>(mut self, betas: I) -> Self {
        self.betas = strings(betas);
        self
    }

    /// Extra settings (JSON value, JSON text or path).
    pub fn settings(mut self, settings: Settings) -> Self {
        self.settings = Some(settings);
        self
    }

    /// Sandbox settings, merged into the settings under `sandbox`.
    pub fn sandbox(mut self, sandbox: SandboxSettings) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// Add a directory the tools may access.
    pub fn add_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.add_dirs.push(dir.into());
        self
    }

    /// Emit partial `stream_event` messages.
    pub fn include_partial_messages(mut self, on: bool) -> Self {
        self.include_partial_messages = on;
        self
    }

    /// Emit hook lifecycle messages.
    pub fn include_hook_events(mut self, on: bool) -> Self {
        self.include_hook_events = on;
        self
    }

    /// Which setting files to load (empty loads none).
    pub fn setting_sources<I: IntoIterator<Item = SettingSource>>(mut self, sources: I) -> Self {
        self.setting_sources = Some(sources.into_iter().collect());
        self
    }

    /// Add a local plugin directory.
    pub fn plugin(mut self, dir: impl Into<PathBuf>) -> Self {
        self.plugins.push(dir.into());
        self
    }

    /// Extended thinking.
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.thinking = Some(thinking);
        self
    }

    /// Reasoning effort.
    pub fn effort(mut self, effort: Effort) -> Self {
        self.effort = Some(effort);
        self
    }

    /// Structured output.
    pub fn output_format(mut self, format: OutputFormat) -> Self {
        self.output_format = Some(format);
        self
    }

    /// Append a flag this crate does not know (`name` without `--`).
    pub fn extra_arg(mut self, name: impl Into<String>, value: Option<String>) -> Self {
        self.extra_args.push((name.into(), value));
        self
    }

    /// Set an environment variable for the CLI.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The CLI's working directory.
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Path to the CLI.
    pub fn cli_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.cli_path = Some(path.into());
        self
    }

    /// Run the CLI as this user.
    pub fn user(mut self, user: impl Into<String>) -> Self {
        self.user = Some(user.into());
        self
    }

    /// Enable file checkpointing.
    pub fn enable_file_checkpointing(mut self, on: bool) -> Self {
        self.enable_file_checkpointing = on;
        self
    }

    /// Add (or replace) a named subagent.
    pub fn agent(mut self, name: impl Into<String>, agent: AgentDefinition) -> Self {
        let name = name.into();
        self.agents.retain(|(n, _)| *n != name);
        self.agents.push((name, agent));
        self
    }

    /// Enable only these skills (empty hides them all).
    pub fn skills<I: IntoIterator<Item = S>, S: Into<String>>(mut self, skills: I) -> Self {
        self.skills = Some(Skills::List(strings(skills)));
        self
    }

    /// Enable every discovered skill.
    pub fn skills_all(mut self) -> Self {
        self.skills = Some(Skills::All);
        self
    }

    /// The uuid of the prompt whose turn a truncating resume discards.
    pub fn resume_drops_turn(mut self, prompt_uuid: impl Into<String>) -> Self {
        self.resume_drops_turn = Some(prompt_uuid.into());
        self
    }

    /// `false`: keep the session off disk (it cannot be resumed).
    pub fn persist_session(mut self, on: bool) -> Self {
        self.persist_session = Some(on);
        self
    }

    /// API-side task budget in tokens.
    pub fn task_budget(mut self, tokens: u64) -> Self {
        self.task_budget = Some(tokens);
        self
    }

    /// Summarized or omitted thinking text.
    pub fn thinking_display(mut self, display: ThinkingDisplay) -> Self {
        self.thinking_display = Some(display);
        self
    }

    /// Run the main thread as this agent.
    pub fn main_agent(mut self, name: impl Into<String>) -> Self {
        self.agent = Some(name.into());
        self
    }

    /// Name your app in the CLI's User-Agent.
    pub fn client_app(mut self, app: impl Into<String>) -> Self {
        self.client_app = Some(app.into());
        self
    }

    /// Add a field to the `initialize` request.
    pub fn initialize_field(mut self, key: impl Into<String>, value: Value) -> Self {
        self.initialize_extra.insert(key.into(), value);
        self
    }

    /// Forward subagents' text to the stream.
    pub fn forward_subagent_text(mut self, on: bool) -> Self {
        self.forward_subagent_text = on;
        self
    }

    /// Deliver every prompt as written (no `@path` expansion, no slash
    /// commands).
    pub fn verbatim_prompts(mut self, on: bool) -> Self {
        self.verbatim_prompts = on;
        self
    }
}
