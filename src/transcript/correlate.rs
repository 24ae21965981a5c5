//! Tool calls correlated by `tool_use_id`: request, decisions, result.

use std::collections::HashMap;

use serde_json::Value;

use super::{DecisionRecord, ToolCall, ToolResultRecord};
use crate::protocol::{Content, ContentBlock, Message};

/// Tool uses and results seen so far, in order.
#[derive(Debug, Default)]
pub(crate) struct ToolLedger {
    calls: Vec<ToolCall>,
    by_id: HashMap<String, usize>,
    /// Results by `tool_use_id`; a result may precede nothing we saw.
    results: HashMap<String, ToolResultRecord>,
}

impl ToolLedger {
    /// Notes the tool uses of an assistant message and the tool results of
    /// a user message.
    pub(crate) fn message(&mut self, message: &Message, turn: usize) {
        match message {
            Message::Assistant(a) => {
                for block in a.message.blocks() {
                    let (ContentBlock::ToolUse(u) | ContentBlock::ServerToolUse(u)) = block else {
                        continue;
                    };
                    let id = u.id.clone().unwrap_or_default();
                    if self.by_id.contains_key(&id) {
                        continue;
                    }
                    self.by_id.insert(id.clone(), self.calls.len());
                    self.calls.push(ToolCall {
                        tool_use_id: id,
                        name: u.name.clone().unwrap_or_default(),
                        input: u.input.clone().unwrap_or(Value::Null),
                        turn,
                        parent_tool_use_id: a.parent_tool_use_id.clone(),
                        decision: None,
                        hook_decisions: Vec::new(),
                        mcp_call: None,
                        result: None,
                    });
                }
            }
            Message::User(u) => {
                let Some(Content::Blocks(blocks)) = &u.message.content else {
                    return;
                };
                for block in blocks {
                    let ContentBlock::ToolResult(r) = block else {
                        continue;
                    };
                    let content = r
                        .content
                        .as_ref()
                        .and_then(|c| serde_json::to_value(c).ok())
                        .unwrap_or(Value::Null);
                    self.results.insert(
                        r.tool_use_id.clone().unwrap_or_default(),
                        ToolResultRecord {
                            content,
                            is_error: r.is_error.unwrap_or(false),
                        },
                    );
                }
            }
            _ => {}
        }
    }

    /// The calls with their results and `decisions` attached. A decision
    /// without a `tool_use_id` goes to the first call of the same tool that
    /// has no such decision yet.
    pub(crate) fn correlate(&self, decisions: &[DecisionRecord]) -> Vec<ToolCall> {
        let mut calls = self.calls.clone();
        for call in &mut calls {
            call.result = self.results.get(&call.tool_use_id).cloned();
        }
        for d in decisions {
            let by_id = d.tool_use_id().and_then(|id| self.by_id.get(id).copied());
            match d {
                DecisionRecord::Permission { tool_name, .. } => {
                    let i = by_id.or_else(|| {
                        let name = tool_name.as_deref()?;
                        calls
                            .iter()
                            .position(|c| c.name == name && c.decision.is_none())
                    });
                    if let Some(i) = i {
                        calls[i].decision = Some(d.clone());
                    }
                }
                DecisionRecord::McpCall { server, tool, .. } => {
                    let i = by_id.or_else(|| {
                        let name = format!("mcp__{server}__{tool}");
                        calls
                            .iter()
                            .position(|c| c.name == name && c.mcp_call.is_none())
                    });
                    if let Some(i) = i {
                        calls[i].mcp_call = Some(d.clone());
                    }
                }
                DecisionRecord::Hook { .. } => {
                    if let Some(i) = by_id {
                        calls[i].hook_decisions.push(d.clone());
                    }
                }
                DecisionRecord::Failed { .. } => {}
            }
        }
        calls
    }
}
