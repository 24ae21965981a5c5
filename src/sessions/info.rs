//! [`SessionInfo`]: what a listing says about one session, derived from its
//! summary the way the official SDKs do.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::store::SessionSummary;

/// One session as [`list_sessions`](super::list_sessions) and
/// [`session_info`](super::session_info) describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionInfo {
    /// The session id.
    pub session_id: String,
    /// What to show for it: the custom (or AI) title, else the last
    /// prompt, else the CLI's summary, else the first prompt.
    pub summary: String,
    /// When it was last written, Unix epoch milliseconds (file mtime, or
    /// the store's write clock).
    pub last_modified: i64,
    /// The transcript's size in bytes (local transcripts only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_size: Option<u64>,
    /// The user-set title, else the AI-generated one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_title: Option<String>,
    /// The first real user prompt (at most 200 characters), else the first
    /// slash command's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_prompt: Option<String>,
    /// The last git branch recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
    /// The working directory the session started in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The session's tag, if one is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// When the session started (its first entry's timestamp), Unix epoch
    /// milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    /// Whether the session is archived ([`archive_session`](super::archive_session)):
    /// `Some(false)` once unarchived or prompted since; `None` when it
    /// never was, and always from a session store (as in the TS SDK).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<bool>,
    /// The project the session was found in (the key the other helpers
    /// take), set by the listings and lookups of this module.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_key: Option<String>,
}

impl SessionInfo {
    /// The info a summary gives, or `None` for a subagent's sidechain
    /// session and for one with nothing to show (metadata only).
    pub fn from_summary(summary: &SessionSummary, file_size: Option<u64>) -> Option<Self> {
        let data = &summary.data;
        if data.get("is_sidechain") == Some(&Value::Bool(true)) {
            return None;
        }
        let first_prompt = if data.get("first_prompt_locked") == Some(&Value::Bool(true)) {
            text(data, "first_prompt")
        } else {
            text(data, "command_fallback")
        };
        let custom_title = text(data, "custom_title").or_else(|| text(data, "ai_title"));
        let shown = custom_title
            .clone()
            .or_else(|| text(data, "last_prompt"))
            .or_else(|| text(data, "summary_hint"))
            .or_else(|| first_prompt.clone())?;
        Some(Self {
            session_id: summary.session_id.clone(),
            summary: shown,
            last_modified: summary.mtime,
            file_size,
            custom_title,
            first_prompt,
            git_branch: text(data, "git_branch"),
            cwd: text(data, "cwd"),
            tag: text(data, "tag"),
            created_at: data.get("created_at").and_then(Value::as_i64),
            archived: None,
            project_key: None,
        })
    }
}

impl SessionInfo {
    /// [`last_modified`](Self::last_modified) as an ISO-8601 UTC timestamp.
    pub fn last_modified_iso(&self) -> String {
        super::time::epoch_ms_to_iso(self.last_modified)
    }
}

/// A non-empty string field.
fn text(data: &Map<String, Value>, field: &str) -> Option<String> {
    data.get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::{SessionKey, StoreEntry, fold_session_summary};

    fn info(entries: &[Value]) -> Option<SessionInfo> {
        let entries: Vec<StoreEntry> = entries.iter().map(StoreEntry::from).collect();
        let summary = fold_session_summary(None, &SessionKey::new("p", "s"), &entries);
        SessionInfo::from_summary(&summary, None)
    }

    fn user(text: &str) -> Value {
        json!({"type": "user", "message": {"role": "user", "content": text}})
    }

    #[test]
    fn the_custom_title_wins_over_the_ai_title_and_prompts() {
        let got = info(&[
            user("hello"),
            json!({"type": "ai-title", "aiTitle": "AI"}),
            json!({"type": "custom-title", "customTitle": "Mine"}),
        ])
        .unwrap_or_else(|| panic!("no info"));
        assert_eq!(got.summary, "Mine");
        assert_eq!(got.custom_title.as_deref(), Some("Mine"));
        assert_eq!(got.first_prompt.as_deref(), Some("hello"));
    }

    #[test]
    fn the_last_prompt_beats_the_first_when_untitled() {
        let got = info(&[
            user("first"),
            json!({"type": "last-prompt", "lastPrompt": "later"}),
        ]);
        assert_eq!(got.map(|i| i.summary).as_deref(), Some("later"));
    }

    #[test]
    fn sidechain_and_metadata_only_sessions_are_not_listed() {
        assert_eq!(
            info(&[json!({"type": "user", "isSidechain": true, "message": {"content": "x"}})]),
            None
        );
        assert_eq!(info(&[json!({"type": "atis-latch"})]), None);
    }

    #[test]
    fn an_empty_tag_clears_the_tag() {
        let tagged = info(&[user("x"), json!({"type": "tag", "tag": "t"})]);
        assert_eq!(tagged.and_then(|i| i.tag).as_deref(), Some("t"));
        let cleared = info(&[
            user("x"),
            json!({"type": "tag", "tag": "t"}),
            json!({"type": "tag", "tag": ""}),
        ]);
        assert_eq!(cleared.and_then(|i| i.tag), None);
    }
}
