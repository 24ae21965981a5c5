//! The narrowed request writer (`ControlRequestPayload::to_sdk_json`)
//! against the payload's full serializer.

#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::ControlRequestPayload;
use crate::protocol::parse::parse_json;

/// Every subtype the SDK sends to the CLI.
const SDK_SUBTYPES: &[&str] = &[
    "initialize",
    "interrupt",
    "set_permission_mode",
    "set_model",
    "rewind_files",
    "mcp_status",
    "get_context_usage",
    "mcp_reconnect",
    "mcp_toggle",
    "stop_task",
    "set_max_thinking_tokens",
    "apply_flag_settings",
    "update_settings",
    "get_settings",
    "reload_plugins",
    "reload_skills",
    "background_tasks",
    "reload_output_styles",
    "list_models",
    "seed_read_state",
    "cancel_async_message",
    "rename_session",
    "get_usage",
    "read_file",
    "mcp_read_resource",
    "get_task_output",
    "get_hooks_listing",
    "list_permission_rules",
    "set_mcp_permission_mode_override",
    "set_cwd",
    "get_session_cost",
    "get_binary_version",
    "file_suggestions",
    "mcp_call",
    "register_repo_root",
    "set_has_subscribers",
    "claim_session",
];

/// The subtypes the enum declares, read from its source, so a request type
/// added later cannot escape the tests below.
fn declared_subtypes() -> Vec<String> {
    let source = include_str!("../control.rs");
    let start = source.find("pub enum ControlRequestPayload").unwrap();
    let end = start + source[start..].find("@other").unwrap();
    source[start..end]
        .lines()
        .filter_map(|l| l.trim().split_once(") = \""))
        // `Variant(Type) = "tag",` or `... = "tag" feature "name",`.
        .filter_map(|(_, rest)| rest.split('"').next().map(str::to_owned))
        .collect()
}

#[test]
fn the_sdk_subtypes_are_every_declared_subtype_but_the_three_the_cli_sends() {
    let mut sdk: Vec<String> = declared_subtypes()
        .into_iter()
        .filter(|s| !["can_use_tool", "hook_callback", "mcp_message"].contains(&s.as_str()))
        .collect();
    sdk.sort();
    let mut listed: Vec<String> = SDK_SUBTYPES.iter().map(|s| (*s).to_owned()).collect();
    listed.sort();
    assert_eq!(sdk, listed);
}

fn payload(v: &Value) -> ControlRequestPayload {
    parse_json(v.to_string().as_bytes(), true).unwrap()
}

#[test]
fn every_sdk_request_is_written_exactly_as_the_payloads_serializer_writes_it() {
    for subtype in SDK_SUBTYPES {
        // Members no request type models, an explicit null among them.
        let p = payload(&json!({"subtype": subtype, "x_extra": [1, "a"], "y_extra": null}));
        assert!(
            !matches!(p, ControlRequestPayload::Other { .. }),
            "{subtype} is not a typed request"
        );
        assert_eq!(p.tag(), *subtype);
        let narrowed = p.to_sdk_json().unwrap();
        assert_eq!(
            narrowed.get(),
            serde_json::to_string(&p).unwrap(),
            "{subtype}"
        );
    }
}

#[test]
fn a_request_with_typed_fields_keeps_them_and_their_explicit_nulls() {
    let p = payload(&json!({
        "subtype": "set_max_thinking_tokens",
        "max_thinking_tokens": 1024,
        "thinking_display": null,
    }));
    let written: Value = serde_json::from_str(p.to_sdk_json().unwrap().get()).unwrap();
    assert_eq!(
        written,
        json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 1024, "thinking_display": null})
    );
}

#[test]
fn an_unknown_subtype_is_written_as_received() {
    let sent = json!({"subtype": "hologram", "depth": 3});
    let p = payload(&sent);
    assert!(matches!(p, ControlRequestPayload::Other { .. }));
    let written: Value = serde_json::from_str(p.to_sdk_json().unwrap().get()).unwrap();
    assert_eq!(written, sent);
}

#[test]
fn requests_only_the_cli_sends_are_refused_with_their_subtype_named() {
    for (subtype, body) in [
        ("can_use_tool", json!({"tool_name": "Bash", "input": {}})),
        (
            "hook_callback",
            json!({"callback_id": "h1", "input": {"hook_event_name": "Stop"}}),
        ),
        ("mcp_message", json!({"server_name": "calc", "message": {}})),
    ] {
        let mut v = body;
        v["subtype"] = json!(subtype);
        let p = payload(&v);
        let err = p.to_sdk_json().unwrap_err();
        let text = err.0.to_string();
        assert!(text.contains(subtype), "{subtype}: {text}");
        assert!(text.contains("CLI sends"), "{subtype}: {text}");
        // The full serializer still writes it (ControlRequest::to_json).
        assert!(serde_json::to_string(&p).unwrap().contains(subtype));
    }
}
