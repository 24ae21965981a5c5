//! Malformed input (missing fields, wrong types, truncated JSON, noise,
//! binary garbage, empty lines, deep nesting): each gives its documented
//! typed error, never a panic.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::protocol::{ParseError, StdoutFrame, parse_line, parse_message};
use serde_json::Value;

fn err(line: &str) -> ParseError {
    parse_line(line.as_bytes()).expect_err(line)
}

fn missing(line: &str) -> (&'static str, String) {
    match err(line) {
        ParseError::MissingField {
            message_type,
            field,
            ..
        } => (message_type, field),
        other => panic!("{line}: expected a missing field, got {other:?}"),
    }
}

fn invalid(line: &str) -> (&'static str, String) {
    match err(line) {
        ParseError::InvalidField {
            message_type,
            field,
            ..
        } => (message_type, field),
        other => panic!("{line}: expected an invalid field, got {other:?}"),
    }
}

/// Parses, checks the kind, and checks the lossless round trip.
fn round_trip(line: &str, kind: &str) -> StdoutFrame {
    let frame = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(frame.kind(), kind);
    let back: Value = serde_json::from_str(&frame.to_json().unwrap()).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(line).unwrap(), "{line}");
    frame
}

#[test]
fn missing_required_fields_name_type_and_field() {
    let cases = [
        (
            r#"{"type":"assistant","session_id":"s"}"#,
            "assistant",
            "message",
        ),
        (r#"{"type":"user","uuid":"u"}"#, "user", "message"),
        (r#"{"type":"system","uuid":"u"}"#, "system", "subtype"),
        (
            r#"{"is_error":false,"type":"result","uuid":"u"}"#,
            "result",
            "subtype",
        ),
        (
            r#"{"type":"stream_event","uuid":"u"}"#,
            "stream_event",
            "event",
        ),
        (
            r#"{"type":"control_request","request":{"subtype":"interrupt"}}"#,
            "control_request",
            "request_id",
        ),
        (
            r#"{"type":"control_request","request_id":"r"}"#,
            "control_request",
            "request",
        ),
        (
            r#"{"type":"control_request","request_id":"r","request":{"mode":"x"}}"#,
            "control_request",
            "request.subtype",
        ),
        (
            r#"{"type":"control_response","response":{"request_id":"r"}}"#,
            "control_response",
            "response.subtype",
        ),
        (
            r#"{"type":"control_response","response":{"subtype":"success"}}"#,
            "control_response",
            "response.request_id",
        ),
        (
            r#"{"type":"control_response","response":{"subtype":"error","error":"x"}}"#,
            "control_response",
            "response.request_id",
        ),
        (
            r#"{"type":"control_cancel_request"}"#,
            "control_cancel_request",
            "request_id",
        ),
        (r#"{"session_id":"s","uuid":"u"}"#, "frame", "type"),
        (
            r#"{"type":"assistant","message":{"content":[{"text":"no type"}]}}"#,
            "assistant",
            "message.content.type",
        ),
    ];
    for (line, ty, field) in cases {
        assert_eq!(missing(line), (ty, field.to_owned()), "{line}");
    }
}

#[test]
fn wrong_types_name_type_and_field() {
    let cases = [
        (
            r#"{"type":"assistant","message":"hello"}"#,
            "assistant",
            "message",
        ),
        (
            r#"{"type":"result","subtype":"success","is_error":"yes"}"#,
            "result",
            "is_error",
        ),
        // `type` in the middle: the buffered member is replayed and still named.
        (
            r#"{"duration_ms":"slow","type":"result","subtype":"success"}"#,
            "result",
            "duration_ms",
        ),
        (
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":5}]}}"#,
            "assistant",
            "message.content.text",
        ),
        (
            r#"{"type":"system","subtype":"init","tools":"Bash"}"#,
            "system/init",
            "tools",
        ),
        (
            r#"{"type":"control_request","request_id":7,"request":{"subtype":"interrupt"}}"#,
            "control_request",
            "request_id",
        ),
        (
            r#"{"type":"control_request","request_id":"r","request":{"subtype":"can_use_tool","permission_suggestions":{}}}"#,
            "control_request",
            "request.permission_suggestions",
        ),
        (r#"{"type":5}"#, "frame", "type"),
    ];
    for (line, ty, field) in cases {
        assert_eq!(invalid(line), (ty, field.to_owned()), "{line}");
    }
}

#[test]
fn conflicting_duplicate_tags_are_errors() {
    let (_, field) = invalid(r#"{"type":"assistant","message":{},"type":"user"}"#);
    assert_eq!(field, "type");
    // The same value twice is harmless.
    round_trip(
        r#"{"type":"assistant","message":{},"type":"assistant"}"#,
        "assistant",
    );
}

#[test]
fn truncated_and_trailing_json_is_malformed_with_position() {
    for line in [
        r#"{"type":"assistant","message":{"content":[{"type":"te"#,
        r#"{"type":"user","#,
        "{",
        r#"{"type":"user","message":{}} trailing"#,
    ] {
        match err(line) {
            ParseError::Malformed {
                line: l,
                column,
                reason,
                prefix,
            } => {
                assert_eq!(l, 1);
                assert!(column > 0, "{line}");
                assert!(!reason.is_empty());
                assert_eq!(prefix, line);
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}

#[test]
fn noise_garbage_and_empty_input_are_not_json() {
    let noise: &[&[u8]] = &[
        b"",
        b"   \r\n",
        b"Loading configuration...",
        b"\xff\xfe\x00\x01binary",
        b"\x1b[2K\rprogress 50%",
    ];
    for line in noise {
        assert!(
            matches!(parse_line(line), Err(ParseError::NotJson { .. })),
            "{line:?}"
        );
    }
    for line in ["[1,2]", "42", "\"text\"", "null"] {
        assert!(
            matches!(err(line), ParseError::NotAnObject { .. }),
            "{line}"
        );
    }
    // Only JSON whitespace is trimmed (fuzzing found a form feed accepted).
    assert!(matches!(
        parse_line(b"\x0c{\"type\":\"x\"}"),
        Err(ParseError::NotJson { .. })
    ));
    assert!(matches!(
        parse_line(b"{\"type\":\"x\"}\x0c"),
        Err(ParseError::Malformed { .. })
    ));
    assert!(parse_line(b" \t{\"type\":\"x\"}\r\n").is_ok());
    // Invalid UTF-8 inside an object is malformed JSON.
    assert!(matches!(
        parse_line(b"{\"type\":\"user\xff\"}"),
        Err(ParseError::Malformed { .. })
    ));
}

#[test]
fn deeply_nested_json_is_an_error_not_a_crash() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let head = format!(r#"{{"type":"assistant","message":{{}},"x":{deep}}}"#);
    let tail = format!(r#"{{"x":{deep},"type":"assistant","message":{{}}}}"#);
    let unknown = format!(r#"{{"type":"brand_new","x":{deep}}}"#);
    for line in [head, tail, unknown] {
        match err(&line) {
            ParseError::Malformed { reason, .. } => {
                assert!(reason.contains("recursion limit"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }
    // Recursion through our own types (tool results inside tool results).
    let mut block = r#"{"type":"text","text":"x"}"#.to_owned();
    for _ in 0..200 {
        block = format!(r#"{{"type":"tool_result","content":[{block}]}}"#);
    }
    let line = format!(r#"{{"type":"user","message":{{"content":[{block}]}}}}"#);
    assert!(matches!(
        err(&line),
        ParseError::Malformed { .. } | ParseError::InvalidField { .. }
    ));
}

#[test]
fn parse_message_rejects_control_frames() {
    let e = parse_message(br#"{"type":"control_cancel_request","request_id":"r"}"#).unwrap_err();
    assert!(
        matches!(e, ParseError::InvalidField { message_type: "message", ref field, .. } if field == "type"),
        "{e:?}"
    );
    assert!(parse_message(br#"{"type":"user","message":{"content":"hi"}}"#).is_ok());
}

#[test]
fn errors_display_lower_case_with_a_bounded_prefix() {
    let long = format!(r#"{{"type":"assistant","pad":"{}"}}"#, "x".repeat(10_000));
    let e = err(&long);
    assert!(e.prefix().len() <= 120);
    assert!(long.starts_with(e.prefix()));
    for e in [
        e,
        err("noise"),
        err("{"),
        err(r#"{"type":"result","subtype":1}"#),
    ] {
        let text = e.to_string();
        assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
    }
    assert_eq!(
        err(r#"{"type":"assistant"}"#).to_string(),
        r#"assistant is missing required field `message` (line starts "{\"type\":\"assistant\"}")"#
    );
}
