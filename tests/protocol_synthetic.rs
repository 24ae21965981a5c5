//! Message lines for types the fixtures lack, written from docs/PROTOCOL.md's
//! field lists, plus the user frame we send: each parses into its typed
//! variant and round-trips losslessly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::protocol::{
    ApiStreamEvent, ContentBlock, Delta, Message, StdoutFrame, SystemMessage, UserMessage,
    parse_line,
};
use serde_json::{Value, json};

fn round_trip(line: &str, kind: &str) -> StdoutFrame {
    let frame = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(frame.kind(), kind, "{line}");
    let back: Value = serde_json::from_str(&frame.to_json().unwrap()).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(line).unwrap(), "{line}");
    frame
}

fn message(line: &str, kind: &str) -> Message {
    match round_trip(line, kind) {
        StdoutFrame::Message(m) => m,
        other => panic!("not a message: {}", other.kind()),
    }
}

#[test]
fn rate_limit_and_conversation_reset() {
    let m = message(
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1795993600,"rateLimitType":"five_hour","utilization":0.91,"isUsingOverage":false},"uuid":"u","session_id":"s"}"#,
        "rate_limit_event",
    );
    let Message::RateLimitEvent(e) = m else {
        panic!()
    };
    let info = e.rate_limit_info.unwrap();
    assert_eq!(info.status.as_deref(), Some("allowed_warning"));
    assert_eq!(info.utilization.unwrap().as_f64(), Some(0.91));
    assert!(info.extra.get("isUsingOverage").is_some());

    let m = message(
        r#"{"type":"conversation_reset","new_conversation_id":"c2","session_id":"s","uuid":"u"}"#,
        "conversation_reset",
    );
    let Message::ConversationReset(r) = m else {
        panic!()
    };
    assert_eq!(r.new_conversation_id.as_deref(), Some("c2"));
}

#[test]
fn all_block_kinds() {
    let line = r#"{"type":"assistant","message":{"id":"m","role":"assistant","content":[
        {"type":"thinking","thinking":"hmm","signature":"sig"},
        {"type":"redacted_thinking","data":"enc"},
        {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"rust"}},
        {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[{"type":"web_search_result","url":"https://example.invalid","title":"t"}]},
        {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0"}},
        {"type":"document","source":{"type":"url","url":"https://example.invalid/a.pdf"},"title":"A"},
        {"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}},
        {"type":"text","text":"done","citations":null}
    ],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":2,"cache_read_input_tokens":3}},"session_id":"s","aborted":false,"error":"rate_limit"}"#
        .replace('\n', "");
    let Message::Assistant(a) = message(&line, "assistant") else {
        panic!()
    };
    let b = a.message.blocks();
    assert!(matches!(&b[0], ContentBlock::Thinking(t) if t.signature.as_deref() == Some("sig")));
    assert!(matches!(&b[1], ContentBlock::RedactedThinking(t) if t.data.as_deref() == Some("enc")));
    assert!(
        matches!(&b[2], ContentBlock::ServerToolUse(t) if t.name.as_deref() == Some("web_search"))
    );
    assert!(
        matches!(&b[3], ContentBlock::ServerToolResult { kind, body } if kind == "web_search_tool_result" && body.tool_use_id.as_deref() == Some("srvtoolu_1"))
    );
    assert!(
        matches!(&b[4], ContentBlock::Image(i) if i.source.as_ref().unwrap().media_type.as_deref() == Some("image/png"))
    );
    assert!(matches!(&b[5], ContentBlock::Document(d) if d.title.as_deref() == Some("A")));
    assert!(matches!(&b[6], ContentBlock::ToolUse(t) if t.input == Some(json!({"command": "ls"}))));
    assert_eq!(b[7].tag(), "text");
    assert_eq!(
        a.message.usage.as_ref().unwrap().cache_read_input_tokens,
        Some(3)
    );
    assert_eq!(a.error.as_ref().map(|e| e.as_str()), Some("rate_limit"));
}

#[test]
fn system_event_subtypes() {
    let cases = [
        (
            r#"{"type":"system","subtype":"api_retry","attempt":2,"max_retries":10,"retry_delay_ms":1200,"error_status":529,"error":"overloaded","uuid":"u","session_id":"s"}"#,
            "system/api_retry",
        ),
        (
            r#"{"type":"system","subtype":"hook_started","hook_id":"h1","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","uuid":"u","session_id":"s"}"#,
            "system/hook_started",
        ),
        (
            r#"{"type":"system","subtype":"hook_response","hook_id":"h1","hook_name":"PreToolUse:Bash","hook_event":"PreToolUse","output":"","stdout":"ok","stderr":"","exit_code":0,"outcome":"success","uuid":"u","session_id":"s"}"#,
            "system/hook_response",
        ),
        (
            r#"{"type":"system","subtype":"task_started","task_id":"t1","tool_use_id":"toolu_1","description":"explore","task_type":"local_agent","uuid":"u","session_id":"s"}"#,
            "system/task_started",
        ),
        (
            r#"{"type":"system","subtype":"task_progress","task_id":"t1","description":"explore","usage":{"total_tokens":10,"tool_uses":1,"duration_ms":5},"last_tool_name":"Read","uuid":"u","session_id":"s"}"#,
            "system/task_progress",
        ),
        (
            r#"{"type":"system","subtype":"task_notification","task_id":"t1","status":"completed","output_file":"/tmp/o","summary":"done","uuid":"u","session_id":"s"}"#,
            "system/task_notification",
        ),
        (
            r#"{"type":"system","subtype":"task_updated","task_id":"t1","patch":{"status":"running"},"uuid":"u","session_id":"s"}"#,
            "system/task_updated",
        ),
    ];
    for (line, kind) in cases {
        let Message::System(s) = message(line, kind) else {
            panic!()
        };
        assert!(!matches!(s, SystemMessage::Other { .. }), "{kind}");
    }
    let Message::System(SystemMessage::ApiRetry(r)) = message(cases[0].0, "system/api_retry")
    else {
        panic!()
    };
    assert_eq!((r.attempt, r.error_status), (Some(2), Some(529)));
}

#[test]
fn stream_event_payloads() {
    let ev = |e: &str| {
        format!(
            r#"{{"type":"stream_event","event":{e},"session_id":"s","parent_tool_use_id":null,"uuid":"u"}}"#
        )
    };
    let Message::StreamEvent(s) = message(
        &ev(
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"so"}}"#,
        ),
        "stream_event",
    ) else {
        panic!()
    };
    let ApiStreamEvent::ContentBlockDelta(d) = s.event else {
        panic!()
    };
    assert!(matches!(d.delta, Some(Delta::Thinking(t)) if t.thinking.as_deref() == Some("so")));
    for e in [
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"x"}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"busy"}}"#,
        r#"{"type":"future_event","x":1}"#,
    ] {
        message(&ev(e), "stream_event");
    }
}

#[test]
fn outbound_user_frames() {
    let text = Message::from(UserMessage::prompt("say hello"))
        .to_json()
        .unwrap();
    assert_eq!(
        text,
        r#"{"type":"user","message":{"role":"user","content":"say hello"},"parent_tool_use_id":null,"session_id":"default"}"#
    );
    round_trip(&text, "user");
    let blocks = Message::from(UserMessage::prompt(vec![ContentBlock::text("look")]))
        .to_line()
        .unwrap();
    assert_eq!(
        blocks,
        "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"look\"}]},\"parent_tool_use_id\":null,\"session_id\":\"default\"}\n"
    );
}
