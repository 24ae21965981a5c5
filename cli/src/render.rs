//! A readable, one-line-per-frame transcript of typed frames.

use std::io::{self, Write};

use claude_agent::protocol::{
    ApiRetry, ApiStreamEvent, Content, ContentBlock, ControlRequestPayload, ControlResponseBody,
    Delta, Message, StdoutFrame, SystemMessage, ToolResultBlock, UserMessage,
};
use serde_json::Value;

/// Longest text shown for one item before it is cut.
const MAX_SHOWN: usize = 2000;

/// Renders frames as a transcript: who speaks, text, tool calls with ids,
/// tool results, and each turn's result with cost and turns.
#[derive(Debug, Default)]
pub(crate) struct Renderer;

impl Renderer {
    /// Writes one line for `frame`.
    pub(crate) fn frame<W: Write>(&mut self, w: &mut W, frame: &StdoutFrame) -> io::Result<()> {
        let line = match frame {
            StdoutFrame::Message(m) => message(m),
            StdoutFrame::ControlRequest(r) => {
                format!("[control] {} asks: {}", r.request_id, request(&r.request))
            }
            StdoutFrame::ControlResponse(r) => match &r.response {
                ControlResponseBody::Success(s) => format!("[control] {} answered", s.request_id),
                ControlResponseBody::Error(e) => format!(
                    "[control] {} failed: {}",
                    e.request_id,
                    shown(e.error.as_deref().unwrap_or("(no message)"))
                ),
                _ => format!("[control] {}", frame.kind()),
            },
            StdoutFrame::ControlCancelRequest(c) => {
                format!("[control] cancel {}", c.request_id)
            }
            _ => format!("[{}]", frame.kind()),
        };
        writeln!(w, "{line}")
    }
}

fn message(m: &Message) -> String {
    match m {
        Message::System(SystemMessage::Init(i)) => format!(
            "[system] session {} ready: model {}, cwd {}",
            i.session_id.as_deref().unwrap_or("?"),
            i.model.as_deref().unwrap_or("?"),
            i.cwd.as_deref().unwrap_or("?"),
        ),
        Message::System(_) => format!("[{}]", m.kind()),
        Message::Assistant(a) => {
            let blocks: Vec<String> = a.message.blocks().iter().map(block).collect();
            format!("[assistant] {}", blocks.join(" | "))
        }
        Message::User(u) => user(u),
        Message::Result(r) => {
            let cost = r
                .total_cost_usd
                .as_ref()
                .and_then(|n| n.as_f64())
                .map_or_else(|| "?".to_owned(), |c| format!("${c:.6}"));
            let mut s = format!(
                "[result] {} after {} turn(s), cost {cost}, {} ms",
                r.subtype,
                r.num_turns
                    .map_or_else(|| "?".to_owned(), |n| n.to_string()),
                r.duration_ms
                    .map_or_else(|| "?".to_owned(), |n| n.to_string()),
            );
            if let Some(text) = &r.result {
                s.push_str(": ");
                s.push_str(&shown(text));
            }
            s
        }
        Message::StreamEvent(e) => match &e.event {
            ApiStreamEvent::ContentBlockDelta(d) => match &d.delta {
                Some(Delta::Text(t)) => {
                    format!("[stream] text {}", shown(t.text.as_deref().unwrap_or("")))
                }
                Some(Delta::InputJson(j)) => {
                    format!(
                        "[stream] input {}",
                        shown(j.partial_json.as_deref().unwrap_or(""))
                    )
                }
                Some(Delta::Thinking(t)) => {
                    format!(
                        "[stream] thinking {}",
                        shown(t.thinking.as_deref().unwrap_or(""))
                    )
                }
                Some(other) => format!("[stream] {}", other.tag()),
                None => "[stream] delta".to_owned(),
            },
            other => format!("[stream] {}", other.tag()),
        },
        Message::RateLimitEvent(_) => "[rate limit]".to_owned(),
        Message::ConversationReset(_) => "[conversation reset]".to_owned(),
        Message::Unknown { kind, .. } => format!("[unknown type \"{kind}\"]"),
        _ => format!("[{}]", m.kind()),
    }
}

/// A `system/api_retry` for a person: `retrying the API call in 1.2 s,
/// attempt 2 of 10: server error (HTTP 529)`.
pub(crate) fn retry_line(r: &ApiRetry) -> String {
    let delay = r.retry_delay_ms.map_or_else(
        || "a moment".to_owned(),
        |ms| format!("{:.1} s", ms as f64 / 1e3),
    );
    let attempt = match (r.attempt, r.max_retries) {
        (Some(k), Some(n)) => format!(", attempt {k} of {n}"),
        (Some(k), None) => format!(", attempt {k}"),
        _ => String::new(),
    };
    let mut reason = match &r.error {
        Some(Value::String(s)) => s.replace('_', " "),
        Some(Value::Object(o)) => o
            .get("message")
            .and_then(Value::as_str)
            .map_or_else(|| compact(&Value::Object(o.clone())), shown),
        Some(Value::Null) | None => String::new(),
        Some(other) => compact(other),
    };
    let waited = r
        .no_response
        .as_ref()
        .and_then(|n| n.get("waited_ms"))
        .and_then(Value::as_u64);
    let detail = match (r.error_status, waited) {
        (Some(status), _) => Some(format!("HTTP {status}")),
        (None, Some(ms)) => Some(format!("no response in {:.1} s", ms as f64 / 1e3)),
        (None, None) => None,
    };
    reason = match (reason.is_empty(), detail) {
        (true, Some(d)) => d,
        (false, Some(d)) => format!("{reason} ({d})"),
        (true, None) => "the call failed".to_owned(),
        (false, None) => reason,
    };
    format!("retrying the API call in {delay}{attempt}: {reason}")
}

fn user(u: &UserMessage) -> String {
    match &u.message.content {
        Some(Content::Text(t)) => format!("[user] {}", shown(t)),
        Some(Content::Blocks(blocks)) => {
            let parts: Vec<String> = blocks.iter().map(block).collect();
            format!("[user] {}", parts.join(" | "))
        }
        None => "[user]".to_owned(),
    }
}

fn block(b: &ContentBlock) -> String {
    match b {
        ContentBlock::Text(t) => shown(t.text.as_deref().unwrap_or("")),
        ContentBlock::Thinking(t) => {
            format!("(thinking) {}", shown(t.thinking.as_deref().unwrap_or("")))
        }
        ContentBlock::RedactedThinking(_) => "(redacted thinking)".to_owned(),
        ContentBlock::ToolUse(t) | ContentBlock::ServerToolUse(t) => format!(
            "tool call {} ({}): {}",
            t.name.as_deref().unwrap_or("?"),
            t.id.as_deref().unwrap_or("?"),
            t.input.as_ref().map_or_else(String::new, compact),
        ),
        ContentBlock::ToolResult(r) => tool_result(r),
        ContentBlock::ServerToolResult { kind, body } => {
            format!("{kind} ({})", body.tool_use_id.as_deref().unwrap_or("?"))
        }
        ContentBlock::Image(_) => "(image)".to_owned(),
        ContentBlock::Document(_) => "(document)".to_owned(),
        ContentBlock::Unknown { kind, .. } => format!("(unknown block \"{kind}\")"),
        _ => format!("({})", b.tag()),
    }
}

fn tool_result(r: &ToolResultBlock) -> String {
    let text = match &r.content {
        Some(Content::Text(t)) => shown(t),
        Some(Content::Blocks(b)) => b.iter().map(block).collect::<Vec<_>>().join(" "),
        None => String::new(),
    };
    let status = if r.is_error == Some(true) {
        "error"
    } else {
        "ok"
    };
    format!(
        "tool result {} ({status}): {text}",
        r.tool_use_id.as_deref().unwrap_or("?")
    )
}

fn request(p: &ControlRequestPayload) -> String {
    match p {
        ControlRequestPayload::CanUseTool(r) => format!(
            "may tool {} ({}) run? input {}",
            r.tool_name.as_deref().unwrap_or("?"),
            r.tool_use_id.as_deref().unwrap_or("?"),
            r.input.as_ref().map_or_else(String::new, compact),
        ),
        ControlRequestPayload::HookCallback(h) => format!(
            "run hook {} for {}",
            h.callback_id.as_deref().unwrap_or("?"),
            h.tool_use_id.as_deref().unwrap_or("-"),
        ),
        ControlRequestPayload::McpMessage(m) => format!(
            "mcp server {}: {}",
            m.server_name.as_deref().unwrap_or("?"),
            m.message
                .as_ref()
                .and_then(|j| j.method.as_deref())
                .unwrap_or("(response)"),
        ),
        other => other.tag().to_string(),
    }
}

/// One-line JSON for tool inputs and deltas.
fn compact(v: &Value) -> String {
    shown(&v.to_string())
}

/// Text on one line, cut at [`MAX_SHOWN`] bytes.
fn shown(text: &str) -> String {
    let one_line = text.replace('\n', " ⏎ ");
    if one_line.len() <= MAX_SHOWN {
        return one_line;
    }
    let mut cut = MAX_SHOWN;
    while !one_line.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}… ({} more bytes)",
        &one_line[..cut],
        one_line.len() - cut
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_on_a_char_boundary() {
        let s = "é".repeat(MAX_SHOWN);
        let out = shown(&s);
        assert!(out.ends_with("more bytes)"));
        assert!(out.len() < s.len());
    }

    #[test]
    fn a_retry_says_when_which_attempt_and_why() {
        let retry = |v: serde_json::Value| {
            let Ok(StdoutFrame::Message(Message::System(SystemMessage::ApiRetry(r)))) =
                claude_agent::protocol::parse_line(v.to_string().as_bytes())
            else {
                panic!("not an api_retry");
            };
            retry_line(&r)
        };
        let line = retry(serde_json::json!({"type": "system", "subtype": "api_retry",
            "attempt": 2, "max_retries": 10, "retry_delay_ms": 1200, "error_status": 529,
            "error": "server_error"}));
        assert_eq!(
            line,
            "retrying the API call in 1.2 s, attempt 2 of 10: server error (HTTP 529)"
        );
        let line = retry(serde_json::json!({"type": "system", "subtype": "api_retry",
            "attempt": 1, "retry_delay_ms": 500, "no_response": {"waited_ms": 30000}}));
        assert_eq!(
            line,
            "retrying the API call in 0.5 s, attempt 1: no response in 30.0 s"
        );
    }

    #[test]
    fn newlines_stay_on_one_line() {
        assert_eq!(shown("a\nb"), "a ⏎ b");
    }
}
