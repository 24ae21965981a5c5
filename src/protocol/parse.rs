//! Parse entry points: one pass from a line of bytes to a typed value.

use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{DeserializeSeed, IgnoredAny};
use serde_json::error::Category;

use super::de::{KnownVariant, Wire, strip_position};
use super::error::prefix_of;
use super::notes::{self, NoteKind};
use super::{EncodeError, Message, ParseError, StdoutFrame};

/// Parses one line of the CLI's stdout (or of what we write to its stdin):
/// a message or a control frame.
///
/// Leading and trailing whitespace (including `\r\n`) is ignored.
///
/// ```
/// use claude_agent::protocol::{parse_line, StdoutFrame};
///
/// let frame = parse_line(br#"{"type":"control_cancel_request","request_id":"r1"}"#).unwrap();
/// assert_eq!(frame.kind(), "control_cancel_request");
/// assert!(matches!(frame, StdoutFrame::ControlCancelRequest(_)));
/// ```
#[inline]
pub fn parse_line(line: &[u8]) -> Result<StdoutFrame, ParseError> {
    parse_json(line, true)
}

/// Parses one line that must be a message (not a control frame).
///
/// A control frame is an [`ParseError::InvalidField`] on `type`.
pub fn parse_message(line: &[u8]) -> Result<Message, ParseError> {
    parse_json(line, true)
}

/// Parses any protocol type from JSON text, with typed errors. With
/// `object`, anything but a JSON object is rejected up front.
pub(crate) fn parse_json<'a, T: Deserialize<'a>>(
    line: &'a [u8],
    object: bool,
) -> Result<T, ParseError> {
    parse_json_seed(line, object, PhantomData::<T>)
}

/// Parses the struct of one variant of a tagged enum whose tag is already
/// known (`"subtype": "can_use_tool"`): only that struct's decoder is
/// compiled in, not every variant's.
pub(crate) fn parse_json_variant<W: Wire>(
    line: &[u8],
    key: &'static str,
    tag: &str,
) -> Result<W, ParseError> {
    parse_json_seed(line, true, KnownVariant::<W>::new(key, tag))
}

/// [`parse_json`] with a seed.
fn parse_json_seed<'a, S: DeserializeSeed<'a>>(
    line: &'a [u8],
    object: bool,
    seed: S,
) -> Result<S::Value, ParseError> {
    let body = trim_json_whitespace(line);
    match body.first() {
        Some(b'{') => {}
        Some(_) if !object => {}
        _ => {
            let prefix = prefix_of(line);
            return Err(
                if !body.is_empty() && serde_json::from_slice::<IgnoredAny>(body).is_ok() {
                    ParseError::NotAnObject { prefix }
                } else {
                    ParseError::NotJson { prefix }
                },
            );
        }
    }
    notes::reset();
    // Validating UTF-8 once over the whole line is cheaper than serde_json
    // validating each string separately. It also keeps one reader type: the
    // typed seed is compiled for `StrRead` only, as the replayed members are
    // (a second reader would compile every message type's decoder twice).
    let Ok(text) = std::str::from_utf8(body) else {
        return Err(invalid_utf8(body, line));
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let result = seed.deserialize(&mut de).and_then(|v| de.end().map(|()| v));
    result.map_err(|e| from_serde(&e, line))
}

/// A line that is not UTF-8 is malformed JSON (JSON allows other bytes
/// nowhere): serde_json's untyped pass over the bytes says where.
#[cold]
fn invalid_utf8(body: &[u8], line: &[u8]) -> ParseError {
    match serde_json::from_slice::<serde_json::Value>(body) {
        Err(e) => from_serde(&e, line),
        // Unreachable: a string that is not UTF-8 fails that pass.
        Ok(_) => ParseError::Malformed {
            line: 1,
            column: std::str::from_utf8(body)
                .err()
                .map_or(0, |e| e.valid_up_to())
                + 1,
            reason: "invalid unicode code point".to_owned(),
            prefix: prefix_of(line),
        },
    }
}

/// Trims what JSON calls whitespace (not all ASCII whitespace: a form
/// feed is not JSON, and `trim_ascii` would accept it).
fn trim_json_whitespace(mut b: &[u8]) -> &[u8] {
    const WS: &[u8] = b" \t\n\r";
    while let [first, rest @ ..] = b {
        if !WS.contains(first) {
            break;
        }
        b = rest;
    }
    while let [rest @ .., last] = b {
        if !WS.contains(last) {
            break;
        }
        b = rest;
    }
    b
}

fn from_serde(e: &serde_json::Error, line: &[u8]) -> ParseError {
    let prefix = prefix_of(line);
    let text = e.to_string();
    let malformed = |reason: &str| ParseError::Malformed {
        line: e.line(),
        column: e.column(),
        reason: strip_position(strip_position(reason)).to_owned(),
        prefix: prefix.clone(),
    };
    if !matches!(e.classify(), Category::Data) {
        notes::reset();
        return malformed(&text);
    }
    let n = notes::take();
    let field = n
        .path
        .iter()
        .rev()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(".");
    let message_type = if n.label.is_empty() { "frame" } else { n.label };
    match n.kind {
        Some(NoteKind::Missing) => ParseError::MissingField {
            message_type,
            field,
            prefix,
        },
        Some(NoteKind::Syntax(reason)) => malformed(&reason),
        Some(NoteKind::Invalid) | None => ParseError::InvalidField {
            message_type,
            field,
            reason: strip_position(strip_position(&text)).to_owned(),
            prefix,
        },
    }
}

/// Serializes a protocol value as one JSON line (no trailing newline).
pub(crate) fn to_json<T: serde::Serialize>(v: &T) -> Result<String, EncodeError> {
    Ok(serde_json::to_string(v)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::Value;

    use super::*;
    use crate::protocol::{
        ControlRequestPayload, HookCallbackRequest, McpMessageRequest, PermissionRequest,
    };

    /// Every control request the CLI sent in the recorded transcripts.
    fn recorded_requests() -> Vec<Value> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/claude-code-2.1.332");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path().join("stdout.ndjson");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            for line in text.lines() {
                let v: Value = serde_json::from_str(line).unwrap();
                if v["type"] == "control_request" {
                    out.push(v["request"].clone());
                }
            }
        }
        out
    }

    #[test]
    fn a_known_subtype_parses_its_payload_exactly_as_the_tag_search_does_in_any_member_order() {
        let requests = recorded_requests();
        assert!(requests.len() >= 4, "{} requests", requests.len());
        let mut routed = 0;
        for request in requests {
            let subtype = request["subtype"].as_str().unwrap().to_owned();
            // The CLI's own order (tag first), then keys sorted (tag late).
            let as_sent = serde_json::to_vec(&request).unwrap();
            let mut tag_last = request.as_object().unwrap().clone();
            let tag = tag_last.remove("subtype").unwrap();
            let mut text = serde_json::to_string(&tag_last).unwrap();
            text.truncate(text.len() - 1);
            let sep = if tag_last.is_empty() { "" } else { "," };
            text.push_str(&format!("{sep}\"subtype\":{tag}}}"));
            for line in [as_sent, text.into_bytes()] {
                let searched: ControlRequestPayload = parse_json(&line, true).unwrap();
                let shown = String::from_utf8_lossy(&line).into_owned();
                match searched {
                    ControlRequestPayload::CanUseTool(p) => {
                        let known: PermissionRequest =
                            parse_json_variant(&line, "subtype", &subtype).unwrap();
                        assert_eq!(known, p, "{shown}");
                    }
                    ControlRequestPayload::HookCallback(h) => {
                        let known: HookCallbackRequest =
                            parse_json_variant(&line, "subtype", &subtype).unwrap();
                        assert_eq!(known, h, "{shown}");
                    }
                    ControlRequestPayload::McpMessage(m) => {
                        let known: McpMessageRequest =
                            parse_json_variant(&line, "subtype", &subtype).unwrap();
                        assert_eq!(known, m, "{shown}");
                    }
                    _ => continue,
                }
                routed += 1;
            }
        }
        assert!(routed >= 4, "{routed} routed requests compared");
    }

    #[test]
    fn a_known_subtype_rejects_a_member_that_contradicts_it() {
        let line = br#"{"subtype":"hook_callback","callback_id":"h1"}"#;
        let err =
            parse_json_variant::<PermissionRequest>(line, "subtype", "can_use_tool").unwrap_err();
        assert!(err.to_string().contains("subtype"), "{err}");
    }
}
