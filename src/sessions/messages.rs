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
    /// The CLI (compact boundaries, notices): only with
    /// [`MessageOptions::include_system`].
    System,
}

/// One visible message of a session's conversation, as stored; see
/// [`SessionMessage::to_message`] for the typed view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionMessage {
    /// User, assistant or system.
    #[serde(rename = "type")]
    pub kind: MessageKind,
    /// The transcript entry's uuid.
    pub uuid: String,
    /// The session the entry was written in.
    pub session_id: String,
    /// The API message (`role`, `content`, ...) as the CLI stored it; for
    /// a system entry, which has none, its `subtype`, `content` and
    /// `level`.
    pub message: Value,
    /// For a subagent's message: the id of the `Agent` tool call in the
    /// parent session that started the subagent (from its metadata).
    pub parent_tool_use_id: Option<String>,
    /// For a nested subagent's message: the id of the subagent that
    /// started it; `None` for one started by the main session.
    pub parent_agent_id: Option<String>,
}

impl SessionMessage {
    /// This message as the typed stream-json [`Message`]
    /// ([`Message::User`], [`Message::Assistant`] or a system message), as
    /// the CLI would have streamed it. Fails when the stored `message` does
    /// not have the shape the protocol types require.
    pub fn to_message(&self) -> Result<Message, ParseError> {
        let frame = match self.kind {
            MessageKind::User | MessageKind::Assistant => json!({
                "type": if self.kind == MessageKind::User { "user" } else { "assistant" },
                "message": self.message,
                "session_id": self.session_id,
                "uuid": self.uuid,
                "parent_tool_use_id": self.parent_tool_use_id,
            }),
            MessageKind::System => {
                let mut frame = match &self.message {
                    Value::Object(fields) => fields.clone(),
                    _ => serde_json::Map::new(),
                };
                frame.insert("type".into(), "system".into());
                frame.insert("session_id".into(), self.session_id.clone().into());
                frame.insert("uuid".into(), self.uuid.clone().into());
                Value::Object(frame)
            }
        };
        parse_message(frame.to_string().as_bytes())
    }
}

/// Which messages [`session_messages_with`] and [`subagent_messages_with`]
/// return: a page (`offset`, then at most `limit`; `limit` 0 or `None`
/// means all), and whether system entries are included.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MessageOptions {
    /// At most this many messages (`None` or 0: no limit).
    pub limit: Option<usize>,
    /// Skip this many from the start.
    pub offset: usize,
    /// Include the CLI's system entries on the conversation (compact
    /// boundaries, notices), as the TS SDK's `includeSystemMessages`.
    /// Main sessions only.
    pub include_system: bool,
}

impl MessageOptions {
    /// The page of `items` these options select.
    fn page<T>(&self, items: Vec<T>) -> Vec<T> {
        let rest = items.into_iter().skip(self.offset);
        match self.limit.filter(|&n| n > 0) {
            Some(n) => rest.take(n).collect(),
            None => rest.collect(),
        }
    }
}

/// The visible user and assistant messages of a session, oldest first.
pub async fn session_messages(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<Vec<SessionMessage>, SessionsError> {
    session_messages_with(source, project_key, session_id, &MessageOptions::default()).await
}

/// [`session_messages`], paged, with system entries when asked.
pub async fn session_messages_with(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    options: &MessageOptions,
) -> Result<Vec<SessionMessage>, SessionsError> {
    let entries = values(&source.load_session(project_key, session_id).await?);
    let tree = tree(&entries);
    let chain = recover_parallel(&tree, conversation(&tree, main_leaf));
    let visible = chain
        .into_iter()
        .filter(|e| is_visible(e, false, options.include_system))
        .filter_map(|e| to_message(e, None, None))
        .collect();
    Ok(options.page(visible))
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

/// A subagent's visible messages, oldest first, each carrying the ids of
/// what started the subagent.
pub async fn subagent_messages(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    agent: &str,
) -> Result<Vec<SessionMessage>, SessionsError> {
    subagent_messages_with(
        source,
        project_key,
        session_id,
        agent,
        &MessageOptions::default(),
    )
    .await
}

/// [`subagent_messages`], paged.
///
/// The parent ids come from the subagent's metadata: locally the
/// `agent-<id>.meta.json` sidecar the CLI writes beside the transcript,
/// in a store the last `agent_metadata` entry the mirror appended (its
/// `toolUseId` and `parentAgentId`); `None` without one.
pub async fn subagent_messages_with(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    agent: &str,
    options: &MessageOptions,
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
    let metadata = match source {
        SessionSource::Local(local) => local.sidecar(&key).await?,
        SessionSource::Store(_) => entries
            .iter()
            .rev()
            .find(|e| kind(e) == Some("agent_metadata"))
            .cloned(),
    };
    let parent = |field: &str| {
        metadata
            .as_ref()
            .and_then(|m| m.get(field))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let (tool_use, agent_parent) = (parent("toolUseId"), parent("parentAgentId"));
    // A subagent's transcript is all sidechain: keep those entries.
    let visible = conversation(&tree(&entries), last_leaf)
        .into_iter()
        .filter(|e| is_visible(e, true, false))
        .filter_map(|e| to_message(e, tool_use.clone(), agent_parent.clone()))
        .collect();
    Ok(options.page(visible))
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

fn is_visible(entry: &Value, sidechain_ok: bool, system_ok: bool) -> bool {
    (is_message(entry) || (system_ok && kind(entry) == Some("system")))
        && !flag(entry, "isMeta")
        && (sidechain_ok || !flag(entry, "isSidechain"))
        && !flag(entry, "teamName")
}

fn to_message(
    entry: &Value,
    parent_tool_use_id: Option<String>,
    parent_agent_id: Option<String>,
) -> Option<SessionMessage> {
    let kind = match kind(entry)? {
        "user" => MessageKind::User,
        "assistant" => MessageKind::Assistant,
        "system" => MessageKind::System,
        _ => return None,
    };
    let message = match (kind, entry.get("message")) {
        (MessageKind::System, None) => {
            let mut fields = serde_json::Map::new();
            for field in ["subtype", "content", "level"] {
                if let Some(value) = entry.get(field) {
                    fields.insert(field.into(), value.clone());
                }
            }
            Value::Object(fields)
        }
        (_, message) => message.cloned().unwrap_or(Value::Null),
    };
    Some(SessionMessage {
        kind,
        uuid: uuid(entry).unwrap_or_default().to_owned(),
        session_id: entry
            .get("sessionId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        message,
        parent_tool_use_id,
        parent_agent_id,
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
            .filter(|e| is_visible(e, false, false))
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
