//! Putting back the tool calls and results of a parallel turn that the
//! `parentUuid` walk leaves off the conversation.
//!
//! The CLI writes one assistant entry per content block, so a response with
//! N parallel tool calls is N chained assistant entries sharing
//! `message.id`, and each tool result's parent is its own call's entry: the
//! transcript forks, and the walk from the leaf keeps only the branch the
//! next turn continued from. For each response on the conversation this
//! collects the entries of that response and the results answering them
//! that the walk missed, and inserts them after the response's last entry
//! on the conversation, as the official SDKs do.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

type Entry<'a> = &'a Value;

fn str_field<'a>(entry: Entry<'a>, field: &str) -> Option<&'a str> {
    entry.get(field).and_then(Value::as_str)
}

fn uuid(entry: Entry<'_>) -> &str {
    str_field(entry, "uuid").unwrap_or_default()
}

fn message_id(entry: Entry<'_>) -> Option<&str> {
    if str_field(entry, "type") != Some("assistant") {
        return None;
    }
    entry
        .get("message")?
        .get("id")?
        .as_str()
        .filter(|id| !id.is_empty())
}

/// `id_field` of each `block_type` content block.
fn block_ids<'a>(entry: Entry<'a>, block_type: &str, id_field: &str) -> Vec<&'a str> {
    let Some(Value::Array(blocks)) = entry.get("message").and_then(|m| m.get("content")) else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some(block_type))
        .filter_map(|b| b.get(id_field).and_then(Value::as_str))
        .collect()
}

/// A user entry with a parent carrying a `tool_result` block.
fn is_tool_result(entry: Entry<'_>) -> bool {
    str_field(entry, "type") == Some("user")
        && str_field(entry, "parentUuid").is_some_and(|p| !p.is_empty())
        && matches!(
            entry.get("message").and_then(|m| m.get("content")),
            Some(Value::Array(blocks))
                if blocks.iter().any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        )
}

fn is_sidechain(entry: Entry<'_>) -> bool {
    entry.get("isSidechain").and_then(Value::as_bool) == Some(true)
}

/// Written by the same (sub)agent.
fn same_writer(a: Entry<'_>, b: Entry<'_>) -> bool {
    is_sidechain(a) == is_sidechain(b) && a.get("agentId") == b.get("agentId")
}

fn timestamp(entry: Entry<'_>) -> &str {
    str_field(entry, "timestamp").unwrap_or_default()
}

/// `chain` with each response's missed entries and results put back.
/// `tree` is every tree entry in file order (one per uuid).
pub(crate) fn recover_parallel<'a>(tree: &[Entry<'a>], chain: Vec<Entry<'a>>) -> Vec<Entry<'a>> {
    let mut seen: HashSet<&str> = chain.iter().map(|e| uuid(e)).collect();
    let chain_assistants: Vec<Entry<'a>> = chain
        .iter()
        .copied()
        .filter(|e| message_id(e).is_some())
        .collect();
    // The last entry of each response on the chain.
    let anchors: HashMap<&str, Entry<'a>> = chain_assistants
        .iter()
        .filter_map(|e| message_id(e).map(|id| (id, *e)))
        .collect();
    if anchors.is_empty() {
        return chain;
    }
    let by_uuid: HashMap<&str, Entry<'a>> = tree.iter().map(|e| (uuid(e), *e)).collect();
    let position: HashMap<&str, usize> =
        tree.iter().enumerate().map(|(i, e)| (uuid(e), i)).collect();

    // Every entry of each response, and which entry made each call (None
    // when two responses claim it: ambiguous, never used).
    let mut siblings: HashMap<&str, Vec<Entry<'a>>> = HashMap::new();
    let mut call_owner: HashMap<&str, Option<Entry<'a>>> = HashMap::new();
    let mut results = Vec::new();
    for entry in tree.iter().copied() {
        if let Some(id) = message_id(entry) {
            siblings.entry(id).or_default().push(entry);
            for call in block_ids(entry, "tool_use", "id") {
                let owner = match call_owner.get(call) {
                    None => Some(entry),
                    Some(Some(owner)) if message_id(owner) == Some(id) => Some(entry),
                    Some(_) => None,
                };
                call_owner.insert(call, owner);
            }
        } else if is_tool_result(entry) {
            results.push(entry);
        }
    }

    // Each result under the assistant entries it may belong to.
    let mut results_of: HashMap<&str, Vec<Entry<'a>>> = HashMap::new();
    for result in results.iter().copied() {
        if let Some(parent) = str_field(result, "parentUuid") {
            results_of.entry(parent).or_default().push(result);
        }
        if let Some(source) = str_field(result, "sourceToolAssistantUUID") {
            if by_uuid.get(source).is_some_and(|s| same_writer(result, s)) {
                results_of.entry(source).or_default().push(result);
            }
        }
        for call in block_ids(result, "tool_result", "tool_use_id") {
            if let Some(Some(owner)) = call_owner.get(call) {
                if same_writer(result, owner) {
                    results_of.entry(uuid(owner)).or_default().push(result);
                }
            }
        }
    }

    let answered_on_chain: HashSet<&str> = chain
        .iter()
        .flat_map(|e| block_ids(e, "tool_result", "tool_use_id"))
        .collect();
    let mut processed = HashSet::new();
    let mut inserts: HashMap<&str, Vec<Entry<'a>>> = HashMap::new();
    for assistant in chain_assistants {
        let Some(id) = message_id(assistant) else {
            continue;
        };
        if !processed.insert(id) {
            continue;
        }
        let group = siblings.get(id).cloned().unwrap_or_else(|| vec![assistant]);
        let members: HashSet<&str> = group.iter().map(|e| uuid(e)).collect();
        let mut missed_siblings: Vec<Entry<'a>> = group
            .iter()
            .copied()
            .filter(|e| !seen.contains(uuid(e)))
            .collect();
        let mut missed_results = Vec::new();
        let mut strays = Vec::new();
        let mut collected = HashSet::new();
        for member in &group {
            for result in results_of.get(uuid(member)).into_iter().flatten().copied() {
                if seen.contains(uuid(result)) || !collected.insert(uuid(result)) {
                    continue;
                }
                if str_field(result, "parentUuid").is_some_and(|p| members.contains(p)) {
                    missed_results.push(result);
                } else {
                    strays.push(result);
                }
            }
        }
        // A stray (parented elsewhere) comes back only if it answers a call
        // of this response that nothing answered yet.
        let mut answered = answered_on_chain.clone();
        answered.extend(
            missed_results
                .iter()
                .flat_map(|r| block_ids(r, "tool_result", "tool_use_id")),
        );
        strays.sort_by_key(|e| position.get(uuid(e)).copied());
        for stray in strays {
            let calls = block_ids(stray, "tool_result", "tool_use_id");
            let open = calls.iter().any(|call| {
                !answered.contains(call)
                    && matches!(call_owner.get(call), Some(Some(owner)) if members.contains(uuid(owner)))
            });
            if open {
                answered.extend(calls);
                missed_results.push(stray);
            }
        }
        if missed_siblings.is_empty() && missed_results.is_empty() {
            continue;
        }
        // Stable: ties keep file (or call) order.
        missed_siblings.sort_by(|a, b| timestamp(a).cmp(timestamp(b)));
        missed_results.sort_by(|a, b| timestamp(a).cmp(timestamp(b)));
        let recovered: Vec<Entry<'a>> = missed_siblings.into_iter().chain(missed_results).collect();
        seen.extend(recovered.iter().map(|e| uuid(e)));
        if let Some(anchor) = anchors.get(id) {
            inserts.insert(uuid(anchor), recovered);
        }
    }
    if inserts.is_empty() {
        return chain;
    }
    let mut out = Vec::with_capacity(chain.len() + inserts.values().map(Vec::len).sum::<usize>());
    for entry in chain {
        out.push(entry);
        if let Some(extra) = inserts.remove(uuid(entry)) {
            out.extend(extra);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(uuid: &str, parent: &str, call: &str) -> Value {
        json!({"type": "assistant", "uuid": uuid, "parentUuid": parent,
               "message": {"id": "msg_1", "content": [{"type": "tool_use", "id": call}]}})
    }

    fn result(uuid: &str, parent: &str, call: &str) -> Value {
        json!({"type": "user", "uuid": uuid, "parentUuid": parent,
               "message": {"content": [{"type": "tool_result", "tool_use_id": call}]}})
    }

    #[test]
    fn a_parallel_turn_comes_back_whole() {
        // Two parallel calls a1, a2 (chained); each result is parented on
        // its own call; the next turn continued from r1 only.
        let entries = [
            json!({"type": "user", "uuid": "p", "parentUuid": null, "message": {"content": "go"}}),
            call("a1", "p", "t1"),
            call("a2", "a1", "t2"),
            result("r1", "a1", "t1"),
            result("r2", "a2", "t2"),
            json!({"type": "assistant", "uuid": "done", "parentUuid": "r1",
                   "message": {"id": "msg_2", "content": [{"type": "text", "text": "ok"}]}}),
        ];
        let tree: Vec<&Value> = entries.iter().collect();
        let walked: Vec<&Value> = ["p", "a1", "r1", "done"]
            .iter()
            .filter_map(|id| entries.iter().find(|e| uuid(e) == *id))
            .collect();
        let got: Vec<&str> = recover_parallel(&tree, walked)
            .into_iter()
            .map(uuid)
            .collect();
        assert_eq!(got, ["p", "a1", "a2", "r2", "r1", "done"]);
    }
}
