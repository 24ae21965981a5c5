//! Hook JSON for every event of CLI 2.1.332: each input decodes to its own
//! typed variant and re-encodes to the same JSON, an unknown event keeps
//! its raw members, each `hookSpecificOutput` round-trips typed, and the
//! event list matches the CLI's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod hook_cases;

use claude_agent::callbacks::HookEventKind;
use claude_agent::protocol::{
    HookCallbackRequest, HookEvent, HookInput, HookOutput, HookSpecificOutput,
};
use hook_cases::{common, event_cases};
use serde_json::{Value, json};

/// `HOOK_EVENTS` of CLI 2.1.332 (and the TypeScript SDK of that release).
const CLI_EVENTS: [&str; 34] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PreModelSwitch",
    "PostModelSwitch",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "DirectoryAdded",
    "MessageDisplay",
    "PreSkillShellCommand",
];

/// Decodes from text, as the SDK does (the wire types borrow from it).
fn decode<T: serde::de::DeserializeOwned>(json: Value) -> serde_json::Result<T> {
    serde_json::from_str(&json.to_string())
}

/// No member of `json` was left to an `extra` map: a non-empty one
/// debug-prints as `map: {"key": ...}` (derived Debug of `Extras`).
fn assert_all_modelled(typed: &impl std::fmt::Debug, json: &Value) {
    let debug = format!("{typed:?}");
    assert!(
        !debug.contains("map: {\""),
        "{json} has unmodelled members: {debug}"
    );
}

#[test]
fn the_event_kinds_are_exactly_the_clis_events() {
    let mut ours: Vec<&str> = HookEventKind::ALL
        .iter()
        .map(HookEventKind::as_str)
        .collect();
    let mut cli = CLI_EVENTS.to_vec();
    ours.sort_unstable();
    cli.sort_unstable();
    assert_eq!(ours, cli);
    assert_eq!(event_cases().len(), CLI_EVENTS.len());
}

#[test]
fn every_event_input_decodes_typed_and_round_trips() {
    for (kind, input, check) in event_cases() {
        let typed: HookInput = decode(input.clone()).unwrap();
        assert_eq!(typed.hook_event_name(), kind.as_str());
        assert!(check(&typed.event), "{kind}: {:?}", typed.event);
        assert_eq!(
            typed.common.prompt_id.as_deref(),
            Some("d2077e06-be8f-4322-9251-0289191b0349")
        );
        assert_eq!(
            typed.common.effort,
            Some(json!({"level": "medium"})),
            "{kind}"
        );
        assert_eq!(serde_json::to_value(&typed).unwrap(), input, "{kind}");
        assert_all_modelled(&typed.event, &input);
    }
}

#[test]
fn lifecycle_inputs_as_the_real_cli_sends_them_decode() {
    // Recorded from CLI 2.1.332 answering `/clear` (paths shortened).
    let end: HookInput = decode(json!({"session_id": "6b3c104c",
        "transcript_path": "/h/.claude/projects/p/6b3c104c.jsonl", "cwd": "/w",
        "prompt_id": "37cb1c35", "hook_event_name": "SessionEnd", "reason": "clear"}))
    .unwrap();
    assert!(matches!(&end.event, HookEvent::SessionEnd(e)
        if e.reason == Some(claude_agent::protocol::SessionEndReason::Clear)));
    let start: HookInput = decode(json!({"session_id": "b3091f6b",
        "transcript_path": "/h/.claude/projects/p/b3091f6b.jsonl", "cwd": "/w",
        "hook_event_name": "SessionStart", "source": "clear"}))
    .unwrap();
    assert!(matches!(&start.event, HookEvent::SessionStart(s)
        if s.source == Some(claude_agent::protocol::SessionStartSource::Clear)));
    assert_eq!(start.common.prompt_id, None);
}

#[test]
fn an_unknown_event_keeps_every_member_as_sent() {
    let mut input = common("SessionDream");
    input["dream"] = json!({"depth": 3});
    let typed: HookInput = decode(input.clone()).unwrap();
    let HookEvent::Other {
        hook_event_name,
        raw,
    } = &typed.event
    else {
        panic!("not Other: {typed:?}");
    };
    assert_eq!(hook_event_name, "SessionDream");
    assert_eq!(raw["dream"], json!({"depth": 3}));
    assert_eq!(serde_json::to_value(&typed).unwrap(), input);

    // Inside the request, too.
    let request = json!({"subtype": "hook_callback", "callback_id": "hook_3", "input": input});
    let decoded: HookCallbackRequest = decode(request.clone()).unwrap();
    assert_eq!(decoded.input.unwrap().hook_event_name(), "SessionDream");
}

#[test]
fn unknown_enum_values_in_inputs_are_kept() {
    let mut input = common("SessionStart");
    input["source"] = json!("teleport");
    let typed: HookInput = decode(input.clone()).unwrap();
    assert!(matches!(&typed.event, HookEvent::SessionStart(s)
        if s.source.as_ref().map(|s| s.as_str()) == Some("teleport")));
    assert_eq!(serde_json::to_value(&typed).unwrap(), input);
}

/// One `hookSpecificOutput` per event the CLI takes one from.
fn specific_outputs() -> Vec<Value> {
    vec![
        json!({"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "no", "updatedInput": {"a": 1}, "additionalContext": "c"}),
        json!({"hookEventName": "PostToolUse", "additionalContext": "c", "classifierContext": "k", "updatedToolOutput": "out", "updatedMCPToolOutput": {"content": []}}),
        json!({"hookEventName": "PostToolUseFailure", "additionalContext": "c"}),
        json!({"hookEventName": "PostToolBatch", "additionalContext": "c"}),
        json!({"hookEventName": "Notification", "additionalContext": "c"}),
        json!({"hookEventName": "UserPromptSubmit", "additionalContext": "c", "sessionTitle": "t", "suppressOriginalPrompt": true}),
        json!({"hookEventName": "UserPromptExpansion", "additionalContext": "c", "suppressOriginalPrompt": false}),
        json!({"hookEventName": "SessionStart", "additionalContext": "c", "initialUserMessage": "go", "sessionTitle": "t", "watchPaths": ["/a"], "reloadSkills": true}),
        json!({"hookEventName": "Setup", "additionalContext": "c"}),
        json!({"hookEventName": "Stop", "additionalContext": "c"}),
        json!({"hookEventName": "SubagentStart", "additionalContext": "c"}),
        json!({"hookEventName": "SubagentStop", "additionalContext": "c"}),
        json!({"hookEventName": "PreModelSwitch", "permissionDecision": "ask", "permissionDecisionReason": "cost"}),
        json!({"hookEventName": "PostModelSwitch", "additionalContext": "c"}),
        json!({"hookEventName": "PermissionRequest", "decision": {"behavior": "deny", "message": "no", "interrupt": true}}),
        json!({"hookEventName": "PermissionDenied", "retry": true}),
        json!({"hookEventName": "Elicitation", "action": "accept", "content": {"token": "x"}}),
        json!({"hookEventName": "ElicitationResult", "action": "decline"}),
        json!({"hookEventName": "CwdChanged", "watchPaths": ["/a"]}),
        json!({"hookEventName": "FileChanged", "watchPaths": []}),
        json!({"hookEventName": "WorktreeCreate", "worktreePath": "/w/wt"}),
        json!({"hookEventName": "MessageDisplay", "displayContent": "Hi"}),
        json!({"hookEventName": "PreSkillShellCommand", "permissionDecision": "allow", "updatedInput": {"command": "git log -1"}}),
    ]
}

#[test]
fn every_specific_output_is_typed_and_round_trips() {
    for output in specific_outputs() {
        let typed: HookSpecificOutput = decode(output.clone()).unwrap();
        assert!(
            !matches!(typed, HookSpecificOutput::Other { .. }),
            "{output}"
        );
        assert_eq!(typed.tag(), output["hookEventName"]);
        assert_eq!(serde_json::to_value(&typed).unwrap(), output);
        assert_all_modelled(&typed, &output);
    }
    let full = json!({"continue": true, "terminalSequence": "\u{7}",
        "hookSpecificOutput": {"hookEventName": "TaskCompleted", "note": 1}});
    let typed: HookOutput = decode(full.clone()).unwrap();
    assert_eq!(typed.terminal_sequence.as_deref(), Some("\u{7}"));
    assert!(matches!(
        typed.hook_specific_output,
        Some(HookSpecificOutput::Other { .. })
    ));
    assert_eq!(serde_json::to_value(&typed).unwrap(), full);
}
