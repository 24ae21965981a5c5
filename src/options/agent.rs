//! Programmatic subagents, sent in `initialize` (never on argv).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Effort, PermissionMode};

/// A subagent definition. Serializes with the CLI's camelCase field names;
/// unset fields are omitted so the subagent inherits them.
///
/// ```
/// use claude_agent::options::AgentDefinition;
/// let reviewer = AgentDefinition::new("Reviews diffs", "You review code.")
///     .tools(["Read", "Grep"]);
/// assert_eq!(reviewer.tools.as_deref().map(<[String]>::len), Some(2));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AgentDefinition {
    /// When to use this agent (used for automatic selection).
    pub description: String,
    /// The agent's system prompt.
    pub prompt: String,
    /// Allowed tools; unset inherits all of the parent's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
    /// Tools the agent may not use.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disallowed_tools: Option<Vec<String>>,
    /// Model alias (`sonnet`, `opus`, `haiku`, `inherit`) or full model id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Skills preloaded for the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skills: Option<Vec<String>>,
    /// Memory scope (`user`, `project`, `local`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    /// MCP servers: names of configured servers or inline configs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mcp_servers: Option<Vec<Value>>,
    /// A first prompt the agent runs with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_prompt: Option<String>,
    /// Turn limit for the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// Run as a non-blocking background task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub background: Option<bool>,
    /// Reasoning effort for the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effort: Option<Effort>,
    /// Permission mode for the agent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission_mode: Option<PermissionMode>,
    /// Token count at which the agent, run as a subagent, compacts its own
    /// conversation; it only lowers the window it would inherit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_compact_window: Option<u64>,
    /// Run as a subagent without the user, project and local `CLAUDE.md`
    /// files (managed policy files are kept).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omit_claude_md: Option<bool>,
    /// Agent type started as a read-only background observer whenever this
    /// agent runs, or a comma-separated list of up to four.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer: Option<String>,
    /// Text appended to each activity digest sent to the observer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observer_message: Option<String>,
    /// Fields this crate does not know yet, written as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AgentDefinition {
    /// An agent with a description and a system prompt; everything else inherited.
    pub fn new(description: impl Into<String>, prompt: impl Into<String>) -> Self {
        Self {
            description: description.into(),
            prompt: prompt.into(),
            ..Self::default()
        }
    }

    /// Restrict the agent to these tools.
    pub fn tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, tools: I) -> Self {
        self.tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Forbid these tools to the agent.
    pub fn disallowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tools: I,
    ) -> Self {
        self.disallowed_tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Use this model for the agent.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_camel_case_and_omits_unset() {
        let mut a = AgentDefinition::new("d", "p")
            .disallowed_tools(["Bash"])
            .model("haiku");
        a.max_turns = Some(2);
        a.permission_mode = Some(PermissionMode::AcceptEdits);
        a.extra.insert("color".into(), json!("blue"));
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            json!({"description": "d", "prompt": "p", "disallowedTools": ["Bash"],
                   "model": "haiku", "maxTurns": 2, "permissionMode": "acceptEdits",
                   "color": "blue"})
        );
    }
}
