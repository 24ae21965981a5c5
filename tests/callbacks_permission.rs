//! `can_use_tool` through the router: allow/deny forms, permission updates
//! in the CLI's camelCase, missing and failing callbacks, decode errors,
//! unknown subtypes, and the decision observer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use claude_agent::callbacks::{
    AllowList, CallbackError, Callbacks, Decision, DecisionObserver, PermissionContext,
    allow_and_update, allow_with_input, deny_and_interrupt,
};
use claude_agent::protocol::{
    DecisionClassification, PermissionBehavior, PermissionRequest, PermissionResult,
    PermissionRule, PermissionUpdate, PermissionUpdateDestination, RulesUpdate,
};
use claude_agent::runtime::{CancellationToken, HandlerError, InboundHandler, InboundRequest};
use serde_json::{Value, json};

fn can_use_tool(tool: &str) -> Value {
    json!({
        "subtype": "can_use_tool",
        "tool_name": tool,
        "display_name": tool,
        "input": {"command": "rm -rf build", "description": "clean"},
        "permission_suggestions": [
            {"type": "addRules", "rules": [{"toolName": tool, "ruleContent": "rm -rf build"}],
             "behavior": "allow", "destination": "localSettings"}
        ],
        "blocked_path": "/home/dev/project/build",
        "tool_use_id": "toolu_42",
        "decision_reason": {"type": "rule"},
        "agent_id": "agent-7",
    })
}

async fn call(callbacks: &Callbacks, request: Value) -> Result<Value, HandlerError> {
    let subtype = request["subtype"].as_str().unwrap_or_default().to_owned();
    let request = InboundRequest {
        request_id: "req-1".into(),
        subtype,
        request: request.into(),
    };
    callbacks.handle(request, CancellationToken::new()).await
}

fn recorder() -> (Arc<Mutex<Vec<Decision>>>, DecisionObserver) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    (
        seen,
        Arc::new(move |d: &Decision| sink.lock().unwrap().push(d.clone())),
    )
}

#[tokio::test]
async fn deny_with_interrupt() {
    let cb =
        Callbacks::new().with_can_use_tool(|_r: PermissionRequest, _c: PermissionContext| async {
            Ok::<_, CallbackError>(deny_and_interrupt("not in CI"))
        });
    let reply = call(&cb, can_use_tool("Bash")).await.unwrap();
    assert_eq!(
        reply,
        json!({"behavior": "deny", "message": "not in CI", "interrupt": true,
               "toolUseID": "toolu_42"})
    );
}

#[tokio::test]
async fn the_callback_sees_every_request_field() {
    let cb = Callbacks::new().with_can_use_tool(
        |r: PermissionRequest, c: PermissionContext| async move {
            assert_eq!(c.request_id, "req-1");
            assert!(!c.cancel.is_cancelled());
            let summary = json!([
                r.tool_name,
                r.display_name,
                r.input,
                r.blocked_path,
                r.tool_use_id,
                r.decision_reason,
                r.agent_id,
                r.permission_suggestions.map(|s| s.len())
            ]);
            Ok::<_, CallbackError>(allow_with_input(summary))
        },
    );
    let reply = call(&cb, can_use_tool("Bash")).await.unwrap();
    assert_eq!(
        reply["updatedInput"],
        json!(["Bash", "Bash", {"command": "rm -rf build", "description": "clean"},
            "/home/dev/project/build", "toolu_42", {"type": "rule"}, "agent-7", 1])
    );
}

#[tokio::test]
async fn title_and_mcp_server_are_typed_and_the_reply_carries_classification_and_tool_use_id() {
    let cb = Callbacks::new().with_can_use_tool(
        |r: PermissionRequest, _c: PermissionContext| async move {
            let server = r.mcp_server.expect("mcp_server");
            assert_eq!(server.name.as_deref(), Some("calc"));
            assert_eq!(server.source.as_deref(), Some("sdk"));
            assert_eq!(r.title.as_deref(), Some("Claude wants to add"));
            Ok::<_, CallbackError>(
                deny_and_interrupt("no").with_classification(DecisionClassification::UserReject),
            )
        },
    );
    let mut request = can_use_tool("mcp__calc__add");
    request["title"] = json!("Claude wants to add");
    request["mcp_server"] = json!({"name": "calc", "source": "sdk"});
    let reply = call(&cb, request).await.unwrap();
    assert_eq!(
        reply,
        json!({"behavior": "deny", "message": "no", "interrupt": true,
               "decisionClassification": "user_reject", "toolUseID": "toolu_42"})
    );
}

#[tokio::test]
async fn updated_input_and_permission_updates_use_the_cli_spelling() {
    let cb = Callbacks::new().with_can_use_tool(
        |r: PermissionRequest, _c: PermissionContext| async move {
            let mut bash = PermissionRule::default();
            bash.tool_name = Some("Bash".into());
            bash.rule_content = Some("rm -rf build".into());
            let mut update = RulesUpdate::default();
            update.rules = Some(vec![bash]);
            update.behavior = Some(PermissionBehavior::Allow);
            update.destination = Some(PermissionUpdateDestination::Session);
            let rule = PermissionUpdate::AddRules(update);
            let mut suggested = r.permission_suggestions.unwrap_or_default();
            suggested.push(rule);
            Ok::<_, CallbackError>(PermissionResult::Allow {
                updated_input: Some(json!({"command": "rm -rf build/tmp"})),
                updated_permissions: Some(suggested),
                decision_classification: None,
            })
        },
    );
    let reply = call(&cb, can_use_tool("Bash")).await.unwrap();
    assert_eq!(
        reply,
        json!({
            "behavior": "allow",
            "toolUseID": "toolu_42",
            "updatedInput": {"command": "rm -rf build/tmp"},
            "updatedPermissions": [
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm -rf build"}],
                 "behavior": "allow", "destination": "localSettings"},
                {"type": "addRules", "rules": [{"toolName": "Bash", "ruleContent": "rm -rf build"}],
                 "behavior": "allow", "destination": "session"},
            ],
        })
    );
}

#[tokio::test]
async fn allow_with_updates_keeps_the_original_input() {
    let cb =
        Callbacks::new().with_can_use_tool(|_r: PermissionRequest, _c: PermissionContext| async {
            // Protocol types decode from text (they may borrow), not from a Value.
            let mode = serde_json::from_str::<PermissionUpdate>(
                r#"{"type": "setMode", "mode": "acceptEdits", "destination": "session"}"#,
            );
            Ok::<_, CallbackError>(allow_and_update(vec![mode.map_err(CallbackError::other)?]))
        });
    let reply = call(&cb, can_use_tool("Write")).await.unwrap();
    assert_eq!(
        reply["updatedInput"],
        json!({"command": "rm -rf build", "description": "clean"})
    );
    assert_eq!(
        reply["updatedPermissions"],
        json!([{"type": "setMode", "mode": "acceptEdits", "destination": "session"}])
    );
}

#[tokio::test]
async fn allow_list_policy_through_the_router() {
    let cb = Callbacks::new().with_can_use_tool(AllowList::new(["Read", "mcp__calc__*"], ["Bash"]));
    let read = call(&cb, can_use_tool("Read")).await.unwrap();
    assert_eq!(read["behavior"], "allow");
    assert_eq!(read["updatedInput"]["command"], "rm -rf build");
    assert_eq!(
        call(&cb, can_use_tool("mcp__calc__add")).await.unwrap()["behavior"],
        "allow"
    );
    let bash = call(&cb, can_use_tool("Bash")).await.unwrap();
    assert_eq!(
        bash,
        json!({"behavior": "deny", "message": "tool Bash is denied", "toolUseID": "toolu_42"})
    );
    let write = call(&cb, can_use_tool("Write")).await.unwrap();
    assert_eq!(
        write,
        json!({"behavior": "deny", "message": "tool Write is neither allowed nor denied",
               "toolUseID": "toolu_42"})
    );
}

#[tokio::test]
async fn no_callback_is_an_error_reply() {
    let (seen, observer) = recorder();
    let cb = Callbacks::new().on_decision(observer);
    let err = call(&cb, can_use_tool("Bash")).await.unwrap_err();
    assert_eq!(err.message(), "no can_use_tool callback is registered");
    assert_eq!(
        *seen.lock().unwrap(),
        [Decision::Failed {
            subtype: "can_use_tool".into(),
            error: err.message().into()
        }]
    );
}

#[tokio::test]
async fn a_failing_callback_is_an_error_reply_with_its_message() {
    let cb =
        Callbacks::new().with_can_use_tool(|_r: PermissionRequest, _c: PermissionContext| async {
            Err::<PermissionResult, _>(CallbackError::from("policy store unreachable"))
        });
    let err = call(&cb, can_use_tool("Bash")).await.unwrap_err();
    assert_eq!(
        err.message(),
        "can_use_tool callback failed: policy store unreachable"
    );
}

#[tokio::test]
async fn an_undecodable_request_is_an_error_reply_naming_the_field() {
    let cb = Callbacks::new().with_can_use_tool(AllowList::default());
    let mut bad = can_use_tool("Bash");
    bad["tool_name"] = json!(42);
    let err = call(&cb, bad).await.unwrap_err();
    assert!(
        err.message()
            .starts_with("cannot decode can_use_tool request:"),
        "{err}"
    );
    assert!(err.message().contains("tool_name"), "{err}");
}

#[tokio::test]
async fn an_unknown_subtype_is_an_error_reply_naming_it() {
    let (seen, observer) = recorder();
    let cb = Callbacks::new()
        .with_can_use_tool(AllowList::default())
        .on_decision(observer);
    let err = call(&cb, json!({"subtype": "a_future_request", "prompt": "?"}))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "unsupported control request subtype \"a_future_request\""
    );
    assert!(
        matches!(&seen.lock().unwrap()[..], [Decision::Failed { subtype, .. }] if subtype == "a_future_request")
    );
}

#[tokio::test]
async fn observers_see_decisions_and_a_panicking_one_changes_nothing() {
    let (seen, observer) = recorder();
    let cb = Callbacks::new()
        .with_can_use_tool(AllowList::new(["Read"], Vec::<String>::new()))
        .on_decision(Arc::new(|_: &Decision| panic!("observer bug")))
        .on_decision(observer);
    let reply = call(&cb, can_use_tool("Read")).await.unwrap();
    assert_eq!(reply["behavior"], "allow");
    assert_eq!(
        *seen.lock().unwrap(),
        [Decision::Permission {
            tool_use_id: Some("toolu_42".into()),
            tool_name: Some("Read".into()),
            result: PermissionResult::Allow {
                updated_input: None,
                updated_permissions: None,
                decision_classification: None,
            },
        }]
    );
}
