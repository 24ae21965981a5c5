//! The incremental session summary: each appended batch folds into the
//! previous summary without re-reading the transcript, so a store can list
//! every session's title, first prompt and so on in one call.
//!
//! Every field is set-once (`is_sidechain`, `created_at`, `cwd`,
//! `first_prompt`, `command_fallback`) or last-wins (`custom_title`,
//! `ai_title`, `last_prompt`, `summary_hint`, `git_branch`, `tag`), which is
//! what makes the fold incremental.

use std::borrow::Cow;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::entry::{SessionSummary, StoreEntry};
use super::key::SessionKey;
use super::store_entry::{pick, raw_is_true, raw_str};
use super::timestamp::iso_to_epoch_ms;

/// Entry fields copied into the summary whenever they are strings, last one
/// winning: (entry field, summary field).
const LAST_WINS: [(&str, &str); 5] = [
    ("customTitle", "custom_title"),
    ("aiTitle", "ai_title"),
    ("lastPrompt", "last_prompt"),
    ("summary", "summary_hint"),
    ("gitBranch", "git_branch"),
];

/// Every top-level member the fold reads: [`Folded::scan`] picks them in
/// one pass over an entry's text, skipping the rest (a transcript entry is
/// mostly its `message`, which only a user prompt needs parsed).
const FIELDS: [&str; 13] = [
    "type",
    "isSidechain",
    "timestamp",
    "cwd",
    "isMeta",
    "isCompactSummary",
    "message",
    "tag",
    // LAST_WINS, in order.
    "customTitle",
    "aiTitle",
    "lastPrompt",
    "summary",
    "gitBranch",
];

/// Longest first prompt kept, in characters; longer ones end in `…`.
const FIRST_PROMPT_MAX_CHARS: usize = 200;

/// The members of one entry the fold reads, borrowed from its text.
struct Folded<'a>([Option<&'a RawValue>; FIELDS.len()]);

impl<'a> Folded<'a> {
    fn scan(entry: &'a StoreEntry) -> Self {
        Self(pick(entry.as_str(), &FIELDS))
    }

    fn raw(&self, name: &str) -> Option<&'a RawValue> {
        FIELDS
            .iter()
            .position(|f| *f == name)
            .and_then(|i| self.0[i])
    }

    fn str(&self, name: &str) -> Option<Cow<'a, str>> {
        self.raw(name).and_then(raw_str)
    }

    fn is_true(&self, name: &str) -> bool {
        raw_is_true(self.raw(name))
    }

    /// `message.content`, parsed (only user prompts get here).
    fn content(&self) -> Option<Value> {
        let message = self.raw("message")?;
        let [content] = pick(message.get(), &["content"]);
        serde_json::from_str(content?.get()).ok()
    }
}

/// Fold a batch of entries appended to `key` into `prev` (`None` for the
/// session's first batch). Pure: the `mtime` of `prev` is kept as is (0 for
/// a new summary); the store stamps it after persisting.
///
/// Reads only the members it folds from each entry's text (no
/// `serde_json::Value` tree per entry).
///
/// Only main transcripts have summaries: call this only when
/// `key.subpath` is `None`.
pub fn fold_session_summary(
    prev: Option<&SessionSummary>,
    key: &SessionKey,
    entries: &[StoreEntry],
) -> SessionSummary {
    fold_entries(prev, key, entries.iter())
}

/// [`fold_session_summary`] over borrowed entries (a store's fresh ones).
pub(crate) fn fold_entries<'e>(
    prev: Option<&SessionSummary>,
    key: &SessionKey,
    entries: impl Iterator<Item = &'e StoreEntry>,
) -> SessionSummary {
    let mut summary = prev.cloned().unwrap_or_else(|| SessionSummary {
        session_id: key.session_id.clone(),
        mtime: 0,
        data: Map::new(),
    });
    let data = &mut summary.data;
    for entry in entries {
        let entry = Folded::scan(entry);
        if !data.contains_key("is_sidechain") {
            data.insert("is_sidechain".into(), entry.is_true("isSidechain").into());
        }
        if !data.contains_key("created_at") {
            if let Some(ms) = entry.str("timestamp").and_then(|t| iso_to_epoch_ms(&t)) {
                data.insert("created_at".into(), ms.into());
            }
        }
        if !data.contains_key("cwd") {
            if let Some(cwd) = entry.str("cwd").filter(|c| !c.is_empty()) {
                data.insert("cwd".into(), cwd.into_owned().into());
            }
        }
        fold_first_prompt(data, &entry);
        for (from, to) in LAST_WINS {
            if let Some(value) = entry.str(from) {
                data.insert(to.into(), value.into_owned().into());
            }
        }
        if entry.str("type").as_deref() == Some("tag") {
            match entry.str("tag") {
                Some(tag) if !tag.is_empty() => {
                    data.insert("tag".into(), tag.into_owned().into());
                }
                // An empty or missing tag clears it.
                _ => {
                    data.remove("tag");
                }
            }
        }
    }
    summary
}

/// Latch the first real user prompt (`first_prompt`, with
/// `first_prompt_locked`), or remember the first slash command's name
/// (`command_fallback`) until one comes.
fn fold_first_prompt(data: &mut Map<String, Value>, entry: &Folded<'_>) {
    if data.get("first_prompt_locked") == Some(&Value::Bool(true))
        || entry.str("type").as_deref() != Some("user")
        || entry.is_true("isMeta")
        || entry.is_true("isCompactSummary")
    {
        return;
    }
    let content = entry.content();
    let blocks: Vec<&str> = match &content {
        Some(Value::String(text)) => vec![text.as_str()],
        Some(Value::Array(blocks)) => {
            if blocks
                .iter()
                .any(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
            {
                return;
            }
            blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect()
        }
        _ => return,
    };
    for raw in blocks {
        let flattened = raw.replace('\n', " ");
        let text = flattened.trim();
        if text.is_empty() {
            continue;
        }
        if let Some(name) = command_name(text) {
            let has_fallback = data
                .get("command_fallback")
                .and_then(Value::as_str)
                .is_some_and(|f| !f.is_empty());
            if !has_fallback {
                data.insert("command_fallback".into(), name.into());
            }
            continue;
        }
        if is_generated(text) {
            continue;
        }
        let prompt = if text.chars().count() > FIRST_PROMPT_MAX_CHARS {
            let cut: String = text.chars().take(FIRST_PROMPT_MAX_CHARS).collect();
            format!("{}\u{2026}", cut.trim_end())
        } else {
            text.to_owned()
        };
        data.insert("first_prompt".into(), prompt.into());
        data.insert("first_prompt_locked".into(), true.into());
        return;
    }
}

/// The name inside the first `<command-name>...</command-name>`.
fn command_name(text: &str) -> Option<&str> {
    const OPEN: &str = "<command-name>";
    let start = text.find(OPEN)? + OPEN.len();
    let len = text[start..].find("</command-name>")?;
    Some(&text[start..start + len])
}

/// Whether a (trimmed) prompt is one the CLI or an IDE generated rather
/// than the user typed.
fn is_generated(text: &str) -> bool {
    const PREFIXES: [&str; 4] = [
        "<local-command-stdout>",
        "<session-start-hook>",
        "<tick>",
        "<goal>",
    ];
    const WRAPPERS: [(&str, &str); 2] = [
        ("<ide_opened_file>", "</ide_opened_file>"),
        ("<ide_selection>", "</ide_selection>"),
    ];
    if PREFIXES.iter().any(|p| text.starts_with(p)) {
        return true;
    }
    if let Some(rest) = text.strip_prefix("[Request interrupted by user") {
        if rest.contains(']') {
            return true;
        }
    }
    WRAPPERS.iter().any(|(open, close)| {
        text.strip_prefix(open)
            .is_some_and(|rest| rest.ends_with(close))
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fold(entries: &[Value]) -> Map<String, Value> {
        fold_session_summary(None, &SessionKey::new("p", "s"), &raw(entries)).data
    }

    fn raw(entries: &[Value]) -> Vec<StoreEntry> {
        entries.iter().map(StoreEntry::from).collect()
    }

    #[test]
    fn set_once_fields_keep_the_first_value() {
        let data = fold(&[
            json!({"type": "user", "timestamp": "2024-01-01T00:00:00.000Z", "cwd": "/a", "isSidechain": true}),
            json!({"type": "user", "timestamp": "2024-01-02T00:00:00.000Z", "cwd": "/b", "isSidechain": false}),
        ]);
        assert_eq!(data["created_at"], json!(1_704_067_200_000_i64));
        assert_eq!(data["cwd"], json!("/a"));
        assert_eq!(data["is_sidechain"], json!(true));
    }

    #[test]
    fn last_wins_fields_take_the_latest_value_across_batches() {
        let key = SessionKey::new("p", "s");
        let first = fold_session_summary(
            None,
            &key,
            &raw(&[json!({"type": "x", "customTitle": "one", "gitBranch": "main"})]),
        );
        let mut stamped = first.clone();
        stamped.mtime = 1_700_000_000_000;
        let second = fold_session_summary(
            Some(&stamped),
            &key,
            &raw(&[json!({"type": "x", "customTitle": "two"})]),
        );
        assert_eq!(second.data["custom_title"], json!("two"));
        assert_eq!(second.data["git_branch"], json!("main"));
        assert_eq!(
            second.mtime, 1_700_000_000_000,
            "the fold keeps prev's mtime"
        );
        assert_eq!(first.mtime, 0);
    }

    #[test]
    fn first_prompt_skips_generated_text_and_tool_results() {
        let data = fold(&[
            json!({"type": "user", "message": {"content": "<local-command-stdout>x</local-command-stdout>"}}),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "content": "r"}, {"type": "text", "text": "no"}]}}),
            json!({"type": "user", "isMeta": true, "message": {"content": "meta"}}),
            json!({"type": "user", "message": {"content": "[Request interrupted by user for tool use]"}}),
            json!({"type": "user", "message": {"content": "<command-name>/review</command-name> args"}}),
            json!({"type": "user", "message": {"content": [{"type": "text", "text": "  fix\nthe bug  "}]}}),
            json!({"type": "user", "message": {"content": "later"}}),
        ]);
        assert_eq!(data["first_prompt"], json!("fix the bug"));
        assert_eq!(data["first_prompt_locked"], json!(true));
        assert_eq!(data["command_fallback"], json!("/review"));
    }

    #[test]
    fn long_first_prompts_are_cut_with_an_ellipsis() {
        let data = fold(&[json!({"type": "user", "message": {"content": "a".repeat(250)}})]);
        assert_eq!(
            data["first_prompt"],
            json!(format!("{}\u{2026}", "a".repeat(200)))
        );
    }

    #[test]
    fn an_empty_tag_clears_the_tag() {
        let data = fold(&[json!({"type": "tag", "tag": "red"})]);
        assert_eq!(data["tag"], json!("red"));
        let data = fold(&[
            json!({"type": "tag", "tag": "red"}),
            json!({"type": "tag", "tag": ""}),
        ]);
        assert!(!data.contains_key("tag"));
    }
}
