//! How `sessions` prints: readable lines, or one JSON object per line with
//! a `kind`, like `run --json`.

use std::io::Write;

use claude_agent::sessions::{MessageKind, SessionInfo, SessionMessage};
use serde_json::{Value, json};

pub(super) struct Output {
    json: bool,
}

impl Output {
    pub(super) fn new(json: bool) -> Self {
        Self { json }
    }

    fn line(&self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout (e.g. `| head`) is not an error worth reporting.
        let _ = writeln!(stdout, "{text}");
    }

    fn object(&self, kind: &str, body: Value) {
        let mut value = json!({"kind": kind});
        if let (Some(out), Value::Object(fields)) = (value.as_object_mut(), body) {
            out.extend(fields);
        }
        self.line(&value.to_string());
    }

    /// `sessions list`: one object per session, or a table under a header
    /// row (nothing at all when there are none).
    pub(super) fn sessions(&self, sessions: &[SessionInfo]) {
        if self.json {
            for info in sessions {
                self.session(info);
            }
            return;
        }
        if sessions.is_empty() {
            return;
        }
        let rows: Vec<(String, &SessionInfo)> = sessions
            .iter()
            .map(|i| (i.last_modified_iso(), i))
            .collect();
        let id_width = rows
            .iter()
            .map(|(_, i)| i.session_id.len())
            .max()
            .unwrap_or(0);
        let time_width = rows.iter().map(|(t, _)| t.len()).max().unwrap_or(0);
        self.line(&format!(
            "{:<id_width$}  {:<time_width$}  TITLE [TAG] (BRANCH)",
            "SESSION", "LAST MODIFIED"
        ));
        for (time, info) in rows {
            let mut text = format!(
                "{:<id_width$}  {time:<time_width$}  {}",
                info.session_id, info.summary
            );
            push_tag_and_branch(&mut text, info);
            self.line(&text);
        }
    }

    pub(super) fn session(&self, info: &SessionInfo) {
        if self.json {
            self.object("session", serde_json::to_value(info).unwrap_or(Value::Null));
            return;
        }
        let mut text = format!(
            "{}  {}  {}",
            info.session_id,
            info.last_modified_iso(),
            info.summary
        );
        push_tag_and_branch(&mut text, info);
        self.line(&text);
    }

    pub(super) fn message(&self, message: &SessionMessage) {
        if self.json {
            self.object(
                "message",
                serde_json::to_value(message).unwrap_or(Value::Null),
            );
            return;
        }
        let who = match message.kind {
            MessageKind::User => "user",
            MessageKind::Assistant => "assistant",
            MessageKind::System => "system",
        };
        self.line(&format!(
            "{who}: {}",
            summarize(&message.message["content"])
        ));
    }

    pub(super) fn subagent(&self, agent: &str) {
        if self.json {
            self.object("subagent", json!({"agent_id": agent}));
        } else {
            self.line(&format!("subagent: {agent}"));
        }
    }

    /// A mutation's outcome.
    pub(super) fn done(&self, what: &str, session_id: &str, detail: &str) {
        if self.json {
            self.object(what, json!({"session_id": session_id, "detail": detail}));
        } else if detail.is_empty() {
            self.line(&format!("{what} {session_id}"));
        } else {
            self.line(&format!("{what} {session_id}: {detail}"));
        }
    }
}

/// `  [tag]  (branch)  archived`, each when the session has it.
fn push_tag_and_branch(text: &mut String, info: &SessionInfo) {
    if let Some(tag) = &info.tag {
        text.push_str(&format!("  [{tag}]"));
    }
    if info.archived == Some(true) {
        text.push_str("  archived");
    }
    if let Some(branch) = &info.git_branch {
        text.push_str(&format!("  ({branch})"));
    }
}

/// Content as one readable line: text as is, other blocks by kind.
fn summarize(content: &Value) -> String {
    let text = match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| match block["type"].as_str() {
                Some("text") => block["text"].as_str().unwrap_or_default().to_owned(),
                Some("tool_use") => {
                    format!("[tool call {}]", block["name"].as_str().unwrap_or("?"))
                }
                Some("tool_result") => "[tool result]".to_owned(),
                Some(other) => format!("[{other}]"),
                None => "[?]".to_owned(),
            })
            .collect::<Vec<_>>()
            .join(" "),
        _ => String::new(),
    };
    text.replace('\n', " ")
}
