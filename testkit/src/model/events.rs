//! The Messages API wire shapes: server-sent events and the equivalent
//! non-streaming JSON message.

use super::replies::Block;
use bytes::Bytes;
use serde_json::{Value, json};

/// Event name of the deltas that `chunk_delay` paces.
pub(crate) const DELTA: &str = "content_block_delta";

/// One server-sent event.
#[derive(Debug, Clone)]
pub(crate) struct Event {
    pub(crate) name: &'static str,
    pub(crate) data: Value,
}

impl Event {
    fn new(name: &'static str, data: Value) -> Self {
        Self { name, data }
    }

    /// `event: NAME\ndata: JSON\n\n`, the framing the API uses.
    pub(crate) fn to_sse(&self) -> Bytes {
        Bytes::from(format!("event: {}\ndata: {}\n\n", self.name, self.data))
    }
}

/// What identifies one assistant message.
#[derive(Debug, Clone)]
pub(crate) struct MessageMeta {
    pub(crate) id: String,
    pub(crate) model: String,
    pub(crate) input_tokens: u64,
}

fn usage(input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output_tokens,
    })
}

/// A rough token count (4 bytes a token), never zero, so usage figures
/// look plausible to the CLI's cost accounting.
pub(crate) fn estimate_tokens(bytes: usize) -> u64 {
    (bytes / 4).max(1) as u64
}

/// Output tokens for `blocks`.
pub(crate) fn output_tokens(blocks: &[Block]) -> u64 {
    let bytes = blocks
        .iter()
        .map(|b| match b {
            Block::Text { text, .. } => text.len(),
            Block::ToolUse { input, .. } => input.to_string().len(),
            Block::Thinking { thinking, .. } => thinking.len(),
        })
        .sum();
    estimate_tokens(bytes)
}

pub(crate) fn message_start(meta: &MessageMeta) -> Event {
    Event::new(
        "message_start",
        json!({
            "type": "message_start",
            "message": {
                "id": meta.id,
                "type": "message",
                "role": "assistant",
                "model": meta.model,
                "content": [],
                "stop_reason": null,
                "stop_sequence": null,
                "usage": usage(meta.input_tokens, 1),
            }
        }),
    )
}

/// `content_block_start`, its deltas, `content_block_stop`.
pub(crate) fn block_events(index: usize, block: &Block) -> Vec<Event> {
    let (start, deltas): (Value, Vec<Value>) = match block {
        Block::Text { text, chunks } => (
            json!({"type": "text", "text": ""}),
            split_chars(text, *chunks)
                .into_iter()
                .map(|t| json!({"type": "text_delta", "text": t}))
                .collect(),
        ),
        Block::ToolUse { id, name, input } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            split_chars(&input.to_string(), 3)
                .into_iter()
                .map(|p| json!({"type": "input_json_delta", "partial_json": p}))
                .collect(),
        ),
        Block::Thinking {
            thinking,
            signature,
        } => {
            let mut d: Vec<Value> = split_chars(thinking, 2)
                .into_iter()
                .map(|t| json!({"type": "thinking_delta", "thinking": t}))
                .collect();
            d.push(json!({"type": "signature_delta", "signature": signature}));
            (
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                d,
            )
        }
    };
    let mut events = Vec::with_capacity(deltas.len() + 2);
    events.push(Event::new(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": start}),
    ));
    events.extend(deltas.into_iter().map(|delta| {
        Event::new(
            DELTA,
            json!({"type": DELTA, "index": index, "delta": delta}),
        )
    }));
    events.push(Event::new(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": index}),
    ));
    events
}

/// How a message ends: its `stop_reason` and, for a refusal, the
/// `stop_details` the API adds (`{"type":"refusal","category":…}`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stop<'a> {
    pub(crate) reason: &'a str,
    pub(crate) details: Option<&'a Value>,
}

impl<'a> Stop<'a> {
    /// A stop with no `stop_details`.
    pub(crate) fn plain(reason: &'a str) -> Self {
        Self {
            reason,
            details: None,
        }
    }
}

/// `message_delta` and `message_stop`.
pub(crate) fn message_end(stop: Stop<'_>, output_tokens: u64) -> [Event; 2] {
    let mut delta = json!({"stop_reason": stop.reason, "stop_sequence": null});
    if let Some(details) = stop.details {
        delta["stop_details"] = details.clone();
    }
    [
        Event::new(
            "message_delta",
            json!({
                "type": "message_delta",
                "delta": delta,
                "usage": {"output_tokens": output_tokens},
            }),
        ),
        Event::new("message_stop", json!({"type": "message_stop"})),
    ]
}

/// Every event of a complete streamed message.
pub(crate) fn message_events(meta: &MessageMeta, blocks: &[Block], stop: Stop<'_>) -> Vec<Event> {
    let mut events = vec![message_start(meta)];
    for (i, b) in blocks.iter().enumerate() {
        events.extend(block_events(i, b));
    }
    events.extend(message_end(stop, output_tokens(blocks)));
    events
}

/// The non-streaming equivalent of [`message_events`].
pub(crate) fn message_json(meta: &MessageMeta, blocks: &[Block], stop: Stop<'_>) -> Value {
    let content: Vec<Value> = blocks
        .iter()
        .map(|b| match b {
            Block::Text { text, .. } => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
            Block::Thinking {
                thinking,
                signature,
            } => json!({"type": "thinking", "thinking": thinking, "signature": signature}),
        })
        .collect();
    let mut message = json!({
        "id": meta.id,
        "type": "message",
        "role": "assistant",
        "model": meta.model,
        "content": content,
        "stop_reason": stop.reason,
        "stop_sequence": null,
        "usage": usage(meta.input_tokens, output_tokens(blocks)),
    });
    if let Some(details) = stop.details {
        message["stop_details"] = details.clone();
    }
    message
}

/// `{"type":"error","error":{"type":…,"message":…}}`.
pub(crate) fn error_json(error_type: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": error_type, "message": message}})
}

/// Splits `s` into `n` pieces of near-equal char count (fewer if `s` has
/// fewer chars; one empty piece for an empty string), never inside a char.
pub(crate) fn split_chars(s: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    let (base, extra) = (chars.len() / n, chars.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut at = 0;
    for i in 0..n {
        let len = base + usize::from(i < extra);
        out.push(chars[at..at + len].iter().collect());
        at += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_keeps_every_char_in_order() {
        assert_eq!(split_chars("abcdefg", 3), ["abc", "de", "fg"]);
        assert_eq!(split_chars("héllo✓", 6).concat(), "héllo✓");
        assert_eq!(split_chars("ab", 5), ["a", "b"]);
        assert_eq!(split_chars("", 4), [""]);
        assert_eq!(split_chars("abc", 0), ["abc"]);
    }

    #[test]
    fn sse_framing() {
        let e = message_end(Stop::plain("end_turn"), 3)[1].to_sse();
        assert_eq!(
            &e[..],
            b"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
        );
    }
}
