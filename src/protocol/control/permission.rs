//! Permission requests (`can_use_tool`), permission updates and decisions.

use std::fmt;

use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::provenance::McpServerProvenance;
use crate::protocol::de::Key;

wire_struct! {
    /// `can_use_tool`: the CLI asks whether a tool call may run.
    #[derive(Default)]
    pub struct PermissionRequest = "control_request/can_use_tool", builder PermissionRequestBuilder {
        /// The tool's name.
        tool_name: opt String = "tool_name",
        /// Human-facing tool name.
        display_name: opt String = "display_name",
        /// The call's input.
        input: opt Value = "input",
        /// What the call does, in words.
        description: opt String = "description",
        /// Rule changes the CLI suggests offering the user.
        permission_suggestions: opt Vec<PermissionUpdate> = "permission_suggestions",
        /// The path that triggered the question, if any.
        blocked_path: opt String = "blocked_path",
        /// The call's id.
        tool_use_id: opt String = "tool_use_id",
        /// Why the CLI is asking (shape varies).
        decision_reason: opt Value = "decision_reason",
        /// The subagent making the call, if any.
        agent_id: opt String = "agent_id",
        /// The prompt's title, when the CLI words the ask itself (e.g.
        /// "Claude wants to read foo.txt").
        title: opt String = "title",
        /// The MCP server serving the tool, for `mcp__*` tools.
        mcp_server: opt McpServerProvenance = "mcp_server",
    }
}

string_enum! {
    /// What a permission answer meant to the user, for the CLI's
    /// `tool_decision` telemetry. Unset, the CLI infers it (temporary for
    /// an allow, reject for a deny).
    pub enum DecisionClassification {
        /// Allowed once.
        UserTemporary = "user_temporary",
        /// Always allowed (the click and later cache hits).
        UserPermanent = "user_permanent",
        /// Denied.
        UserReject = "user_reject",
    }
}

string_enum! {
    /// A permission rule's effect.
    pub enum PermissionBehavior {
        /// Allow matching calls.
        Allow = "allow",
        /// Deny matching calls.
        Deny = "deny",
        /// Ask about matching calls.
        Ask = "ask",
    }
}

string_enum! {
    /// Where a permission update is stored.
    pub enum PermissionUpdateDestination {
        /// `~/.claude/settings.json`.
        UserSettings = "userSettings",
        /// `.claude/settings.json`.
        ProjectSettings = "projectSettings",
        /// `.claude/settings.local.json`.
        LocalSettings = "localSettings",
        /// This session only.
        Session = "session",
        /// As if given on the command line.
        CliArg = "cliArg",
    }
}

tagged_enum! {
    /// A change to the permission rules, by `type`.
    pub enum PermissionUpdate = "permission update", tag "type", builder PermissionUpdateBuilder {
        /// `addRules`.
        AddRules(RulesUpdate) = "addRules",
        /// `replaceRules`.
        ReplaceRules(RulesUpdate) = "replaceRules",
        /// `removeRules`.
        RemoveRules(RulesUpdate) = "removeRules",
        /// `setMode`.
        SetMode(ModeUpdate) = "setMode",
        /// `addDirectories`.
        AddDirectories(DirectoriesUpdate) = "addDirectories",
        /// `removeDirectories`.
        RemoveDirectories(DirectoriesUpdate) = "removeDirectories",
        @other
        /// A type this version does not model.
        Other { update_type }
    }
}

wire_struct! {
    /// The body of `addRules` / `replaceRules` / `removeRules`.
    #[derive(Default)]
    pub struct RulesUpdate = "rules update", builder RulesUpdateBuilder {
        /// The rules.
        rules: opt Vec<PermissionRule> = "rules",
        /// Their effect.
        behavior: opt PermissionBehavior = "behavior",
        /// Where to store them.
        destination: opt PermissionUpdateDestination = "destination",
    }
}

wire_struct! {
    /// One permission rule.
    #[derive(Default)]
    pub struct PermissionRule = "permission rule", builder PermissionRuleBuilder {
        /// The tool, e.g. `Bash`.
        tool_name: opt String = "toolName",
        /// The rule's argument, e.g. a command prefix.
        rule_content: opt String = "ruleContent",
    }
}

wire_struct! {
    /// The body of `setMode`.
    #[derive(Default)]
    pub struct ModeUpdate = "mode update", builder ModeUpdateBuilder {
        /// The permission mode.
        mode: opt String = "mode",
        /// Where to store it.
        destination: opt PermissionUpdateDestination = "destination",
    }
}

wire_struct! {
    /// The body of `addDirectories` / `removeDirectories`.
    #[derive(Default)]
    pub struct DirectoriesUpdate = "directories update", builder DirectoriesUpdateBuilder {
        /// The directories.
        directories: opt Vec<String> = "directories",
        /// Where to store them.
        destination: opt PermissionUpdateDestination = "destination",
    }
}

/// Our answer to `can_use_tool`, sent as the success payload.
///
/// ```
/// use claude_agent::protocol::PermissionResult;
/// use serde_json::json;
///
/// let deny = PermissionResult::Deny {
///     message: "no".into(),
///     interrupt: Some(true),
///     decision_classification: None,
/// };
/// assert_eq!(
///     serde_json::to_value(&deny).unwrap(),
///     json!({"behavior": "deny", "message": "no", "interrupt": true})
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
#[non_exhaustive]
pub enum PermissionResult {
    /// Let the call run.
    Allow {
        /// The input to run with (the SDKs send the original when unchanged).
        #[serde(rename = "updatedInput", skip_serializing_if = "Option::is_none")]
        updated_input: Option<Value>,
        /// Rule changes to apply.
        #[serde(rename = "updatedPermissions", skip_serializing_if = "Option::is_none")]
        updated_permissions: Option<Vec<PermissionUpdate>>,
        /// What the allow meant to the user (telemetry).
        #[serde(
            rename = "decisionClassification",
            skip_serializing_if = "Option::is_none"
        )]
        decision_classification: Option<DecisionClassification>,
    },
    /// Refuse the call.
    Deny {
        /// Why, shown to the model.
        message: String,
        /// Also stop the turn.
        #[serde(skip_serializing_if = "Option::is_none")]
        interrupt: Option<bool>,
        /// What the deny meant to the user (telemetry).
        #[serde(
            rename = "decisionClassification",
            skip_serializing_if = "Option::is_none"
        )]
        decision_classification: Option<DecisionClassification>,
    },
}

impl PermissionResult {
    /// The same answer, classified for the CLI's telemetry.
    #[must_use]
    pub fn with_classification(mut self, classification: DecisionClassification) -> Self {
        match &mut self {
            Self::Allow {
                decision_classification,
                ..
            }
            | Self::Deny {
                decision_classification,
                ..
            } => *decision_classification = Some(classification),
        }
        self
    }

    /// How the answer is classified, if it is.
    pub fn classification(&self) -> Option<&DecisionClassification> {
        match self {
            Self::Allow {
                decision_classification,
                ..
            }
            | Self::Deny {
                decision_classification,
                ..
            } => decision_classification.as_ref(),
        }
    }
}

impl<'de> Deserialize<'de> for PermissionResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = PermissionResult;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a permission result object")
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<PermissionResult, A::Error> {
                let (mut behavior, mut input, mut perms, mut message, mut interrupt) =
                    (None, None, None, None, None);
                let mut classification = None;
                while let Some(k) = map.next_key::<Key<'de>>()? {
                    match k.as_str() {
                        "behavior" => behavior = Some(map.next_value::<PermissionBehavior>()?),
                        "updatedInput" => input = map.next_value()?,
                        "updatedPermissions" => perms = map.next_value()?,
                        "message" => message = map.next_value()?,
                        "interrupt" => interrupt = map.next_value()?,
                        "decisionClassification" => classification = map.next_value()?,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                match behavior {
                    Some(PermissionBehavior::Allow) => Ok(PermissionResult::Allow {
                        updated_input: input,
                        updated_permissions: perms,
                        decision_classification: classification,
                    }),
                    Some(PermissionBehavior::Deny) => Ok(PermissionResult::Deny {
                        message: message.unwrap_or_default(),
                        interrupt,
                        decision_classification: classification,
                    }),
                    Some(other) => Err(de::Error::unknown_variant(
                        other.as_str(),
                        &["allow", "deny"],
                    )),
                    None => Err(de::Error::missing_field("behavior")),
                }
            }
        }
        d.deserialize_map(V)
    }
}
