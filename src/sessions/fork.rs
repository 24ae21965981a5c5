//! [`fork_session`]: copy a session into a new one with fresh uuids, as
//! the official SDKs do, so it can be resumed as a separate branch.

use std::collections::HashMap;

use serde_json::{Value, json};

use super::error::{SessionsError, check_session_id};
use super::messages::TRANSCRIPT_TYPES;
use super::mutations::new_uuid;
use super::source::{SessionSource, values};
use super::time::now_iso;
use crate::store::{SessionKey, StoreEntry, fold_session_summary};

/// How to fork.
#[derive(Debug, Clone, Default)]
pub struct ForkOptions {
    /// Copy up to and including this message uuid; everything when `None`.
    pub up_to_message: Option<String>,
    /// The fork's title; when `None`, the source's title (or first prompt)
    /// with ` (fork)` appended.
    pub title: Option<String>,
}

/// Fork `session_id` into a new session of the same project and source;
/// returns the new session id.
///
/// Sidechain entries are left out; `progress` entries are dropped with
/// parent links bridged over them; every uuid (and `logicalParentUuid`) is
/// remapped; each entry gets the new `sessionId` and a `forkedFrom`
/// pointing at its original; the last entry is stamped now (so the CLI
/// picks it as the leaf); content replacements are carried over; and a
/// `custom-title` entry names the fork.
pub async fn fork_session(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    options: &ForkOptions,
) -> Result<String, SessionsError> {
    check_session_id(session_id)?;
    if let Some(uuid) = &options.up_to_message {
        check_session_id(uuid).map_err(|_| SessionsError::MessageNotFound {
            session_id: session_id.to_owned(),
            uuid: uuid.clone(),
        })?;
    }
    let raw = source.load_session(project_key, session_id).await?;
    let fork_id = new_uuid();
    let lines: Vec<StoreEntry> = fork_entries(&raw, session_id, &fork_id, options)?
        .iter()
        .map(StoreEntry::from_value)
        .collect();
    source
        .append(&SessionKey::new(project_key, &fork_id), &lines, true)
        .await?;
    Ok(fork_id)
}

fn str_field<'a>(entry: &'a Value, field: &str) -> Option<&'a str> {
    entry.get(field).and_then(Value::as_str)
}

/// The fork's entries (pure, so it is tested without a source).
pub(crate) fn fork_entries(
    raw: &[StoreEntry],
    session_id: &str,
    fork_id: &str,
    options: &ForkOptions,
) -> Result<Vec<Value>, SessionsError> {
    // A fork rewrites most of each entry: work on trees.
    let trees = values(raw);
    let mut transcript = Vec::new();
    let mut replacements = Vec::new();
    for entry in &trees {
        let kind = str_field(entry, "type").unwrap_or_default();
        if TRANSCRIPT_TYPES.contains(&kind) && str_field(entry, "uuid").is_some() {
            if entry.get("isSidechain") != Some(&Value::Bool(true)) {
                transcript.push(entry);
            }
        } else if kind == "content-replacement" && str_field(entry, "sessionId") == Some(session_id)
        {
            if let Some(Value::Array(items)) = entry.get("replacements") {
                replacements.extend(items.iter().cloned());
            }
        }
    }
    let nothing = || SessionsError::NothingToFork {
        session_id: session_id.to_owned(),
    };
    if let Some(cut) = &options.up_to_message {
        let end = transcript
            .iter()
            .position(|e| str_field(e, "uuid") == Some(cut))
            .ok_or_else(|| SessionsError::MessageNotFound {
                session_id: session_id.to_owned(),
                uuid: cut.clone(),
            })?;
        transcript.truncate(end + 1);
    }
    let mapping: HashMap<&str, String> = transcript
        .iter()
        .filter_map(|e| str_field(e, "uuid").map(|u| (u, new_uuid())))
        .collect();
    let by_uuid: HashMap<&str, &Value> = transcript
        .iter()
        .filter_map(|e| str_field(e, "uuid").map(|u| (u, *e)))
        .collect();
    let writable: Vec<&Value> = transcript
        .iter()
        .copied()
        .filter(|e| str_field(e, "type") != Some("progress"))
        .collect();
    if writable.is_empty() {
        return Err(nothing());
    }
    let now = now_iso();
    let mut out = Vec::with_capacity(writable.len() + 2);
    for (i, original) in writable.iter().enumerate() {
        let Value::Object(mut forked) = (*original).clone() else {
            continue;
        };
        let old_uuid = str_field(original, "uuid").unwrap_or_default();
        // The nearest ancestor that is not a progress entry.
        let mut new_parent = Value::Null;
        let mut parent_id = str_field(original, "parentUuid");
        let mut hops = 0;
        while let Some(pid) = parent_id {
            let Some(parent) = by_uuid.get(pid) else {
                break;
            };
            if str_field(parent, "type") != Some("progress") {
                new_parent = mapping.get(pid).cloned().map_or(Value::Null, Value::from);
                break;
            }
            hops += 1;
            if hops > by_uuid.len() {
                break; // a cycle of progress entries
            }
            parent_id = str_field(parent, "parentUuid");
        }
        let logical = match original.get("logicalParentUuid") {
            Some(Value::String(l)) if !l.is_empty() => mapping
                .get(l.as_str())
                .cloned()
                .map_or(Value::Null, Value::from),
            other => other.cloned().unwrap_or(Value::Null),
        };
        if i + 1 == writable.len() || !forked.contains_key("timestamp") {
            forked.insert("timestamp".into(), now.clone().into());
        }
        forked.insert("uuid".into(), mapping.get(old_uuid).cloned().into());
        forked.insert("parentUuid".into(), new_parent);
        forked.insert("logicalParentUuid".into(), logical);
        forked.insert("sessionId".into(), fork_id.into());
        forked.insert("isSidechain".into(), false.into());
        forked.insert(
            "forkedFrom".into(),
            json!({"sessionId": session_id, "messageUuid": old_uuid}),
        );
        for leaked in ["teamName", "agentName", "slug", "sourceToolAssistantUUID"] {
            forked.remove(leaked);
        }
        out.push(Value::Object(forked));
    }
    if !replacements.is_empty() {
        out.push(json!({
            "type": "content-replacement",
            "sessionId": fork_id,
            "replacements": replacements,
            "uuid": new_uuid(),
            "timestamp": now,
        }));
    }
    let title = match options
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
    {
        Some(title) => title.to_owned(),
        None => format!(
            "{} (fork)",
            derived_title(raw, session_id).unwrap_or_else(|| "Forked session".into())
        ),
    };
    out.push(json!({
        "type": "custom-title",
        "sessionId": fork_id,
        "customTitle": title,
        "uuid": new_uuid(),
        "timestamp": now,
    }));
    Ok(out)
}

/// The source's custom title, else its AI title, else its first prompt.
fn derived_title(raw: &[StoreEntry], session_id: &str) -> Option<String> {
    let last = |field: &str| {
        raw.iter()
            .rev()
            .find_map(|e| e.str_field(field).filter(|s| !s.is_empty()))
            .map(std::borrow::Cow::into_owned)
    };
    last("customTitle").or_else(|| last("aiTitle")).or_else(|| {
        let summary = fold_session_summary(None, &SessionKey::new("-", session_id), raw);
        summary
            .data
            .get(
                if summary.data.get("first_prompt_locked") == Some(&Value::Bool(true)) {
                    "first_prompt"
                } else {
                    "command_fallback"
                },
            )
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    })
}
