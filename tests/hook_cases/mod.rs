//! One real-shaped input per hook event CLI 2.1.332 defines (the common
//! members as the CLI sends them, see testdata/claude-code-2.1.332/
//! hook_allow, plus the event's own members), with a check of the typed
//! value each must decode to.
#![allow(clippy::unwrap_used, dead_code, unreachable_pub)]

use claude_agent::callbacks::HookEventKind;
use claude_agent::protocol::{HookEvent, PermissionUpdate, SessionEndReason, SessionStartSource};
use serde_json::{Value, json};

/// `(event, input, check of the typed per-event part)`.
pub type EventCase = (HookEventKind, Value, fn(&HookEvent) -> bool);

/// The members every hook input has, for `event`.
pub fn common(event: &str) -> Value {
    json!({
        "session_id": "7318facc-a796-4bbd-9206-eb4fc3272b8a",
        "transcript_path": "/home/dev/.claude/projects/p/7318facc.jsonl",
        "cwd": "/repo", "prompt_id": "d2077e06-be8f-4322-9251-0289191b0349",
        "permission_mode": "default", "effort": {"level": "medium"},
        "hook_event_name": event,
    })
}

fn with(event: &str, own: Value) -> Value {
    let mut v = common(event);
    v.as_object_mut()
        .unwrap()
        .extend(own.as_object().unwrap().clone());
    v
}

/// Every event, in [`HookEventKind::ALL`] order.
pub fn event_cases() -> Vec<EventCase> {
    use HookEventKind as K;
    vec![
        (
            K::PreToolUse,
            with(
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}),
            ),
            |e| matches!(e, HookEvent::PreToolUse(t) if t.tool_input == Some(json!({"command": "ls"})) && t.tool_use_id.as_deref() == Some("toolu_1")),
        ),
        (
            K::PostToolUse,
            with(
                "PostToolUse",
                json!({"tool_name": "mcp__calc__add", "tool_input": {}, "tool_response": {"stdout": "x"}, "tool_use_id": "toolu_2", "duration_ms": 12, "mcp_server": {"name": "calc", "source": "sdk"}}),
            ),
            |e| matches!(e, HookEvent::PostToolUse(t) if t.tool_response == Some(json!({"stdout": "x"})) && t.duration_ms.as_ref().and_then(|d| d.as_u64()) == Some(12) && t.mcp_server.as_ref().and_then(|m| m.name.as_deref()) == Some("calc")),
        ),
        (
            K::PostToolUseFailure,
            with(
                "PostToolUseFailure",
                json!({"tool_name": "Bash", "tool_input": {}, "error": "exit 1", "is_interrupt": false, "tool_use_id": "toolu_3"}),
            ),
            |e| matches!(e, HookEvent::PostToolUseFailure(t) if t.error.as_deref() == Some("exit 1") && t.is_interrupt == Some(false)),
        ),
        (
            K::UserPromptSubmit,
            with(
                "UserPromptSubmit",
                json!({"prompt": "hello", "source": "sdk"}),
            ),
            |e| matches!(e, HookEvent::UserPromptSubmit(p) if p.prompt.as_deref() == Some("hello") && p.source.as_deref() == Some("sdk")),
        ),
        (
            K::Stop,
            with(
                "Stop",
                json!({"stop_hook_active": true, "last_assistant_message": "Done."}),
            ),
            |e| matches!(e, HookEvent::Stop(s) if s.stop_hook_active == Some(true) && s.last_assistant_message.as_deref() == Some("Done.")),
        ),
        (
            K::SubagentStop,
            with(
                "SubagentStop",
                json!({"stop_hook_active": false, "agent_id": "a-1", "agent_transcript_path": "/tmp/a.jsonl", "agent_type": "explore"}),
            ),
            |e| matches!(e, HookEvent::SubagentStop(s) if s.agent_id.as_deref() == Some("a-1") && s.agent_type.as_deref() == Some("explore")),
        ),
        (
            K::SubagentStart,
            with(
                "SubagentStart",
                json!({"agent_id": "a-2", "agent_type": "plan"}),
            ),
            |e| matches!(e, HookEvent::SubagentStart(s) if s.agent_id.as_deref() == Some("a-2")),
        ),
        (
            K::PreCompact,
            with(
                "PreCompact",
                json!({"trigger": "manual", "custom_instructions": "keep tests"}),
            ),
            |e| matches!(e, HookEvent::PreCompact(c) if c.trigger.as_deref() == Some("manual") && c.custom_instructions.as_deref() == Some("keep tests")),
        ),
        (
            K::Notification,
            with(
                "Notification",
                json!({"message": "waiting", "title": "Claude", "notification_type": "idle"}),
            ),
            |e| matches!(e, HookEvent::Notification(n) if n.message.as_deref() == Some("waiting") && n.notification_type.as_deref() == Some("idle")),
        ),
        (
            K::PermissionRequest,
            with(
                "PermissionRequest",
                json!({"tool_name": "Write", "tool_input": {"file_path": "/x"}, "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}),
            ),
            |e| matches!(e, HookEvent::PermissionRequest(t) if matches!(t.permission_suggestions.as_deref(), Some([PermissionUpdate::SetMode(_)]))),
        ),
        (
            K::PostToolBatch,
            with(
                "PostToolBatch",
                json!({"tool_calls": [{"tool_name": "Read", "tool_input": {"file_path": "/a"}, "tool_use_id": "toolu_4", "tool_response": "text"}]}),
            ),
            |e| matches!(e, HookEvent::PostToolBatch(b) if b.tool_calls.as_ref().is_some_and(|c| c.len() == 1 && c[0].tool_use_id.as_deref() == Some("toolu_4"))),
        ),
        (
            K::UserPromptExpansion,
            with(
                "UserPromptExpansion",
                json!({"expansion_type": "slash_command", "command_name": "review", "command_args": "src", "prompt": "Review src"}),
            ),
            |e| matches!(e, HookEvent::UserPromptExpansion(x) if x.command_name.as_deref() == Some("review") && x.expansion_type.as_deref() == Some("slash_command")),
        ),
        (
            K::SessionStart,
            with(
                "SessionStart",
                json!({"source": "startup", "model": "claude-sonnet-4-5", "agent_type": "reviewer"}),
            ),
            |e| matches!(e, HookEvent::SessionStart(s) if s.source == Some(SessionStartSource::Startup) && s.model.as_deref() == Some("claude-sonnet-4-5")),
        ),
        (
            K::SessionEnd,
            with("SessionEnd", json!({"reason": "prompt_input_exit"})),
            |e| matches!(e, HookEvent::SessionEnd(s) if s.reason == Some(SessionEndReason::PromptInputExit)),
        ),
        (
            K::StopFailure,
            with(
                "StopFailure",
                json!({"error": "rate_limit", "error_details": "429"}),
            ),
            |e| matches!(e, HookEvent::StopFailure(s) if s.error.as_deref() == Some("rate_limit")),
        ),
        (
            K::PostCompact,
            with(
                "PostCompact",
                json!({"trigger": "auto", "compact_summary": "We fixed the bug."}),
            ),
            |e| matches!(e, HookEvent::PostCompact(c) if c.compact_summary.as_deref() == Some("We fixed the bug.")),
        ),
        (
            K::PreModelSwitch,
            with(
                "PreModelSwitch",
                json!({"from_model": "a", "to_model": "b", "requested_model": null, "source": "sdk", "context_tokens": 1200, "prompt_cache_warm": true, "cache_ttl": "5m", "estimated_cache_write_usd": 0.02, "pricing": "catalog"}),
            ),
            |e| matches!(e, HookEvent::PreModelSwitch(m) if m.to_model.as_deref() == Some("b") && m.requested_model.is_none() && m.context_tokens == Some(1200)),
        ),
        (
            K::PostModelSwitch,
            with(
                "PostModelSwitch",
                json!({"from_model": "a", "to_model": "b", "source": "resume"}),
            ),
            |e| matches!(e, HookEvent::PostModelSwitch(m) if m.source.as_deref() == Some("resume")),
        ),
        (
            K::PermissionDenied,
            with(
                "PermissionDenied",
                json!({"tool_name": "Bash", "tool_input": {"command": "rm"}, "tool_use_id": "toolu_5", "reason": "denied by rule"}),
            ),
            |e| matches!(e, HookEvent::PermissionDenied(p) if p.reason.as_deref() == Some("denied by rule")),
        ),
        (
            K::Setup,
            with("Setup", json!({"trigger": "init"})),
            |e| matches!(e, HookEvent::Setup(s) if s.trigger.as_deref() == Some("init")),
        ),
        (
            K::TeammateIdle,
            with(
                "TeammateIdle",
                json!({"teammate_name": "bob", "team_name": "core"}),
            ),
            |e| matches!(e, HookEvent::TeammateIdle(t) if t.teammate_name.as_deref() == Some("bob")),
        ),
        (
            K::TaskCreated,
            with(
                "TaskCreated",
                json!({"task_id": "t1", "task_subject": "Write tests"}),
            ),
            |e| matches!(e, HookEvent::TaskCreated(t) if t.task_subject.as_deref() == Some("Write tests")),
        ),
        (
            K::TaskCompleted,
            with(
                "TaskCompleted",
                json!({"task_id": "t1", "task_subject": "Write tests", "task_description": "all events"}),
            ),
            |e| matches!(e, HookEvent::TaskCompleted(t) if t.task_description.as_deref() == Some("all events")),
        ),
        (
            K::Elicitation,
            with(
                "Elicitation",
                json!({"mcp_server_name": "gh", "message": "Token?", "mode": "form", "requested_schema": {"type": "object"}}),
            ),
            |e| matches!(e, HookEvent::Elicitation(x) if x.mcp_server_name.as_deref() == Some("gh") && x.requested_schema == Some(json!({"type": "object"}))),
        ),
        (
            K::ElicitationResult,
            with(
                "ElicitationResult",
                json!({"mcp_server_name": "gh", "action": "accept", "content": {"token": "x"}}),
            ),
            |e| matches!(e, HookEvent::ElicitationResult(x) if x.action.as_deref() == Some("accept")),
        ),
        (
            K::ConfigChange,
            with(
                "ConfigChange",
                json!({"source": "project_settings", "file_path": "/repo/.claude/settings.json"}),
            ),
            |e| matches!(e, HookEvent::ConfigChange(c) if c.source.as_deref() == Some("project_settings")),
        ),
        (
            K::WorktreeCreate,
            with("WorktreeCreate", json!({"name": "feature-x"})),
            |e| matches!(e, HookEvent::WorktreeCreate(w) if w.name.as_deref() == Some("feature-x")),
        ),
        (
            K::WorktreeRemove,
            with("WorktreeRemove", json!({"worktree_path": "/repo/wt"})),
            |e| matches!(e, HookEvent::WorktreeRemove(w) if w.worktree_path.as_deref() == Some("/repo/wt")),
        ),
        (
            K::InstructionsLoaded,
            with(
                "InstructionsLoaded",
                json!({"file_path": "/repo/CLAUDE.md", "memory_type": "Project", "load_reason": "session_start", "globs": ["*.rs"]}),
            ),
            |e| matches!(e, HookEvent::InstructionsLoaded(i) if i.memory_type.as_deref() == Some("Project") && i.globs.as_deref() == Some(&["*.rs".to_owned()][..])),
        ),
        (
            K::CwdChanged,
            with(
                "CwdChanged",
                json!({"old_cwd": "/repo", "new_cwd": "/repo/src"}),
            ),
            |e| matches!(e, HookEvent::CwdChanged(c) if c.new_cwd.as_deref() == Some("/repo/src")),
        ),
        (
            K::FileChanged,
            with(
                "FileChanged",
                json!({"file_path": "/repo/a.rs", "event": "change"}),
            ),
            |e| matches!(e, HookEvent::FileChanged(f) if f.event.as_deref() == Some("change")),
        ),
        (
            K::DirectoryAdded,
            with(
                "DirectoryAdded",
                json!({"directory": "/other", "source": "slash_command"}),
            ),
            |e| matches!(e, HookEvent::DirectoryAdded(d) if d.directory.as_deref() == Some("/other")),
        ),
        (
            K::MessageDisplay,
            with(
                "MessageDisplay",
                json!({"turn_id": "t", "message_id": "m", "index": 2, "final": true, "delta": "Hi"}),
            ),
            |e| matches!(e, HookEvent::MessageDisplay(m) if m.index == Some(2) && m.is_final == Some(true)),
        ),
        (
            K::PreSkillShellCommand,
            with(
                "PreSkillShellCommand",
                json!({"tool_name": "Bash", "tool_input": {"command": "git log"}, "tool_use_id": "toolu_6", "command_name": "changelog", "invoked_by": "user"}),
            ),
            |e| matches!(e, HookEvent::PreSkillShellCommand(s) if s.invoked_by.as_deref() == Some("user") && s.tool_input == Some(json!({"command": "git log"}))),
        ),
    ]
}
