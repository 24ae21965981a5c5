//! Every `system` subtype the official SDKs define (and those the CLI
//! 2.1.332 schema adds) parses into its own typed value from a real-shaped
//! line, with its documented fields, and serializes back unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::protocol::{Message, StdoutFrame, SystemMessage, parse_line};
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

fn system(subtype: &str, fields: Value) -> Value {
    let mut v = json!({"type": "system", "subtype": subtype, "uuid": "u-1", "session_id": "s-1"});
    v.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    v
}

macro_rules! sys {
    ($m:expr, $var:ident) => {
        match $m {
            Message::System(SystemMessage::$var(b)) => b,
            other => panic!("not {}: {}", stringify!($var), other.kind()),
        }
    };
}

#[test]
fn hook_and_thinking_progress_subtypes_are_typed() {
    let line = system(
        "hook_progress",
        json!({"hook_id": "h-1", "hook_name": "PreToolUse:Bash", "hook_event": "PreToolUse",
               "stdout": "checking", "stderr": "", "output": "checking"}),
    );
    let h = sys!(parse(line, "system/hook_progress"), HookProgress);
    assert_eq!(h.hook_event.as_deref(), Some("PreToolUse"));
    assert_eq!(h.stdout.as_deref(), Some("checking"));

    let line = system(
        "thinking_tokens",
        json!({"estimated_tokens": 420, "estimated_tokens_delta": 20, "user_message_uuid": "m-1"}),
    );
    let t = sys!(parse(line, "system/thinking_tokens"), ThinkingTokens);
    assert_eq!(
        (t.estimated_tokens, t.estimated_tokens_delta),
        (Some(420), Some(20))
    );

    let line = system("thinking", json!({"content": "Let me see."}));
    let t = sys!(parse(line, "system/thinking"), Thinking);
    assert_eq!(t.content.as_deref(), Some("Let me see."));

    let line = system(
        "control_request_progress",
        json!({"request_id": "req-3", "status": "api_retry", "attempt": 2, "max_retries": 10,
               "retry_delay_ms": 1200, "error_status": null}),
    );
    let p = sys!(
        parse(line, "system/control_request_progress"),
        ControlRequestProgress
    );
    assert_eq!(p.request_id.as_deref(), Some("req-3"));
    assert_eq!(p.attempt, Some(2));
    assert_eq!(p.error_status, None);
}

#[test]
fn model_refusal_subtypes_are_typed() {
    let line = system(
        "model_refusal_fallback",
        json!({"trigger": "refusal", "direction": "retry", "original_model": "claude-a",
               "fallback_model": "claude-b", "request_id": null, "content": "Retrying",
               "retracted_message_uuids": ["m-2"]}),
    );
    let f = sys!(
        parse(line, "system/model_refusal_fallback"),
        ModelRefusalFallback
    );
    assert_eq!(f.fallback_model.as_deref(), Some("claude-b"));
    assert_eq!(
        f.retracted_message_uuids.as_deref(),
        Some(&["m-2".to_owned()][..])
    );

    let line = system(
        "model_refusal_no_fallback",
        json!({"original_model": "claude-a", "request_id": "req_1", "content": "Refused",
               "api_refusal_category": "cyber"}),
    );
    let f = sys!(
        parse(line, "system/model_refusal_no_fallback"),
        ModelRefusalNoFallback
    );
    assert_eq!(f.api_refusal_category.as_deref(), Some("cyber"));
}

#[test]
fn notice_subtypes_are_typed() {
    let m = parse(
        system(
            "informational",
            json!({"content": "Saved", "level": "notice", "tag": "x"}),
        ),
        "system/informational",
    );
    assert_eq!(sys!(m, Informational).level.as_deref(), Some("notice"));
    let m = parse(
        system(
            "notification",
            json!({"key": "k", "text": "Update ready", "priority": "low", "timeout_ms": 5000}),
        ),
        "system/notification",
    );
    assert_eq!(sys!(m, Notification).timeout_ms, Some(5000));
    let m = parse(
        system(
            "permission_denied",
            json!({"tool_name": "Bash", "tool_use_id": "toolu_1", "decision_reason_type": "rule",
                   "decision_reason": "Bash(rm:*)", "message": "Denied by rule"}),
        ),
        "system/permission_denied",
    );
    assert_eq!(sys!(m, PermissionDenied).tool_name.as_deref(), Some("Bash"));
    let m = parse(
        system("local_command_output", json!({"content": "Usage: 12%"})),
        "system/local_command_output",
    );
    assert_eq!(
        sys!(m, LocalCommandOutput).content.as_deref(),
        Some("Usage: 12%")
    );
    let m = parse(
        system(
            "plugin_install",
            json!({"status": "failed", "name": "p", "error": "404"}),
        ),
        "system/plugin_install",
    );
    assert_eq!(sys!(m, PluginInstall).error.as_deref(), Some("404"));
    let m = parse(
        system("worker_shutting_down", json!({"reason": "idle"})),
        "system/worker_shutting_down",
    );
    assert_eq!(sys!(m, WorkerShuttingDown).reason.as_deref(), Some("idle"));
    let m = parse(
        system(
            "session_writes_lost",
            json!({"error_code": "ENOSPC", "lost": ["transcript"]}),
        ),
        "system/session_writes_lost",
    );
    assert_eq!(
        sys!(m, SessionWritesLost).lost.as_ref().unwrap(),
        &["transcript"]
    );
    let m = parse(
        system(
            "elicitation_complete",
            json!({"mcp_server_name": "docs", "elicitation_id": "e-1"}),
        ),
        "system/elicitation_complete",
    );
    assert_eq!(
        sys!(m, ElicitationComplete).elicitation_id.as_deref(),
        Some("e-1")
    );
}

#[test]
fn list_carrying_subtypes_are_typed() {
    let m = parse(
        system(
            "memory_recall",
            json!({"mode": "select", "memories": [{"path": "/m.md", "scope": "personal"}]}),
        ),
        "system/memory_recall",
    );
    assert_eq!(sys!(m, MemoryRecall).memories.as_ref().unwrap().len(), 1);
    let m = parse(
        system(
            "commands_changed",
            json!({"commands": [{"name": "review", "description": "Review", "argumentHint": ""}]}),
        ),
        "system/commands_changed",
    );
    let commands = sys!(m, CommandsChanged).commands.unwrap();
    assert_eq!(commands[0].name.as_deref(), Some("review"));
    let m = parse(
        system(
            "files_persisted",
            json!({"files": [{"filename": "a.txt", "file_id": "file_1"}],
                   "failed": [{"filename": "b.txt", "error": "too big"}],
                   "processed_at": "2026-11-30T10:00:00Z"}),
        ),
        "system/files_persisted",
    );
    let f = sys!(m, FilesPersisted);
    assert_eq!((f.files.unwrap().len(), f.failed.unwrap().len()), (1, 1));
    let m = parse(
        system(
            "background_tasks_changed",
            json!({"tasks": [{"task_id": "t-1", "task_type": "local_bash", "description": "sleep"}]}),
        ),
        "system/background_tasks_changed",
    );
    assert_eq!(
        sys!(m, BackgroundTasksChanged).tasks.unwrap()[0]["task_id"],
        "t-1"
    );
}

#[test]
fn mirror_error_parses_and_is_constructible() {
    use claude_agent::protocol::{MirrorError, MirrorKey};
    let line = system(
        "mirror_error",
        json!({"error": "append timed out", "key": {"projectKey": "p", "sessionId": "s-1"}}),
    );
    let m = sys!(parse(line.clone(), "system/mirror_error"), MirrorError);
    assert_eq!(m.key.as_ref().unwrap().project_key.as_deref(), Some("p"));

    let built = MirrorError::new(MirrorKey::new("p", "s-1"), "append timed out", "u-1");
    let built = Message::from(SystemMessage::from(built));
    let back: Value = serde_json::from_str(&built.to_json().unwrap()).unwrap();
    assert_eq!(back, line, "the constructor writes what the SDKs write");
    let sub = MirrorKey::new("p", "s-1").with_subpath("subagents/a.jsonl");
    assert_eq!(sub.subpath.as_deref(), Some("subagents/a.jsonl"));
}

#[test]
fn cli_surface_subtypes_are_known_not_unknown() {
    for subtype in [
        "away_summary",
        "local_command",
        "post_turn_summary",
        "ui_toast",
        "memory_saved",
    ] {
        let m = parse(
            system(subtype, json!({"content": "x", "durationMs": 5})),
            &format!("system/{subtype}"),
        );
        let Message::System(SystemMessage::Cli { kind, body }) = m else {
            panic!("{subtype} not in Cli")
        };
        assert_eq!(kind, subtype);
        assert_eq!(body.uuid.as_deref(), Some("u-1"));
        assert_eq!(body.extra.get("durationMs"), Some(&json!(5)));
    }
}

#[test]
fn transcript_subtypes_are_typed_with_the_clis_members() {
    let m = parse(
        system(
            "api_error",
            json!({"level": "error", "error": {"status": 529}, "retryInMs": 1200.5,
                   "retryAttempt": 2, "maxRetries": 10, "source": "repl_main_thread"}),
        ),
        "system/api_error",
    );
    let Message::System(SystemMessage::ApiError(e)) = m else {
        panic!("not api_error")
    };
    assert_eq!((e.retry_attempt, e.max_retries), (Some(2), Some(10)));
    assert_eq!(e.error.as_ref().unwrap()["status"], 529);

    let m = parse(
        system(
            "turn_duration",
            json!({"durationMs": 621, "messageCount": 4, "pendingBackgroundAgentCount": 1,
                   "pendingWorkflowCount": 0, "isMeta": false}),
        ),
        "system/turn_duration",
    );
    let Message::System(SystemMessage::TurnDuration(t)) = m else {
        panic!("not turn_duration")
    };
    assert_eq!(t.duration_ms.as_ref().and_then(|n| n.as_u64()), Some(621));
    assert_eq!(t.pending_background_agent_count, Some(1));
    assert_eq!(t.extra.get("isMeta"), Some(&json!(false)));

    let m = parse(
        system(
            "stop_hook_summary",
            json!({"hookCount": 1, "hookInfos": [{"command": "check.sh"}], "hookErrors": [],
                   "preventedContinuation": true, "stopReason": "tests fail",
                   "hasOutput": true, "level": "warning", "toolUseID": "t1"}),
        ),
        "system/stop_hook_summary",
    );
    let Message::System(SystemMessage::StopHookSummary(h)) = m else {
        panic!("not stop_hook_summary")
    };
    assert_eq!(h.prevented_continuation, Some(true));
    assert_eq!(h.stop_reason.as_deref(), Some("tests fail"));
    assert_eq!(h.tool_use_id.as_deref(), Some("t1"));

    let m = parse(
        system(
            "model_fallback",
            json!({"content": "Switched", "level": "warning", "trigger": "overloaded",
                   "originalModel": "a", "fallbackModel": "b"}),
        ),
        "system/model_fallback",
    );
    let Message::System(SystemMessage::ModelFallback(f)) = m else {
        panic!("not model_fallback")
    };
    assert_eq!(f.fallback_model.as_deref(), Some("b"));

    let m = parse(
        system(
            "session_title_changed",
            json!({"title": "T", "given_by": "user"}),
        ),
        "system/session_title_changed",
    );
    let Message::System(SystemMessage::SessionTitleChanged(c)) = m else {
        panic!("not session_title_changed")
    };
    assert_eq!(
        (c.title.as_deref(), c.given_by.as_deref()),
        (Some("T"), Some("user"))
    );
    assert_eq!(c.uuid.as_deref(), Some("u-1"));
}
