//! Every top-level message type the official SDKs define (and the CLI
//! 2.1.332 schema adds) parses into its own typed value from a real-shaped
//! line and serializes back unchanged; an error result becomes a typed
//! `Err`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::protocol::{Message, StdoutFrame, parse_line};
use serde_json::{Value, json};

/// Parses `line`, checks its kind and the lossless round trip.
fn parse(line: Value, kind: &str) -> Message {
    let text = line.to_string();
    let frame = parse_line(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert_eq!(frame.kind(), kind, "{text}");
    let back: Value = serde_json::from_str(&frame.to_json().unwrap()).unwrap();
    assert_eq!(back, line, "round trip");
    let StdoutFrame::Message(m) = frame else {
        panic!("{kind} is not a message")
    };
    m
}

fn top(kind: &str, fields: Value) -> Value {
    let mut v = json!({"type": kind, "uuid": "u-1", "session_id": "s-1"});
    v.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    v
}

#[test]
fn top_level_types_are_typed() {
    let m = parse(
        top(
            "tool_progress",
            json!({"tool_use_id": "toolu_1", "tool_name": "Bash", "parent_tool_use_id": null,
                   "elapsed_time_seconds": 3.5, "heartbeat": true}),
        ),
        "tool_progress",
    );
    let Message::ToolProgress(p) = m else {
        panic!()
    };
    assert_eq!(p.elapsed_time_seconds, Some(3.5));
    assert_eq!(p.parent_tool_use_id, None);

    let m = parse(
        top(
            "tool_use_summary",
            json!({"summary": "Read 2 files", "preceding_tool_use_ids": ["a", "b"]}),
        ),
        "tool_use_summary",
    );
    let Message::ToolUseSummary(s) = m else {
        panic!()
    };
    assert_eq!(s.preceding_tool_use_ids.unwrap().len(), 2);

    let m = parse(
        top(
            "auth_status",
            json!({"isAuthenticating": true, "output": ["Open the link"]}),
        ),
        "auth_status",
    );
    let Message::AuthStatus(a) = m else { panic!() };
    assert_eq!(a.is_authenticating, Some(true));

    let m = parse(
        top("prompt_suggestion", json!({"suggestion": "Run the tests"})),
        "prompt_suggestion",
    );
    let Message::PromptSuggestion(p) = m else {
        panic!()
    };
    assert_eq!(p.suggestion.as_deref(), Some("Run the tests"));

    let m = parse(
        top(
            "active_goal",
            json!({"value": {"condition": "tests pass", "iterations": 2,
            "set_at": 1, "tokens_at_start": 10}}),
        ),
        "active_goal",
    );
    let Message::ActiveGoal(g) = m else { panic!() };
    assert_eq!(g.value.unwrap()["iterations"], 2);

    let m = parse(
        top(
            "api_metrics",
            json!({"event": {"type": "thinking_progress", "estimated_tokens_delta": 40}}),
        ),
        "api_metrics",
    );
    let Message::ApiMetrics(a) = m else { panic!() };
    assert_eq!(a.event.unwrap()["type"], "thinking_progress");

    let m = parse(
        top(
            "command_lifecycle",
            json!({"command_uuid": "c-1", "state": "started"}),
        ),
        "command_lifecycle",
    );
    let Message::CommandLifecycle(c) = m else {
        panic!()
    };
    assert_eq!(c.state.as_deref(), Some("started"));

    let m = parse(json!({"type": "keep_alive"}), "keep_alive");
    assert!(matches!(m, Message::KeepAlive(_)));
}

#[test]
fn result_into_result_is_ok_for_success_and_a_typed_error_otherwise() {
    let ok = json!({"type": "result", "subtype": "success", "is_error": false, "result": "4"});
    let Message::Result(r) = parse(ok, "result/success") else {
        panic!()
    };
    assert_eq!(r.into_result().unwrap().result.as_deref(), Some("4"));

    let api = json!({"type": "result", "subtype": "success", "is_error": true,
        "result": "API Error: 529 overloaded", "api_error_status": 529,
        "terminal_reason": "api_error"});
    let Message::Result(r) = parse(api, "result/success") else {
        panic!()
    };
    let err = r.into_result().unwrap_err();
    assert_eq!(err.errors(), ["API Error: 529 overloaded"]);
    assert_eq!(err.api_error_status(), Some(529));
    assert_eq!(
        err.to_string(),
        "the turn ended in error (success): API Error: 529 overloaded"
    );

    let turns = json!({"type": "result", "subtype": "error_max_turns", "is_error": true,
        "errors": [], "terminal_reason": "max_turns"});
    let Message::Result(r) = parse(turns, "result/error_max_turns") else {
        panic!()
    };
    let err = r.into_result().unwrap_err();
    assert!(err.errors().is_empty());
    assert_eq!(
        err.to_string(),
        "the turn ended in error (error_max_turns): terminal reason max_turns"
    );
    assert_eq!(err.into_message().num_turns, None);
}

#[test]
fn an_error_result_passes_through_question_mark_as_the_crates_error() {
    fn turn(r: claude_agent::protocol::ResultMessage) -> Result<u64, claude_agent::Error> {
        Ok(r.into_result()?.num_turns.unwrap_or(0))
    }
    let turns = json!({"type": "result", "subtype": "error_max_turns", "is_error": true,
        "errors": [], "terminal_reason": "max_turns", "num_turns": 3});
    let Message::Result(r) = parse(turns, "result/error_max_turns") else {
        panic!()
    };
    let err = turn(*r).unwrap_err();
    let claude_agent::Error::Result(inner) = &err else {
        panic!("not a result error: {err}")
    };
    assert_eq!(inner.subtype().as_str(), "error_max_turns");
    assert_eq!(
        err.to_string(),
        "the turn ended in error (error_max_turns): terminal reason max_turns"
    );
}

#[test]
fn replayed_and_peer_user_messages_type_every_member_the_sdks_define() {
    let m = parse(
        top(
            "user",
            json!({"message": {"role": "user", "content": "look at this"},
                   "parent_tool_use_id": null, "isReplay": true, "isSynthetic": false,
                   "timestamp": "2026-11-30T10:00:00Z", "priority": "next",
                   "shouldQuery": false, "client_composed": true,
                   "pasted_content": ["log line", [{"type": "text", "text": "more"}]],
                   "inline_pastes": ["this"],
                   "agent_id": "a1", "subagent_type": "general-purpose",
                   "task_description": "scan",
                   "origin": {"kind": "peer", "from": "uds:/tmp/s", "fromMode": "prompting",
                              "name": "Build bot", "fromSession": "local_1",
                              "verifiedPeerPid": 4242, "body": "hi"}}),
        ),
        "user",
    );
    let Message::User(u) = m else {
        panic!("not a user message")
    };
    assert_eq!((u.is_replay, u.is_synthetic), (Some(true), Some(false)));
    assert_eq!(u.priority.as_deref(), Some("next"));
    assert_eq!(u.should_query, Some(false));
    assert_eq!(u.client_composed, Some(true));
    assert_eq!(u.pasted_content.as_ref().map(Vec::len), Some(2));
    assert_eq!(u.inline_pastes.as_deref(), Some(&["this".to_owned()][..]));
    assert_eq!(
        (u.agent_id.as_deref(), u.subagent_type.as_deref()),
        (Some("a1"), Some("general-purpose"))
    );
    let origin = u.origin.unwrap();
    assert_eq!(origin.kind.as_deref(), Some("peer"));
    assert_eq!(origin.verified_peer_pid, Some(4242));
    assert_eq!(origin.from_mode.as_deref(), Some("prompting"));
    assert!(u.extra.is_empty(), "every member typed: {:?}", u.extra);
}
