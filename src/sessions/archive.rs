//! Archiving a session, as the TS SDK and the CLI mark it: a small file,
//! `<project>/<session>/archived.json` holding
//! `{"archived": bool, "at": "<ISO time>", "by": "sdk"}`, beside the
//! transcript (which is not touched). A listing says `archived: true`
//! until a prompt is sent in the session after the mark: that unarchives
//! it without rewriting the mark.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::error::{SessionsError, check_session_id};
use super::local::LocalSessions;
use super::source::SessionSource;
use super::time::now_iso;
use crate::store::{SessionKey, StoreEntry, iso_to_epoch_ms};

/// The mark's file name in the session's folder.
const MARK: &str = "archived.json";

/// Largest mark read; a bigger file is not a mark (the TS SDK's bound).
const MARK_MAX_BYTES: usize = 4096;

/// Archive a local session: it stays on disk and listed, with
/// `archived: Some(true)`, until unarchived or prompted in again. Fails
/// with [`SessionsError::LocalOnly`] for a session store, which holds no
/// such mark (nor does the TS SDK's).
pub async fn archive_session(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<(), SessionsError> {
    set_archived(source, project_key, session_id, true).await
}

/// Undo [`archive_session`]: the session lists with `archived: Some(false)`.
pub async fn unarchive_session(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<(), SessionsError> {
    set_archived(source, project_key, session_id, false).await
}

async fn set_archived(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
    archived: bool,
) -> Result<(), SessionsError> {
    check_session_id(session_id)?;
    let SessionSource::Local(local) = source else {
        return Err(SessionsError::LocalOnly { what: "archiving" });
    };
    let transcript = local.path_of(&SessionKey::new(project_key, session_id))?;
    let exists = tokio::fs::metadata(&transcript)
        .await
        .is_ok_and(|m| m.is_file() && m.len() > 0);
    if !exists {
        return Err(SessionsError::not_found(project_key, session_id));
    }
    let dir = local.session_dir(project_key, session_id)?;
    let mark = json!({"archived": archived, "at": now_iso(), "by": "sdk"}).to_string();
    write_private(&dir, &dir.join(MARK), mark.as_bytes()).await
}

/// Write `bytes` to `path` whole (a temporary file renamed over it), the
/// folder owner-only as the CLI makes it, the file owner-read/write.
async fn write_private(dir: &Path, path: &Path, bytes: &[u8]) -> Result<(), SessionsError> {
    let mut builder = tokio::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    builder.mode(0o700);
    builder
        .create(dir)
        .await
        .map_err(|e| SessionsError::io(format!("create {}", dir.display()), e))?;
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut options = tokio::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    options.mode(0o600);
    let write = |e| SessionsError::io(format!("write {}", tmp.display()), e);
    let mut file = options.open(&tmp).await.map_err(write)?;
    let written = async {
        use tokio::io::AsyncWriteExt;
        file.write_all(bytes).await?;
        file.flush().await
    }
    .await;
    drop(file);
    if let Err(e) = written {
        let _ = tokio::fs::remove_file(&tmp).await;
        return Err(write(e));
    }
    tokio::fs::rename(&tmp, path).await.map_err(|e| {
        SessionsError::io(format!("rename {} to {}", tmp.display(), path.display()), e)
    })
}

/// A session's archive mark: whether it says archived, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    archived: bool,
    at_ms: i64,
}

/// The mark of a local session, if it has a readable one (a corrupt or
/// oversized mark is as good as none, as in the TS SDK).
pub(crate) async fn read_mark(
    local: &LocalSessions,
    project_key: &str,
    session_id: &str,
) -> Result<Option<Mark>, SessionsError> {
    let path: PathBuf = local.session_dir(project_key, session_id)?.join(MARK);
    let bytes = match tokio::fs::read(&path).await {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(SessionsError::io(format!("read {}", path.display()), e)),
    };
    Ok(parse_mark(&bytes))
}

fn parse_mark(bytes: &[u8]) -> Option<Mark> {
    if bytes.len() > MARK_MAX_BYTES {
        return None;
    }
    let value: Value = serde_json::from_slice(bytes).ok()?;
    Some(Mark {
        archived: value.get("archived")?.as_bool()?,
        at_ms: iso_to_epoch_ms(value.get("at")?.as_str()?)?,
    })
}

/// What a listing says: `None` without a mark, `false` when the mark says
/// so or a prompt came after it, else `true`.
pub(crate) fn archived(mark: Option<Mark>, entries: &[StoreEntry]) -> Option<bool> {
    let mark = mark?;
    if !mark.archived {
        return Some(false);
    }
    Some(!entries.iter().any(|e| prompted_after(e, mark.at_ms)))
}

/// Whether `entry` is a prompt the user sent after `at_ms`: a user entry
/// (not meta, sidechain, compacted, virtual, a tool result, or from a
/// non-human origin) or a queued command, with text, an image or a
/// document.
fn prompted_after(entry: &StoreEntry, at_ms: i64) -> bool {
    let kind = entry.str_field("type");
    if !matches!(kind.as_deref(), Some("user" | "attachment")) {
        return false;
    }
    // Rare enough (a prompt's line, once per listing of an archived
    // session) to parse whole.
    let Ok(value) = entry.to_value() else {
        return false;
    };
    let (content, origin, flags) = if kind.as_deref() == Some("user") {
        let flags = [
            "isMeta",
            "isSidechain",
            "isCompactSummary",
            "isVirtual",
            "isVisibleInTranscriptOnly",
        ];
        (
            value.pointer("/message/content"),
            value.get("origin"),
            flags,
        )
    } else {
        if value.pointer("/attachment/type").and_then(Value::as_str) != Some("queued_command") {
            return false;
        }
        let flags = ["isSidechain", "isMeta", "", "", ""];
        (
            value.pointer("/attachment/prompt"),
            value.pointer("/attachment/origin"),
            flags,
        )
    };
    let set = |flag: &str| !flag.is_empty() && value.get(flag).is_some_and(|v| v != &json!(false));
    if flags.iter().any(|f| set(f)) || value.pointer("/attachment/isMeta") == Some(&json!(true)) {
        return false;
    }
    if origin.is_some_and(|o| o.get("kind").and_then(Value::as_str) != Some("human")) {
        return false;
    }
    let is_prompt = match content {
        Some(Value::String(text)) => !text.trim().is_empty(),
        Some(Value::Array(blocks)) => {
            let kind = |b: &Value| b.get("type").and_then(Value::as_str).map(str::to_owned);
            !blocks
                .iter()
                .any(|b| kind(b).as_deref() == Some("tool_result"))
                && blocks.iter().any(|b| match kind(b).as_deref() {
                    Some("text") => b
                        .get("text")
                        .and_then(Value::as_str)
                        .is_some_and(|t| !t.trim().is_empty()),
                    Some("image" | "document") => true,
                    _ => false,
                })
        }
        _ => false,
    };
    is_prompt
        && value
            .get("timestamp")
            .and_then(Value::as_str)
            .and_then(iso_to_epoch_ms)
            .is_some_and(|t| t > at_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(archived: bool) -> Option<Mark> {
        parse_mark(
            json!({"archived": archived, "at": "2026-01-01T00:00:00.000Z", "by": "sdk"})
                .to_string()
                .as_bytes(),
        )
    }

    fn user(content: Value, at: &str) -> StoreEntry {
        StoreEntry::from(json!({"type": "user", "timestamp": at, "message": {"content": content}}))
    }

    #[test]
    fn no_mark_is_none_and_an_unarchive_mark_is_false() {
        assert_eq!(archived(None, &[]), None);
        assert_eq!(archived(mark(false), &[]), Some(false));
        assert_eq!(archived(mark(true), &[]), Some(true));
        assert_eq!(parse_mark(b"{\"archived\": 1}"), None);
        assert_eq!(parse_mark(&vec![b' '; MARK_MAX_BYTES + 1]), None);
    }

    #[test]
    fn a_prompt_after_the_mark_unarchives_and_one_before_does_not() {
        let before = user(json!("hi"), "2025-12-31T23:59:59.000Z");
        assert_eq!(archived(mark(true), &[before]), Some(true));
        let after = user(json!("again"), "2026-01-01T00:00:01.000Z");
        assert_eq!(archived(mark(true), &[after]), Some(false));
    }

    #[test]
    fn tool_results_meta_entries_and_other_origins_are_not_prompts() {
        let at = "2026-02-01T00:00:00.000Z";
        let result = user(json!([{"type": "tool_result", "content": "x"}]), at);
        let mut meta = json!({"type": "user", "isMeta": true, "timestamp": at,
            "message": {"content": "x"}});
        let task = json!({"type": "user", "origin": {"kind": "task-notification"},
            "timestamp": at, "message": {"content": "x"}});
        assert_eq!(
            archived(
                mark(true),
                &[result, StoreEntry::from(&meta), StoreEntry::from(task)]
            ),
            Some(true)
        );
        meta["isMeta"] = json!(false);
        assert_eq!(archived(mark(true), &[StoreEntry::from(meta)]), Some(false));
        let queued = json!({"type": "attachment", "timestamp": at,
            "attachment": {"type": "queued_command", "prompt": "later"}});
        assert_eq!(
            archived(mark(true), &[StoreEntry::from(queued)]),
            Some(false)
        );
    }
}
