//! A session's conversation in order, and its subagents' conversations.
//!
//! A transcript is a tree linked by `parentUuid` (rewinds and branches
//! leave abandoned leaves). The conversation is the path from the root to
//! the newest main-chain leaf; sidechain, team and meta entries are not
//! part of it. `logicalParentUuid` (compaction back-pointers) is not
//! followed: the compact summary stands for what came before, as in the
//! official SDKs.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{Value, json};

use super::error::{SessionsError, check_session_id};
use super::parallel::recover_parallel;
use super::source::{SessionSource, values};
use crate::protocol::{Message, ParseError, parse_message};
use crate::store::SessionKey;

/// Entry types that are part of the conversation tree.
pub(crate) const TRANSCRIPT_TYPES: [&str; 5] =
    ["user", "assistant", "progress", "system", "attachment"];

/// Who wrote a [`SessionMessage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MessageKind {
    /// The user (prompts and tool results).
    User,
    /// The model.
    Assistant,
}

/// One visible message of a session's conversation, as stored; see
/// [`SessionMessage::to_message`] for the typed view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionMessage {
    /// User or assistant.
    #[serde(rename = "type")]
    pub kind: MessageKind,
    /// The transcript entry's uuid.
    pub uuid: String,
    /// The session the entry was written in.
    pub session_id: String,
    /// The API message (`role`, `content`, ...) as the CLI stored it.
    pub message: Value,
}

impl SessionMessage {
    /// This message as the typed stream-json [`Message`]
    /// ([`Message::User`] or [`Message::Assistant`]), as the CLI would have
    /// streamed it. Fails when the stored `message` does not have the
    /// shape the protocol types require.
    pub fn to_message(&self) -> Result<Message, ParseError> {
        let kind = match self.kind {
            MessageKind::User => "user",
            MessageKind::Assistant => "assistant",
        };
        let frame = json!({
            "type": kind,
            "message": self.message,
            "session_id": self.session_id,
            "uuid": self.uuid,
            "parent_tool_use_id": null,
        });
        parse_message(frame.to_string().as_bytes())
    }
}

/// The visible user and assistant messages of a session, oldest first.
pub async fn session_messages(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<Vec<SessionMessage>, SessionsError> {
    let entries = values(&source.load_session(project_key, session_id).await?);
    let tree = tree(&entries);
    let chain = recover_parallel(&tree, conversation(&tree, main_leaf));
    Ok(chain
        .into_iter()
        .filter(|e| is_visible(e, false))
        .filter_map(to_message)
        .collect())
}

/// The ids of a session's subagents (from `subagents/**/agent-<id>`
/// transcripts), sorted.
pub async fn list_subagents(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<Vec<String>, SessionsError> {
    check_session_id(session_id)?;
    Ok(source
        .subkeys(project_key, session_id)
        .await?
        .iter()
        .filter_map(|subpath| agent_id(subpath))
        .map(str::to_owned)
        .collect())
}

/// A subagent's visible messages, oldest first.
pub async fn subagent_messages(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    agent: &str,
) -> Result<Vec<SessionMessage>, SessionsError> {
    check_session_id(session_id)?;
    let subpath = source
        .subkeys(project_key, session_id)
        .await?
        .into_iter()
        .find(|subpath| agent_id(subpath) == Some(agent))
        .ok_or_else(|| {
            SessionsError::not_found(project_key, &format!("{session_id}/agent-{agent}"))
        })?;
    let key = SessionKey::new(project_key, session_id).with_subpath(subpath);
    let entries = values(&source.load(&key).await?.unwrap_or_default());
    // A subagent's transcript is all sidechain: keep those entries.
    Ok(conversation(&tree(&entries), last_leaf)
        .into_iter()
        .filter(|e| is_visible(e, true))
        .filter_map(to_message)
        .collect())
}

/// `agent-<id>` as the last component of a `subagents/...` subpath.
fn agent_id(subpath: &str) -> Option<&str> {
    subpath
        .strip_prefix("subagents/")?
        .rsplit('/')
        .next()?
        .strip_prefix("agent-")
}

fn kind(entry: &Value) -> Option<&str> {
    entry.get("type").and_then(Value::as_str)
}

fn uuid(entry: &Value) -> Option<&str> {
    entry.get("uuid").and_then(Value::as_str)
}

fn parent(entry: &Value) -> Option<&str> {
    entry.get("parentUuid").and_then(Value::as_str)
}

fn flag(entry: &Value, field: &str) -> bool {
    entry.get(field).is_some_and(|v| match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::String(s) => !s.is_empty(),
        _ => true,
    })
}

fn is_message(entry: &Value) -> bool {
    matches!(kind(entry), Some("user" | "assistant"))
}

/// The entries of the conversation tree (transcript types with a uuid),
/// in file order.
fn tree(entries: &[Value]) -> Vec<&Value> {
    entries
        .iter()
        .filter(|e| kind(e).is_some_and(|k| TRANSCRIPT_TYPES.contains(&k)) && uuid(e).is_some())
        .collect()
}

/// The path from the root to the leaf `pick` chooses among the tree's
/// entries, in order. Cycles end the walk.
fn conversation<'a>(
    tree: &[&'a Value],
    pick: fn(&[&'a Value], &HashMap<&'a str, &'a Value>) -> Option<&'a Value>,
) -> Vec<&'a Value> {
    let by_uuid: HashMap<&str, &Value> = tree
        .iter()
        .filter_map(|e| uuid(e).map(|u| (u, *e)))
        .collect();
    let Some(leaf) = pick(tree, &by_uuid) else {
        return Vec::new();
    };
    let mut chain = Vec::new();
    let mut seen = HashSet::new();
    let mut current = Some(leaf);
    while let Some(entry) = current {
        let Some(id) = uuid(entry) else { break };
        if !seen.insert(id) {
            break;
        }
        chain.push(entry);
        current = parent(entry).and_then(|p| by_uuid.get(p).copied());
    }
    chain.reverse();
    chain
}

/// The newest leaf of the main chain: from every entry no other entry
/// names as parent, the nearest user or assistant ancestor; preferring
/// those not in a sidechain, team or meta entry, the latest in the file.
fn main_leaf<'a>(tree: &[&'a Value], by_uuid: &HashMap<&'a str, &'a Value>) -> Option<&'a Value> {
    let parents: HashSet<&str> = tree.iter().filter_map(|e| parent(e)).collect();
    let position: HashMap<&str, usize> = tree
        .iter()
        .enumerate()
        .filter_map(|(i, e)| uuid(e).map(|u| (u, i)))
        .collect();
    let mut leaves = Vec::new();
    for terminal in tree
        .iter()
        .filter(|e| uuid(e).is_some_and(|u| !parents.contains(u)))
    {
        let mut seen = HashSet::new();
        let mut current = Some(*terminal);
        while let Some(entry) = current {
            if !uuid(entry).is_some_and(|u| seen.insert(u)) {
                break;
            }
            if is_message(entry) {
                leaves.push(entry);
                break;
            }
            current = parent(entry).and_then(|p| by_uuid.get(p).copied());
        }
    }
    let latest = |candidates: Vec<&'a Value>| {
        candidates
            .into_iter()
            .max_by_key(|e| uuid(e).and_then(|u| position.get(u)).copied())
    };
    let main: Vec<&Value> = leaves
        .iter()
        .copied()
        .filter(|e| !flag(e, "isSidechain") && !flag(e, "teamName") && !flag(e, "isMeta"))
        .collect();
    if main.is_empty() {
        latest(leaves)
    } else {
        latest(main)
    }
}

/// A subagent's transcript is linear: its last message is the leaf.
fn last_leaf<'a>(tree: &[&'a Value], _: &HashMap<&'a str, &'a Value>) -> Option<&'a Value> {
    tree.iter().rev().find(|e| is_message(e)).copied()
}

fn is_visible(entry: &Value, sidechain_ok: bool) -> bool {
    is_message(entry)
        && !flag(entry, "isMeta")
        && (sidechain_ok || !flag(entry, "isSidechain"))
        && !flag(entry, "teamName")
}

fn to_message(entry: &Value) -> Option<SessionMessage> {
    let kind = match kind(entry)? {
        "user" => MessageKind::User,
        "assistant" => MessageKind::Assistant,
        _ => return None,
    };
    Some(SessionMessage {
        kind,
        uuid: uuid(entry).unwrap_or_default().to_owned(),
        session_id: entry
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        message: entry.get("message").cloned().unwrap_or(Value::Null),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn entry(uuid: &str, parent: Option<&str>, kind: &str) -> Value {
        json!({"type": kind, "uuid": uuid, "parentUuid": parent, "message": {"content": uuid}})
    }

    fn ids(entries: &[Value]) -> Vec<String> {
        conversation(&tree(entries), main_leaf)
            .into_iter()
            .filter(|e| is_visible(e, false))
            .filter_map(|e| uuid(e).map(str::to_owned))
            .collect()
    }

    #[test]
    fn a_rewound_branch_is_left_out() {
        let entries = [
            entry("a", None, "user"),
            entry("b", Some("a"), "assistant"),
            entry("c", Some("b"), "user"),
            // Rewound to b: d replaces c.
            entry("d", Some("b"), "user"),
            entry("e", Some("d"), "assistant"),
        ];
        assert_eq!(ids(&entries), ["a", "b", "d", "e"]);
    }

    #[test]
    fn sidechain_and_meta_entries_are_hidden() {
        let mut side = entry("s", Some("b"), "user");
        side["isSidechain"] = json!(true);
        let mut meta = entry("m", Some("b"), "user");
        meta["isMeta"] = json!(true);
        let entries = [
            entry("a", None, "user"),
            entry("b", Some("a"), "assistant"),
            meta,
            entry("c", Some("m"), "assistant"),
            side,
        ];
        assert_eq!(ids(&entries), ["a", "b", "c"]);
    }

    #[test]
    fn a_parent_cycle_ends_the_walk() {
        let entries = [
            entry("a", Some("b"), "user"),
            entry("b", Some("a"), "assistant"),
        ];
        // Every entry is someone's parent, so there is no leaf at all.
        assert!(ids(&entries).is_empty());
    }

    #[test]
    fn agent_ids_come_from_subagent_subpaths_only() {
        assert_eq!(agent_id("subagents/agent-7"), Some("7"));
        assert_eq!(agent_id("subagents/workflows/r1/agent-x"), Some("x"));
        assert_eq!(agent_id("other/agent-7"), None);
        assert_eq!(agent_id("subagents/notes"), None);
    }
}
