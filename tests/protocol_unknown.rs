//! Unexpected but valid input: unknown types, subtypes, blocks and hook
//! events are values (kept whole), unmodelled fields and explicit nulls
//! survive, and very long lines parse.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::protocol::{
    ContentBlock, ControlRequestPayload, HookEvent, Message, StdoutFrame, SystemMessage, parse_line,
};
use serde_json::Value;

/// Parses, checks the kind, and checks the lossless round trip.
fn round_trip(line: &str, kind: &str) -> StdoutFrame {
    let frame = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(frame.kind(), kind);
    let back: Value = serde_json::from_str(&frame.to_json().unwrap()).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(line).unwrap(), "{line}");
    frame
}

#[test]
fn unknown_types_are_values() {
    let f = round_trip(
        r#"{"type":"brand_new","a":[1,{"b":null}]}"#,
        "unknown/brand_new",
    );
    assert!(
        matches!(f, StdoutFrame::Message(Message::Unknown { ref kind, .. }) if kind == "brand_new")
    );
    // `type` not first, for an unknown type too.
    round_trip(r#"{"a":1,"type":"brand_new","b":2}"#, "unknown/brand_new");

    let f = round_trip(
        r#"{"type":"system","subtype":"brand_new_subtype","tokens":12,"uuid":"u"}"#,
        "system/brand_new_subtype",
    );
    assert!(matches!(
        f,
        StdoutFrame::Message(Message::System(SystemMessage::Other { .. }))
    ));
    round_trip(
        r#"{"subtype":"worker_shutting_down","uuid":"u","type":"system"}"#,
        "system/worker_shutting_down",
    );

    let f = round_trip(
        r#"{"type":"assistant","message":{"content":[{"type":"hologram","pixels":[1,2]},{"type":"text","text":"hi"}]}}"#,
        "assistant",
    );
    let StdoutFrame::Message(Message::Assistant(a)) = f else {
        panic!()
    };
    assert!(
        matches!(&a.message.blocks()[0], ContentBlock::Unknown { kind, raw } if kind == "hologram" && raw["pixels"] == serde_json::json!([1, 2]))
    );

    let f = round_trip(
        r#"{"type":"control_request","request_id":"r","request":{"subtype":"teleport","to":"mars"}}"#,
        "control_request/teleport",
    );
    let StdoutFrame::ControlRequest(r) = f else {
        panic!()
    };
    assert!(
        matches!(r.request, ControlRequestPayload::Other { ref subtype, .. } if subtype == "teleport")
    );

    let f = round_trip(
        r#"{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback","callback_id":"hook_1","input":{"session_id":"s","hook_event_name":"SessionDream","dream":"x"}}}"#,
        "control_request/hook_callback",
    );
    let StdoutFrame::ControlRequest(r) = f else {
        panic!()
    };
    let ControlRequestPayload::HookCallback(h) = r.request else {
        panic!()
    };
    let input = h.input.unwrap();
    assert_eq!(input.common.session_id.as_deref(), Some("s"));
    assert!(
        matches!(input.event, HookEvent::Other { ref hook_event_name, .. } if hook_event_name == "SessionDream")
    );
    round_trip(
        r#"{"type":"control_response","response":{"subtype":"partial","request_id":"r"}}"#,
        "control_response/partial",
    );
}

#[test]
fn unmodelled_fields_and_explicit_nulls_survive() {
    let line = r#"{"type":"assistant","message":{"content":[],"stop_reason":null,"future":{"a":1}},"parent_tool_use_id":null,"new_top":[true]}"#;
    let f = round_trip(line, "assistant");
    let StdoutFrame::Message(Message::Assistant(a)) = f else {
        panic!()
    };
    assert_eq!(a.parent_tool_use_id, None);
    assert_eq!(a.extra.get("new_top"), Some(&serde_json::json!([true])));
    assert_eq!(
        a.message.extra.get("future"),
        Some(&serde_json::json!({"a": 1}))
    );
}

#[test]
fn very_long_lines_parse() {
    let data = "A".repeat(8 << 20);
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"{data}"}}}}]}}}}"#
    );
    round_trip(&line, "user");
}
