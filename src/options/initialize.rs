//! [`Options`] -> the `initialize` control request.

use serde_json::{Map, Value};

use super::{Options, Skills, SystemPrompt};

impl Options {
    /// The `request` payload of the `initialize` control request:
    /// `{"subtype": "initialize", "hooks": ...}` plus, when set, `agents`,
    /// `excludeDynamicSections`, `systemPrompt` (blocks),
    /// `systemPromptSnapshot`, `planModeInstructions`, `toolAliases`,
    /// `title`, `workspaceTrust`, `promptSuggestions`, `agentProgressSummaries`,
    /// `perTaskStopAffordance: true`, `plugins` (with
    /// [`PluginDelivery::Initialize`](super::PluginDelivery)), `skills` (a
    /// list only), `mcpServers` (the external servers, see
    /// [`McpDelivery`](super::McpDelivery)), `forwardSubagentText: true`, and the
    /// [`initialize_field`](Options::initialize_field) fields none of these
    /// took.
    ///
    /// `hooks` is the SDK layer's ready hook table (`null` when `None`).
    ///
    /// ```
    /// use claude_agent::options::Options;
    /// let req = Options::new().initialize_request(None);
    /// assert_eq!(req, serde_json::json!({"subtype": "initialize", "hooks": null}));
    /// ```
    pub fn initialize_request(&self, hooks: Option<Value>) -> Value {
        let mut req = Map::new();
        req.insert("subtype".into(), "initialize".into());
        req.insert("hooks".into(), hooks.unwrap_or(Value::Null));
        if !self.agents.is_empty() {
            let agents = self
                .agents
                .iter()
                // Cannot fail: the definition has only string keys.
                .map(|(name, def)| {
                    (
                        name.clone(),
                        serde_json::to_value(def).unwrap_or(Value::Null),
                    )
                })
                .collect();
            req.insert("agents".into(), Value::Object(agents));
        }
        if let Some(SystemPrompt::Preset {
            exclude_dynamic_sections: Some(on),
            ..
        }) = &self.system_prompt
        {
            req.insert("excludeDynamicSections".into(), (*on).into());
        }
        if let Some(SystemPrompt::Blocks { blocks, .. }) = &self.system_prompt {
            req.insert("systemPrompt".into(), blocks.clone().into());
        }
        if let Some(
            SystemPrompt::Custom {
                snapshot: Some(on), ..
            }
            | SystemPrompt::Preset {
                snapshot: Some(on), ..
            }
            | SystemPrompt::Blocks {
                snapshot: Some(on), ..
            },
        ) = &self.system_prompt
        {
            req.insert("systemPromptSnapshot".into(), (*on).into());
        }
        self.insert_later_fields(&mut req);
        // `All` and unset both mean no filter on the wire.
        if let Some(Skills::List(skills)) = &self.skills {
            req.insert("skills".into(), skills.clone().into());
        }
        let external =
            super::mcp_delivery::initialize_servers(&self.mcp_servers, self.mcp_delivery);
        if let Some(servers) = super::mcp_delivery::initialize_field(&external) {
            req.insert("mcpServers".into(), servers);
        }
        if self.forward_subagent_text {
            req.insert("forwardSubagentText".into(), true.into());
        }
        for (key, value) in &self.initialize_extra {
            req.entry(key.clone()).or_insert_with(|| value.clone());
        }
        Value::Object(req)
    }
}

impl Options {
    /// The fields of options the TypeScript SDK added later, when set.
    fn insert_later_fields(&self, req: &mut Map<String, Value>) {
        if let Some(text) = &self.plan_mode_instructions {
            req.insert("planModeInstructions".into(), text.clone().into());
        }
        if !self.tool_aliases.is_empty() {
            let aliases = self
                .tool_aliases
                .iter()
                .map(|(name, target)| (name.clone(), Value::from(target.clone())))
                .collect();
            req.insert("toolAliases".into(), Value::Object(aliases));
        }
        if let Some(title) = &self.title {
            req.insert("title".into(), title.clone().into());
        }
        if let Some(trust) = self
            .workspace_trust
            .as_ref()
            .and_then(|t| t.initialize_value())
        {
            req.insert("workspaceTrust".into(), trust);
        }
        if let Some(on) = self.prompt_suggestions {
            req.insert("promptSuggestions".into(), on.into());
        }
        if let Some(on) = self.agent_progress_summaries {
            req.insert("agentProgressSummaries".into(), on.into());
        }
        if self.per_task_stop_affordance {
            req.insert("perTaskStopAffordance".into(), true.into());
        }
        if super::argv::plugins_in_initialize(self) {
            let plugins = self
                .plugins
                .iter()
                .map(|p| serde_json::json!({"type": "local", "path": p.to_string_lossy()}))
                .collect();
            req.insert("plugins".into(), Value::Array(plugins));
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::options::{AgentDefinition, Options, SystemPrompt};
    use serde_json::json;

    #[test]
    fn hooks_are_passed_through() {
        let hooks = json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]});
        assert_eq!(
            Options::new().initialize_request(Some(hooks.clone())),
            json!({"subtype": "initialize", "hooks": hooks})
        );
    }

    #[test]
    fn agents_skills_sections_and_forwarding() {
        let opts = Options::new()
            .agent(
                "rev",
                AgentDefinition::new("reviews", "You review.").tools(["Read"]),
            )
            .skills(["pdf"])
            .system_prompt(SystemPrompt::Preset {
                append: None,
                exclude_dynamic_sections: Some(true),
                snapshot: None,
            })
            .forward_subagent_text(true);
        assert_eq!(
            opts.initialize_request(None),
            json!({"subtype": "initialize", "hooks": null,
                   "agents": {"rev": {"description": "reviews", "prompt": "You review.", "tools": ["Read"]}},
                   "excludeDynamicSections": true, "skills": ["pdf"], "forwardSubagentText": true})
        );
    }

    #[test]
    fn empty_skills_list_is_sent_and_false_forwarding_is_not() {
        let opts = Options::new()
            .skills(Vec::<String>::new())
            .forward_subagent_text(false);
        assert_eq!(
            opts.initialize_request(None),
            json!({"subtype": "initialize", "hooks": null, "skills": []})
        );
    }
}
