//! Rename, tag and delete a session. Renaming and tagging append the
//! entries the CLI itself writes (`custom-title`, `tag`); the last one
//! wins when the session is listed.

use serde_json::{Value, json};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

use super::error::{SessionsError, check_session_id};
use super::source::SessionSource;
use super::time::now_iso;
use crate::store::{SessionKey, StoreEntry};

/// Set a session's title (trimmed; must not be empty).
pub async fn rename_session(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    title: &str,
) -> Result<(), SessionsError> {
    check_session_id(session_id)?;
    let title = title.trim();
    if title.is_empty() {
        return Err(SessionsError::Empty { what: "title" });
    }
    let entry = stamped(json!({
        "type": "custom-title",
        "customTitle": title,
        "sessionId": session_id,
    }));
    let key = SessionKey::new(project_key, session_id);
    source.append(&key, &[type_first(entry)], false).await
}

/// Set a session's tag, or clear it with `None`. Invisible and
/// direction-changing characters are removed and the tag trimmed; what
/// remains must not be empty.
pub async fn tag_session(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    tag: Option<&str>,
) -> Result<(), SessionsError> {
    check_session_id(session_id)?;
    let tag = match tag {
        Some(tag) => {
            let clean = strip_invisible(tag);
            let clean = clean.trim();
            if clean.is_empty() {
                return Err(SessionsError::Empty { what: "tag" });
            }
            clean.to_owned()
        }
        // An empty tag is how the CLI records "no tag".
        None => String::new(),
    };
    let entry = stamped(json!({"type": "tag", "tag": tag, "sessionId": session_id}));
    let key = SessionKey::new(project_key, session_id);
    source.append(&key, &[type_first(entry)], false).await
}

/// Delete a session and its subagent transcripts. A store that cannot
/// delete fails with [`StoreError::Unsupported`](crate::store::StoreError::Unsupported).
pub async fn delete_session(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<(), SessionsError> {
    check_session_id(session_id)?;
    source
        .delete(&SessionKey::new(project_key, session_id))
        .await
}

/// `entry` with a fresh `uuid` (so store retries stay idempotent) and the
/// current `timestamp`.
pub(crate) fn stamped(mut entry: Value) -> Value {
    if let Value::Object(map) = &mut entry {
        map.insert("uuid".into(), new_uuid().into());
        map.insert("timestamp".into(), now_iso().into());
    }
    entry
}

/// `entry` as one line that begins `{"type":`, as the CLI and the official
/// SDKs write their metadata entries: the Python SDK finds a session's tag
/// by that prefix alone, so a tag written with sorted keys (`{"sessionId":`
/// first) would be invisible to it.
fn type_first(entry: Value) -> StoreEntry {
    let (Value::Object(map), Some(kind)) = (&entry, entry.get("type")) else {
        return StoreEntry::from(entry);
    };
    let mut rest = map.clone();
    rest.remove("type");
    let rest = Value::Object(rest).to_string();
    let tail = rest.strip_prefix('{').unwrap_or(&rest);
    let sep = if tail == "}" { "" } else { "," };
    // Valid by construction; the sorted form is the fallback all the same.
    StoreEntry::from_json(format!("{{\"type\":{kind}{sep}{tail}"))
        .unwrap_or_else(|_| StoreEntry::from(entry))
}

pub(crate) fn new_uuid() -> String {
    crate::random::uuid_v4()
}

/// Code points that hide or reorder text, which the official SDKs remove
/// by range as well as by category: zero-width spaces and marks,
/// directional overrides and isolates, the byte-order mark, private use.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{E000}'..='\u{F8FF}'
    ) || matches!(
        c.general_category(),
        GeneralCategory::Format | GeneralCategory::PrivateUse | GeneralCategory::Unassigned
    )
}

/// The official SDKs' tag sanitizer: NFKC, then invisible code points
/// removed, repeated until nothing changes (at most 10 rounds, since
/// normalizing can expose new ones).
fn strip_invisible(text: &str) -> String {
    let mut current = text.to_owned();
    for _ in 0..10 {
        let next: String = current.nfkc().filter(|&c| !is_invisible(c)).collect();
        if next == current {
            break;
        }
        current = next;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_entries_begin_with_their_type_as_the_official_sdks_read_them() {
        let tag = type_first(json!({"type": "tag", "tag": "t", "sessionId": "s", "uuid": "u"}));
        assert!(
            tag.as_str().starts_with(r#"{"type":"tag","#),
            "{}",
            tag.as_str()
        );
        assert_eq!(
            tag.to_value().unwrap(),
            json!({"type": "tag", "tag": "t", "sessionId": "s", "uuid": "u"})
        );
        assert_eq!(type_first(json!({"type": "x"})).as_str(), r#"{"type":"x"}"#);
    }

    #[test]
    fn invisible_characters_are_stripped_from_tags() {
        assert_eq!(strip_invisible("a\u{200B}b\u{202E}c\u{FEFF}"), "abc");
        assert_eq!(strip_invisible("\u{E000}"), "");
        assert_eq!(strip_invisible("plain tag"), "plain tag");
        // \u{00AD} (soft hyphen) and \u{2061} are format characters;
        // \u{0378} is unassigned.
        assert_eq!(strip_invisible("x\u{00AD}y\u{2061}z\u{0378}"), "xyz");
    }

    #[test]
    fn tags_are_nfkc_normalized_like_the_official_sdks() {
        // Full-width letters, a ligature and a composed accent.
        assert_eq!(strip_invisible("\u{FF34}\u{FF41}\u{FF47}"), "Tag");
        assert_eq!(strip_invisible("\u{FB01}x"), "fix");
        assert_eq!(strip_invisible("e\u{0301}"), "\u{00E9}");
    }
}
