//! Control frames the fixtures lack, in both directions, written from
//! docs/PROTOCOL.md's field lists, and the replies we send: each parses into its
//! typed variant, round-trips losslessly, or serializes exactly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::protocol::{
    ControlRequest, ControlRequestPayload, ControlResponse, ControlResponseBody, HookEvent,
    HookOutput, HookSpecificOutput, JsonRpcKind, JsonRpcMessage, McpResponse, PermissionDecision,
    PermissionResult, PermissionUpdate, PreToolUseOutput, RawJson, StdoutFrame, parse_line,
};
use serde_json::{Value, json};

fn round_trip(line: &str, kind: &str) -> StdoutFrame {
    let frame = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("{line}: {e}"));
    assert_eq!(frame.kind(), kind, "{line}");
    let back: Value = serde_json::from_str(&frame.to_json().unwrap()).unwrap();
    assert_eq!(back, serde_json::from_str::<Value>(line).unwrap(), "{line}");
    frame
}

fn request(line: &str, kind: &str) -> ControlRequestPayload {
    match round_trip(line, kind) {
        StdoutFrame::ControlRequest(r) => r.request,
        other => panic!("not a request: {}", other.kind()),
    }
}

#[test]
fn inbound_control_requests() {
    let p = request(
        r#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","tool_name":"Write","display_name":"Write","input":{"file_path":"/a"},"description":"write","permission_suggestions":[{"type":"replaceRules","rules":[{"toolName":"Write"}],"behavior":"deny","destination":"projectSettings"},{"type":"removeDirectories","directories":["/x"],"destination":"userSettings"},{"type":"setMode","mode":"plan","destination":"cliArg"}],"blocked_path":"/a","tool_use_id":"toolu_9","decision_reason":{"type":"rule"},"agent_id":"agent_7"}}"#,
        "control_request/can_use_tool",
    );
    let ControlRequestPayload::CanUseTool(p) = p else {
        panic!()
    };
    assert_eq!(p.agent_id.as_deref(), Some("agent_7"));
    assert!(
        matches!(&p.permission_suggestions.as_ref().unwrap()[0], PermissionUpdate::ReplaceRules(r) if r.rules.as_ref().unwrap()[0].rule_content.is_none())
    );

    let hook = |name: &str, extra: &str| {
        format!(
            r#"{{"type":"control_request","request_id":"r","request":{{"subtype":"hook_callback","callback_id":"hook_0","input":{{"session_id":"s","transcript_path":"/t.jsonl","cwd":"/w","permission_mode":"default","hook_event_name":"{name}"{extra}}},"tool_use_id":null}}}}"#
        )
    };
    let events = [
        (
            "PreToolUse",
            r#","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1""#,
        ),
        (
            "PostToolUse",
            r#","tool_name":"Bash","tool_input":{},"tool_response":{"stdout":"x"},"tool_use_id":"toolu_1""#,
        ),
        (
            "PostToolUseFailure",
            r#","tool_name":"Bash","tool_input":{},"tool_use_id":"toolu_1","error":"exit 1","is_interrupt":false"#,
        ),
        ("UserPromptSubmit", r#","prompt":"hi""#),
        ("Stop", r#","stop_hook_active":false"#),
        (
            "SubagentStop",
            r#","stop_hook_active":true,"agent_id":"a","agent_transcript_path":"/a.jsonl","agent_type":"Explore""#,
        ),
        ("SubagentStart", r#","agent_id":"a","agent_type":"Explore""#),
        (
            "PreCompact",
            r#","trigger":"manual","custom_instructions":null"#,
        ),
        (
            "Notification",
            r#","message":"needs you","title":"Claude","notification_type":"permission_prompt""#,
        ),
        (
            "PermissionRequest",
            r#","tool_name":"Bash","tool_input":{},"permission_suggestions":[]"#,
        ),
    ];
    for (name, extra) in events {
        let ControlRequestPayload::HookCallback(h) =
            request(&hook(name, extra), "control_request/hook_callback")
        else {
            panic!()
        };
        let input = h.input.unwrap();
        assert_eq!(input.hook_event_name(), name);
        assert_eq!(input.common.cwd.as_deref(), Some("/w"));
        assert!(!matches!(input.event, HookEvent::Other { .. }), "{name}");
    }
    // hook_event_name after the event's own members.
    let line = r#"{"type":"control_request","request_id":"r","request":{"subtype":"hook_callback","callback_id":"hook_0","input":{"prompt":"late","cwd":"/w","hook_event_name":"UserPromptSubmit"}}}"#;
    let ControlRequestPayload::HookCallback(h) = request(line, "control_request/hook_callback")
    else {
        panic!()
    };
    assert!(
        matches!(h.input.unwrap().event, HookEvent::UserPromptSubmit(u) if u.prompt.as_deref() == Some("late"))
    );
}

#[test]
fn outbound_control_requests() {
    for (body, kind) in [
        (r#"{"subtype":"interrupt"}"#, "interrupt"),
        (
            r#"{"subtype":"set_permission_mode","mode":"plan"}"#,
            "set_permission_mode",
        ),
        (r#"{"subtype":"set_model","model":null}"#, "set_model"),
        (
            r#"{"subtype":"rewind_files","user_message_id":"u1"}"#,
            "rewind_files",
        ),
        (r#"{"subtype":"mcp_status"}"#, "mcp_status"),
        (r#"{"subtype":"get_context_usage"}"#, "get_context_usage"),
        (
            r#"{"subtype":"mcp_reconnect","serverName":"calc"}"#,
            "mcp_reconnect",
        ),
        (
            r#"{"subtype":"mcp_toggle","serverName":"calc","enabled":false}"#,
            "mcp_toggle",
        ),
        (r#"{"subtype":"stop_task","task_id":"t1"}"#, "stop_task"),
        (
            r#"{"subtype":"initialize","hooks":{"PreToolUse":[{"matcher":null,"hookCallbackIds":["hook_0"],"timeout":30}]},"agents":{"rev":{"description":"reviews","prompt":"review","tools":["Read"],"model":"sonnet"}},"skills":["pdf"],"excludeDynamicSections":true,"forwardSubagentText":false}"#,
            "initialize",
        ),
    ] {
        let line = format!(
            r#"{{"type":"control_request","request_id":"req_1_9f3a01bc","request":{body}}}"#
        );
        let p = request(&line, &format!("control_request/{kind}"));
        assert!(!matches!(p, ControlRequestPayload::Other { .. }));
    }
    let req = ControlRequest::new(
        "req_2_00000000",
        ControlRequestPayload::Interrupt(Default::default()),
    );
    assert_eq!(
        req.to_json().unwrap(),
        r#"{"type":"control_request","request_id":"req_2_00000000","request":{"subtype":"interrupt"}}"#
    );
    assert!(req.to_line().unwrap().ends_with("}\n"));
}

#[test]
fn replies_serialize_exactly() {
    let allow = PermissionResult::Allow {
        updated_input: Some(json!({"command": "ls"})),
        updated_permissions: None,
        decision_classification: None,
    };
    let r = ControlResponse::success("cli-1", &allow).unwrap();
    assert_eq!(
        r.to_json().unwrap(),
        r#"{"type":"control_response","response":{"subtype":"success","request_id":"cli-1","response":{"behavior":"allow","updatedInput":{"command":"ls"}}}}"#
    );
    assert_eq!(r.request_id(), Some("cli-1"));
    let ControlResponseBody::Success(ok) = &r.response else {
        panic!()
    };
    assert_eq!(
        ok.response
            .as_ref()
            .unwrap()
            .decode::<PermissionResult>()
            .unwrap(),
        allow
    );

    let e = ControlResponse::error("cli-2", "no handler for hook_9");
    assert_eq!(
        e.to_json().unwrap(),
        r#"{"type":"control_response","response":{"subtype":"error","request_id":"cli-2","error":"no handler for hook_9"}}"#
    );
    let deny = serde_json::to_string(&PermissionResult::Deny {
        message: "nope".into(),
        interrupt: None,
        decision_classification: None,
    })
    .unwrap();
    assert_eq!(deny, r#"{"behavior":"deny","message":"nope"}"#);

    let mut decision = PreToolUseOutput::default();
    decision.permission_decision = Some(PermissionDecision::Defer);
    decision.permission_decision_reason = Some("later".into());
    let mut out = HookOutput::default();
    out.continue_ = Some(true);
    out.hook_specific_output = Some(HookSpecificOutput::PreToolUse(decision));
    assert_eq!(
        serde_json::to_value(&out).unwrap(),
        json!({"continue": true, "hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "defer", "permissionDecisionReason": "later"}})
    );
    assert_eq!(
        serde_json::to_string(&HookOutput::async_ack(Some(500))).unwrap(),
        r#"{"async":true,"asyncTimeout":500}"#
    );

    let mut rpc = McpResponse::default();
    rpc.mcp_response = Some(JsonRpcMessage::response(None, json!({})));
    assert_eq!(
        serde_json::to_string(&rpc).unwrap(),
        r#"{"mcp_response":{"jsonrpc":"2.0","result":{}}}"#
    );
    // Payloads that are not objects decode too.
    let f = round_trip(
        r#"{"type":"control_response","response":{"subtype":"success","request_id":"r","response":[1,"two"]}}"#,
        "control_response/success",
    );
    let StdoutFrame::ControlResponse(r) = f else {
        panic!()
    };
    let ControlResponseBody::Success(ok) = &r.response else {
        panic!()
    };
    assert_eq!(
        ok.response.as_ref().unwrap().to_value().unwrap(),
        json!([1, "two"])
    );
    let raw = RawJson::encode(&rpc).unwrap();
    assert_eq!(raw.decode::<McpResponse>().unwrap(), rpc);
}

#[test]
fn json_rpc_envelopes() {
    let kinds = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
            JsonRpcKind::Request,
        ),
        (
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"add"}}"#,
            JsonRpcKind::Request,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            JsonRpcKind::Notification,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}"#,
            JsonRpcKind::Response,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no such method"}}"#,
            JsonRpcKind::Error,
        ),
    ];
    for (msg, kind) in kinds {
        let line = format!(
            r#"{{"type":"control_request","request_id":"r","request":{{"subtype":"mcp_message","server_name":"calc","message":{msg}}}}}"#
        );
        let ControlRequestPayload::McpMessage(m) = request(&line, "control_request/mcp_message")
        else {
            panic!()
        };
        assert_eq!(m.message.unwrap().kind(), kind, "{msg}");
    }
}

#[test]
fn outbound_requests_of_the_typed_controls_parse_into_their_variants() {
    let line = |request: &str| {
        format!(r#"{{"type":"control_request","request_id":"req_1","request":{request}}}"#)
    };
    let p = request(
        &line(r#"{"subtype":"interrupt","cancel_queued":true}"#),
        "control_request/interrupt",
    );
    assert!(matches!(p, ControlRequestPayload::Interrupt(i) if i.cancel_queued == Some(true)));
    let p = request(
        &line(r#"{"subtype":"rewind_files","user_message_id":"m","dry_run":true}"#),
        "control_request/rewind_files",
    );
    assert!(matches!(p, ControlRequestPayload::RewindFiles(r) if r.dry_run == Some(true)));
    let p = request(
        &line(r#"{"subtype":"get_context_usage","detail":"summary"}"#),
        "control_request/get_context_usage",
    );
    assert!(
        matches!(p, ControlRequestPayload::GetContextUsage(g) if g.detail.as_deref() == Some("summary"))
    );
    let p = request(
        &line(
            r#"{"subtype":"set_max_thinking_tokens","max_thinking_tokens":null,"thinking_display":"omitted"}"#,
        ),
        "control_request/set_max_thinking_tokens",
    );
    assert!(
        matches!(p, ControlRequestPayload::SetMaxThinkingTokens(t) if t.max_thinking_tokens.is_none() && t.thinking_display.as_deref() == Some("omitted"))
    );
    let p = request(
        &line(r#"{"subtype":"apply_flag_settings","settings":{"model":"m"}}"#),
        "control_request/apply_flag_settings",
    );
    assert!(
        matches!(p, ControlRequestPayload::ApplyFlagSettings(a) if a.settings.as_ref().unwrap()["model"] == "m")
    );
    let p = request(
        &line(
            r#"{"subtype":"update_settings","source":"userSettings","settings":{"effortLevel":"high"}}"#,
        ),
        "control_request/update_settings",
    );
    assert!(
        matches!(p, ControlRequestPayload::UpdateSettings(u) if u.source.as_deref() == Some("userSettings"))
    );
    let p = request(
        &line(r#"{"subtype":"reload_plugins","hold_on_cache_impact":true,"refuse_if_busy":true}"#),
        "control_request/reload_plugins",
    );
    assert!(matches!(p, ControlRequestPayload::ReloadPlugins(r) if r.refuse_if_busy == Some(true)));
    let p = request(
        &line(r#"{"subtype":"background_tasks","tool_use_id":"toolu_1"}"#),
        "control_request/background_tasks",
    );
    assert!(
        matches!(p, ControlRequestPayload::BackgroundTasks(b) if b.tool_use_id.as_deref() == Some("toolu_1"))
    );
    for (body, kind) in [
        (
            r#"{"subtype":"reload_skills"}"#,
            "control_request/reload_skills",
        ),
        (
            r#"{"subtype":"get_settings"}"#,
            "control_request/get_settings",
        ),
    ] {
        let p = request(&line(body), kind);
        assert!(!matches!(p, ControlRequestPayload::Other { .. }), "{kind}");
    }
}
