//! The `initialize` request and the server info it returns.

use std::collections::BTreeMap;

use serde_json::Value;

wire_struct! {
    /// `initialize`: the first request; registers hooks, agents and skills.
    #[derive(Default)]
    pub struct InitializeRequest = "control_request/initialize", builder InitializeRequestBuilder {
        /// `{Event: [matcher, ...]}`, or null for none.
        hooks: opt BTreeMap<String, Vec<InitializeHookMatcher>> = "hooks",
        /// Custom agents by name.
        agents: opt BTreeMap<String, InitializeAgent> = "agents",
        /// Skills to enable.
        skills: opt Value = "skills",
        /// Leave dynamic sections out of the system prompt.
        exclude_dynamic_sections: opt bool = "excludeDynamicSections",
        /// Forward subagents' text to the host.
        forward_subagent_text: opt bool = "forwardSubagentText",
    }
}

wire_struct! {
    /// One hook matcher as the `initialize` request carries it: callback
    /// ids, not callbacks. Register hooks with `callbacks::HookMatcher`
    /// (feature `hooks`); this is what it becomes on the wire.
    #[derive(Default)]
    pub struct InitializeHookMatcher = "hook matcher", builder InitializeHookMatcherBuilder {
        /// Tool-name pattern, or null for all.
        matcher: opt String = "matcher",
        /// Callback ids answered through `hook_callback`.
        hook_callback_ids: opt Vec<String> = "hookCallbackIds",
        /// Timeout in seconds.
        timeout: opt u64 = "timeout",
        /// `continue` or `block`: what a failing callback does.
        on_failure: opt String = "onFailure",
    }
}

wire_struct! {
    /// A custom agent as the `initialize` request carries it (camelCase
    /// members), kept lossless for parsing recorded requests. Define agents
    /// with [`options::AgentDefinition`](crate::options::AgentDefinition).
    #[derive(Default)]
    pub struct InitializeAgent = "agent definition", builder InitializeAgentBuilder {
        /// When to use the agent.
        description: opt String = "description",
        /// Its system prompt.
        prompt: opt String = "prompt",
        /// Tools it may use.
        tools: opt Vec<String> = "tools",
        /// Tools it may not use.
        disallowed_tools: opt Vec<String> = "disallowedTools",
        /// Its model.
        model: opt String = "model",
    }
}

wire_struct! {
    /// The `initialize` reply: what the CLI offers. Decode it from
    /// [`ControlSuccess::response`](crate::protocol::ControlSuccess::response).
    #[derive(Default)]
    pub struct ServerInfo = "server info", builder ServerInfoBuilder {
        /// Slash commands.
        commands: opt Vec<SlashCommand> = "commands",
        /// Agents.
        agents: opt Vec<AgentInfo> = "agents",
        /// The output style in use.
        output_style: opt String = "output_style",
        /// Output styles available.
        available_output_styles: opt Vec<String> = "available_output_styles",
        /// Models available.
        models: opt Vec<ModelInfo> = "models",
        /// Who the session is signed in as, and through which API.
        account: opt AccountInfo = "account",
        /// The CLI's process id.
        pid: opt u32 = "pid",
        /// The CLI's version.
        claude_code_version: opt String = "claude_code_version",
        /// The permission mode in force.
        current_permission_mode: opt String = "current_permission_mode",
        /// Protocol capabilities.
        capabilities: opt Vec<String> = "capabilities",
        /// Whether the CLI registered the request's hooks (`false` on a
        /// session that was already running).
        hooks_applied: opt bool = "hooks_applied",
        /// `true` when the CLI honors `onFailure` on hook matchers.
        hook_on_failure_supported: opt bool = "hook_on_failure_supported",
        /// Whether the request's `workspaceTrust` was persisted as a trust
        /// grant for the session's directory; absent when none was sent.
        workspace_trust_recorded: opt bool = "workspace_trust_recorded",
    }
}

wire_struct! {
    /// The account in [`ServerInfo`] (TypeScript's `accountInfo()`). For a
    /// provider other than `firstParty` only `api_provider` is set: the
    /// provider's own credentials authenticate.
    #[derive(Default)]
    pub struct AccountInfo = "account info", builder AccountInfoBuilder {
        /// The signed-in user's email.
        email: opt String = "email",
        /// The organization.
        organization: opt String = "organization",
        /// The plan, e.g. `max`.
        subscription_type: opt String = "subscriptionType",
        /// Where the OAuth token came from.
        token_source: opt String = "tokenSource",
        /// Where the API key came from, e.g. `ANTHROPIC_API_KEY`.
        api_key_source: opt String = "apiKeySource",
        /// `firstParty`, `bedrock`, `vertex`, `foundry`, `anthropicAws`,
        /// `anthropicGoogleCloud`, `mantle`, `gateway` (an open set).
        api_provider: opt String = "apiProvider",
    }
}

wire_struct! {
    /// A slash command in [`ServerInfo`].
    #[derive(Default)]
    pub struct SlashCommand = "slash command", builder SlashCommandBuilder {
        /// Name without the slash.
        name: opt String = "name",
        /// What it does.
        description: opt String = "description",
        /// Argument hint.
        argument_hint: opt String = "argumentHint",
        /// Other names.
        aliases: opt Vec<String> = "aliases",
        /// Whether it ships with the CLI.
        builtin: opt bool = "builtin",
    }
}

wire_struct! {
    /// An agent in [`ServerInfo`].
    #[derive(Default)]
    pub struct AgentInfo = "agent info", builder AgentInfoBuilder {
        /// Name.
        name: opt String = "name",
        /// What it does.
        description: opt String = "description",
        /// Its model, if fixed.
        model: opt String = "model",
    }
}

wire_struct! {
    /// A model in [`ServerInfo`].
    #[derive(Default)]
    pub struct ModelInfo = "model info", builder ModelInfoBuilder {
        /// The value to pass to `set_model`.
        value: opt String = "value",
        /// The model id the value resolves to.
        resolved_model: opt String = "resolvedModel",
        /// Display name.
        display_name: opt String = "displayName",
        /// Description.
        description: opt String = "description",
        /// Whether it takes an effort level.
        supports_effort: opt bool = "supportsEffort",
        /// The effort levels it takes.
        supported_effort_levels: opt Vec<String> = "supportedEffortLevels",
        /// Whether it supports adaptive thinking.
        supports_adaptive_thinking: opt bool = "supportsAdaptiveThinking",
        /// Whether it supports fast mode.
        supports_fast_mode: opt bool = "supportsFastMode",
        /// Whether it supports the `auto` permission mode.
        supports_auto_mode: opt bool = "supportsAutoMode",
    }
}
