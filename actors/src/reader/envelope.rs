//! Reading a frame's envelope without building a `serde_json::Value`.
//!
//! The reader needs four things from a line: its `type`, and for control
//! traffic the `request_id` and the payload. Everything else is skipped
//! (validated, not allocated), so a line is scanned once here and parsed for
//! meaning once by the consumer.

mod scan;

use std::ops::Range;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// The top-level fields the runtime looks at. Every field is raw so that an
/// unexpected shape in a field we don't route on is never fatal.
#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<&'a RawValue>,
    #[serde(borrow, default)]
    subtype: Option<&'a RawValue>,
    #[serde(borrow, default)]
    session_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    request_id: Option<&'a RawValue>,
    #[serde(borrow, default)]
    request: Option<&'a RawValue>,
    #[serde(borrow, default)]
    response: Option<&'a RawValue>,
}

/// A routed line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Envelope {
    /// A reply to one of our control requests.
    ControlResponse {
        request_id: String,
        outcome: Result<Value, String>,
    },
    /// A control request from the CLI; `request` is the span of its
    /// `request` member in the line (`None`: absent).
    ControlRequest {
        request_id: String,
        subtype: String,
        request: Option<Range<usize>>,
    },
    /// The CLI withdrew one of its control requests.
    ControlCancel { request_id: String },
    /// Anything else: for the consumer.
    Message {
        kind: String,
        /// `session_id` of a `system`/`init` frame.
        init_session_id: Option<String>,
    },
}

/// Why a line could not be routed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unroutable {
    NotJson,
    Malformed,
}

fn string(raw: Option<&RawValue>) -> Option<String> {
    raw.and_then(|r| serde_json::from_str::<String>(r.get()).ok())
}

#[derive(Deserialize)]
struct RawResponse {
    #[serde(default)]
    subtype: Option<String>,
    #[serde(default)]
    request_id: Option<String>,
    #[serde(default)]
    response: Option<Value>,
    #[serde(default)]
    error: Option<Value>,
}

/// Reads the envelope of one complete line.
///
/// Message lines (everything but control traffic) take one validating
/// pass of [`scan`] and allocate only their `type`; control traffic and what
/// the scanner leaves undecided go through serde ([`peek_serde`]).
pub(crate) fn peek(line: &[u8]) -> Result<Envelope, Unroutable> {
    let first = line.iter().find(|b| !b.is_ascii_whitespace());
    if first != Some(&b'{') {
        return Err(Unroutable::NotJson);
    }
    let m = match scan::scan(line) {
        scan::Scan::Object(m) => m,
        scan::Scan::Invalid => return Err(Unroutable::Malformed),
        scan::Scan::Undecided => return peek_serde(line),
    };
    let kind = m.kind.and_then(raw_string).ok_or(Unroutable::Malformed)?;
    match kind.as_str() {
        // The scan validated the line and found both members: no serde pass.
        "control_request" => return control_request(line, &m),
        "control_response" => return control_response(line, &m),
        "control_cancel_request" => {
            let request_id = m.request_id.and_then(raw_string);
            return request_id
                .map(|request_id| Envelope::ControlCancel { request_id })
                .ok_or(Unroutable::Malformed);
        }
        _ if kind.starts_with("control_") || m.control_fields => return peek_serde(line),
        _ => {}
    }
    // serde's raw values are text: keep its verdict on invalid UTF-8 there.
    for raw in [m.subtype, m.session_id].into_iter().flatten() {
        if std::str::from_utf8(raw).is_err() {
            return Err(Unroutable::Malformed);
        }
    }
    let init_session_id =
        if kind == "system" && m.subtype.and_then(raw_string).as_deref() == Some("init") {
            m.session_id.and_then(raw_string)
        } else {
            None
        };
    Ok(Envelope::Message {
        kind,
        init_session_id,
    })
}

/// A control request from a scanned line: its id, its payload's span and
/// the payload's `subtype` (read by scanning the payload's own top level).
fn control_request(line: &[u8], m: &scan::Members<'_>) -> Result<Envelope, Unroutable> {
    let request_id = m
        .request_id
        .and_then(raw_string)
        .ok_or(Unroutable::Malformed)?;
    // `null` reads as absent, as serde's `Option` does.
    let (request, subtype) = match m.request.filter(|raw| *raw != b"null") {
        None => (None, String::new()),
        Some(raw) => {
            // serde's raw values are text: keep its verdict on invalid UTF-8.
            if std::str::from_utf8(raw).is_err() {
                return Err(Unroutable::Malformed);
            }
            let subtype = match scan::scan(raw) {
                scan::Scan::Object(inner) => inner.subtype.and_then(raw_string),
                // Not an object (serde's path reads no subtype either).
                scan::Scan::Invalid => None,
                // An escaped key might spell `subtype`: let serde decide.
                scan::Scan::Undecided => return peek_serde(line),
            };
            let start = raw.as_ptr() as usize - line.as_ptr() as usize;
            (Some(start..start + raw.len()), subtype.unwrap_or_default())
        }
    };
    Ok(Envelope::ControlRequest {
        request_id,
        subtype,
        request,
    })
}

/// A control response from a scanned line: the reply object's own top
/// level scanned for its id, subtype, payload and error, only the payload
/// (or error) parsed. Whatever the scan cannot vouch for goes to serde.
fn control_response(line: &[u8], m: &scan::Members<'_>) -> Result<Envelope, Unroutable> {
    // serde reads these members as raw values, which are text.
    let members = [m.kind, m.subtype, m.session_id, m.request_id, m.request];
    if members
        .into_iter()
        .flatten()
        .any(|raw| std::str::from_utf8(raw).is_err())
    {
        return Err(Unroutable::Malformed);
    }
    let raw = m.response.ok_or(Unroutable::Malformed)?;
    if std::str::from_utf8(raw).is_err() {
        return Err(Unroutable::Malformed);
    }
    let reply = match scan::scan(raw) {
        scan::Scan::Object(reply) if !reply.error_twice => reply,
        // A reply that is not an object, repeats a member, or hides a
        // key behind an escape: serde decides.
        _ => return peek_serde(line),
    };
    // `null` reads as absent, as serde's `Option` does; a non-string id or
    // subtype fails serde's `Option<String>`.
    let text = |raw: Option<&[u8]>| -> Result<Option<String>, Unroutable> {
        match raw.filter(|r| *r != b"null") {
            None => Ok(None),
            Some(r) => raw_string(r).map(Some).ok_or(Unroutable::Malformed),
        }
    };
    let value = |raw: Option<&[u8]>| -> Result<Option<Value>, Unroutable> {
        match raw.filter(|r| *r != b"null") {
            None => Ok(None),
            Some(r) => serde_json::from_slice(r)
                .map(Some)
                .map_err(|_| Unroutable::Malformed),
        }
    };
    let request_id = text(reply.request_id)?.ok_or(Unroutable::Malformed)?;
    let subtype = text(reply.subtype)?;
    let (response, error) = (value(reply.response)?, value(reply.error)?);
    let outcome = if subtype.as_deref() == Some("error") {
        Err(match error {
            Some(Value::String(s)) => s,
            Some(other) => other.to_string(),
            None => "error reply without a message".to_owned(),
        })
    } else {
        Ok(response.unwrap_or_else(|| Value::Object(Default::default())))
    };
    Ok(Envelope::ControlResponse {
        request_id,
        outcome,
    })
}

/// The `type` of a line that starts `{"type":"<kind>"` with a plain kind
/// (no escapes), when routing it needs nothing but that: not control
/// traffic, not `system` (an `init` carries the session id), not `result`
/// (it ends a turn). `None` sends the line through [`peek`]. Only the
/// prefix is read; the rest of the line is not checked here.
pub(crate) fn leading_plain_kind(line: &[u8]) -> Option<String> {
    let rest = line.strip_prefix(br#"{"type":""#)?;
    let end = memchr::memchr2(b'"', b'\\', rest)?;
    if rest[end] != b'"' {
        return None;
    }
    let kind = std::str::from_utf8(&rest[..end]).ok()?;
    let plain =
        !kind.is_empty() && !kind.starts_with("control_") && kind != "system" && kind != "result";
    plain.then(|| kind.to_owned())
}

/// A raw JSON value as a string, if it is one.
fn raw_string(raw: &[u8]) -> Option<String> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if memchr::memchr(b'\\', inner).is_none() {
        return std::str::from_utf8(inner).ok().map(str::to_owned);
    }
    serde_json::from_slice(raw).ok()
}

/// The envelope through serde with raw-value fields: control traffic, and
/// lines the scanner leaves undecided.
fn peek_serde(line: &[u8]) -> Result<Envelope, Unroutable> {
    let env: RawEnvelope<'_> = serde_json::from_slice(line).map_err(|_| Unroutable::Malformed)?;
    let kind = string(env.kind).ok_or(Unroutable::Malformed)?;
    match kind.as_str() {
        "control_response" => {
            let raw = env.response.ok_or(Unroutable::Malformed)?;
            let r: RawResponse =
                serde_json::from_str(raw.get()).map_err(|_| Unroutable::Malformed)?;
            let request_id = r.request_id.ok_or(Unroutable::Malformed)?;
            let outcome = if r.subtype.as_deref() == Some("error") {
                Err(match r.error {
                    Some(Value::String(s)) => s,
                    Some(other) => other.to_string(),
                    None => "error reply without a message".to_owned(),
                })
            } else {
                Ok(r.response
                    .unwrap_or_else(|| Value::Object(Default::default())))
            };
            Ok(Envelope::ControlResponse {
                request_id,
                outcome,
            })
        }
        "control_request" => {
            let request_id = string(env.request_id).ok_or(Unroutable::Malformed)?;
            // The payload stays text: only its subtype is read here; the
            // handler decodes it once, into its own type.
            let subtype = env
                .request
                .and_then(|raw| serde_json::from_str::<SubtypeOnly<'_>>(raw.get()).ok())
                .and_then(|s| string(s.subtype))
                .unwrap_or_default();
            let request = match env.request {
                Some(raw) => Some(span_in(line, raw.get()).ok_or(Unroutable::Malformed)?),
                None => None,
            };
            Ok(Envelope::ControlRequest {
                request_id,
                subtype,
                request,
            })
        }
        "control_cancel_request" => Ok(Envelope::ControlCancel {
            request_id: string(env.request_id).ok_or(Unroutable::Malformed)?,
        }),
        _ => {
            let init_session_id =
                if kind == "system" && string(env.subtype).as_deref() == Some("init") {
                    string(env.session_id)
                } else {
                    None
                };
            Ok(Envelope::Message {
                kind,
                init_session_id,
            })
        }
    }
}

/// The `subtype` of a request object, everything else skipped.
#[derive(Deserialize)]
struct SubtypeOnly<'a> {
    #[serde(borrow, default)]
    subtype: Option<&'a RawValue>,
}

/// Where `part` (borrowed from `line` by serde) lies in `line`.
fn span_in(line: &[u8], part: &str) -> Option<Range<usize>> {
    let start = (part.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= line.len() && &line[start..end] == part.as_bytes()).then_some(start..end)
}

/// What an oversized line's prefix says it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum OversizedKind {
    ControlRequest(String),
    ControlResponse(String),
    Other,
}

/// Scans the kept prefix of an oversized line for a control envelope, so
/// the CLI (or our caller) is not left waiting for an answer that will never come.
pub(crate) fn scan_oversized_prefix(prefix: &[u8]) -> OversizedKind {
    let has = |needle: &[u8]| memchr::memmem::find(prefix, needle).is_some();
    let id = || {
        let key = b"\"request_id\":";
        let at = memchr::memmem::find(prefix, key)? + key.len();
        let rest = &prefix[at..];
        let rest = &rest[rest.iter().position(|b| !b.is_ascii_whitespace())?..];
        let rest = rest.strip_prefix(b"\"")?;
        let end = memchr::memchr(b'"', rest)?;
        Some(String::from_utf8_lossy(&rest[..end]).into_owned())
    };
    if has(b"\"type\":\"control_request\"") {
        id().map_or(OversizedKind::Other, OversizedKind::ControlRequest)
    } else if has(b"\"type\":\"control_response\"") {
        id().map_or(OversizedKind::Other, OversizedKind::ControlResponse)
    } else {
        OversizedKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_leading_type_of_a_plain_frame_skips_the_scan() {
        let kind = |l: &str| leading_plain_kind(l.as_bytes());
        assert_eq!(
            kind(r#"{"type":"transcript_mirror","entries":[]}"#).as_deref(),
            Some("transcript_mirror")
        );
        assert_eq!(
            kind(r#"{"type":"assistant"}"#).as_deref(),
            Some("assistant")
        );
        for routed in [
            r#"{"type":"system","subtype":"init"}"#,
            r#"{"type":"result"}"#,
            r#"{"type":"control_request"}"#,
            r#"{"type":"as\u0073istant"}"#,
            r#"{"type":""}"#,
            r#"{ "type":"assistant"}"#,
            r#"{"subtype":"x","type":"assistant"}"#,
            r#"{"type":"assistant"#,
        ] {
            assert_eq!(kind(routed), None, "{routed}");
        }
    }
    use serde_json::json;

    #[test]
    fn routes_control_traffic_by_id() {
        let ok = br#"{"type":"control_response","response":{"subtype":"success","request_id":"req_1","response":{"a":1}}}"#;
        assert_eq!(
            peek(ok),
            Ok(Envelope::ControlResponse {
                request_id: "req_1".into(),
                outcome: Ok(json!({"a":1}))
            })
        );
        let err = br#"{"type":"control_response","response":{"subtype":"error","request_id":"r","error":"nope"}}"#;
        assert!(
            matches!(peek(err), Ok(Envelope::ControlResponse { outcome: Err(m), .. }) if m == "nope")
        );
        let req = br#"{"type":"control_request","request_id":"u-1","request":{"subtype":"can_use_tool","tool_name":"Bash"}}"#;
        match peek(req) {
            Ok(Envelope::ControlRequest {
                request_id,
                subtype,
                request: Some(span),
            }) => {
                assert_eq!(
                    (request_id.as_str(), subtype.as_str()),
                    ("u-1", "can_use_tool")
                );
                assert_eq!(
                    &req[span],
                    br#"{"subtype":"can_use_tool","tool_name":"Bash"}"#
                );
            }
            other => panic!("{other:?}"),
        }
        let cancel = br#"{"type":"control_cancel_request","request_id":"u-1"}"#;
        assert_eq!(
            peek(cancel),
            Ok(Envelope::ControlCancel {
                request_id: "u-1".into()
            })
        );
    }

    #[test]
    fn messages_keep_their_type_and_init_session() {
        let init = br#"{"type":"system","subtype":"init","session_id":"s-1","tools":[]}"#;
        assert_eq!(
            peek(init),
            Ok(Envelope::Message {
                kind: "system".into(),
                init_session_id: Some("s-1".into())
            })
        );
        let odd = br#"{"type":"assistant","subtype":5,"request":"x","message":{}}"#;
        assert!(matches!(peek(odd), Ok(Envelope::Message { kind, .. }) if kind == "assistant"));
    }

    #[test]
    fn classifies_bad_lines() {
        assert_eq!(peek(b"hello world"), Err(Unroutable::NotJson));
        assert_eq!(peek(b"[1,2]"), Err(Unroutable::NotJson));
        assert_eq!(peek(b"{\"type\":\"assistant\""), Err(Unroutable::Malformed));
        assert_eq!(peek(b"{\"kind\":1}"), Err(Unroutable::Malformed));
        assert_eq!(peek(b"{\"type\":3}"), Err(Unroutable::Malformed));
    }

    #[test]
    fn oversized_prefix_finds_the_request_id() {
        let p = br#"{"type":"control_request","request_id":"big-1","request":{"subtype":"can_use_tool","input":{"blob":"xxxx"#;
        assert_eq!(
            scan_oversized_prefix(p),
            OversizedKind::ControlRequest("big-1".into())
        );
        let r = br#"{"type":"control_response","response":{"subtype":"success","request_id": "req_3","response":{"x":"#;
        assert_eq!(
            scan_oversized_prefix(r),
            OversizedKind::ControlResponse("req_3".into())
        );
        assert_eq!(
            scan_oversized_prefix(br#"{"type":"assistant","x":"#),
            OversizedKind::Other
        );
    }
}
