//! Hooks through the router: callback ids and the `initialize` JSON, every
//! event's input decoding, every output form, unknown ids and failures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent::callbacks::{
    CallbackError, Callbacks, Decision, HookContext, HookEventKind, HookMatcher, Hooks,
    pre_tool_use_decision,
};
use claude_agent::protocol::{
    AdditionalContextOutput, HookEvent, HookInput, HookOutput, HookSpecificOutput,
    PermissionDecision, PermissionUpdate,
};
use claude_agent::runtime::{CancellationToken, HandlerError, InboundHandler, InboundRequest};
use serde_json::{Value, json};
use tokio::sync::mpsc;

type Seen = (HookInput, Option<String>, String, HookEventKind);

/// A hook that reports what it got and answers `output`.
fn reporting(
    tx: mpsc::UnboundedSender<Seen>,
    output: HookOutput,
) -> impl Fn(
    HookInput,
    Option<String>,
    HookContext,
) -> futures::future::Ready<Result<HookOutput, CallbackError>>
+ Send
+ Sync
+ 'static {
    move |input, tool_use_id, ctx| {
        tx.send((input, tool_use_id, ctx.callback_id, ctx.event))
            .unwrap();
        futures::future::ready(Ok(output.clone()))
    }
}

fn hook_request(callback_id: &str, input: Value) -> Value {
    let tool_use_id = input.get("tool_use_id").cloned().unwrap_or(Value::Null);
    json!({"subtype": "hook_callback", "callback_id": callback_id, "input": input, "tool_use_id": tool_use_id})
}

fn common(event: &str) -> Value {
    json!({
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/work",
        "permission_mode": "default", "hook_event_name": event,
    })
}

async fn call(cb: &Callbacks, request: Value) -> Result<Value, HandlerError> {
    let subtype = request["subtype"].as_str().unwrap().to_owned();
    let request = InboundRequest {
        request_id: "req-h".into(),
        subtype,
        request: request.into(),
    };
    cb.handle(request, CancellationToken::new()).await
}

#[test]
fn ids_are_stable_and_the_json_has_matchers_and_timeouts() {
    let noop = |_: HookInput, _: Option<String>, _: HookContext| async {
        Ok::<_, CallbackError>(HookOutput::default())
    };
    // Registered out of event order: ids follow the event order of
    // HookEventKind::ALL, then registration order.
    let hooks = Hooks::new()
        .on(HookEventKind::Stop, HookMatcher::any().hook(noop))
        .on(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash")
                .hook(noop)
                .hook(noop)
                .timeout(Duration::from_millis(1500)),
        )
        .on(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Write|Edit").hook(noop),
        )
        .on(HookEventKind::Notification, HookMatcher::any());
    assert!(!hooks.is_empty());
    assert_eq!(
        hooks.initialize_json().unwrap(),
        json!({
            "PreToolUse": [
                {"matcher": "Bash", "hookCallbackIds": ["hook_0", "hook_1"], "timeout": 2},
                {"matcher": "Write|Edit", "hookCallbackIds": ["hook_2"]},
            ],
            "Stop": [{"matcher": null, "hookCallbackIds": ["hook_3"]}],
        })
    );
    assert!(
        Hooks::new()
            .on(HookEventKind::Stop, HookMatcher::any())
            .is_empty()
    );
    assert_eq!(Hooks::new().initialize_json(), None);
    for &e in HookEventKind::ALL {
        assert_eq!(HookEventKind::from_name(e.as_str()), Some(e));
    }
}

/// One synthetic input per event, and a check of what the hook received.
/// `(event, synthetic input, check of the typed input)`.
type EventCase = (HookEventKind, Value, fn(&HookEvent) -> bool);

fn event_cases() -> Vec<EventCase> {
    let with = |event: &str, extra: Value| {
        let mut v = common(event);
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v
    };
    vec![
        (
            HookEventKind::PreToolUse,
            with(
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_1"}),
            ),
            |e| matches!(e, HookEvent::PreToolUse(t) if t.tool_input == Some(json!({"command": "ls"}))),
        ),
        (
            HookEventKind::PostToolUse,
            with(
                "PostToolUse",
                json!({"tool_name": "Bash", "tool_input": {}, "tool_response": {"stdout": "x"}, "tool_use_id": "toolu_2"}),
            ),
            |e| matches!(e, HookEvent::PostToolUse(t) if t.tool_response == Some(json!({"stdout": "x"}))),
        ),
        (
            HookEventKind::PostToolUseFailure,
            with(
                "PostToolUseFailure",
                json!({"tool_name": "Bash", "tool_input": {}, "error": "exit 1", "is_interrupt": false, "tool_use_id": "toolu_3"}),
            ),
            |e| matches!(e, HookEvent::PostToolUseFailure(t) if t.error.as_deref() == Some("exit 1") && t.is_interrupt == Some(false)),
        ),
        (
            HookEventKind::UserPromptSubmit,
            with("UserPromptSubmit", json!({"prompt": "hello"})),
            |e| matches!(e, HookEvent::UserPromptSubmit(p) if p.prompt.as_deref() == Some("hello")),
        ),
        (
            HookEventKind::Stop,
            with("Stop", json!({"stop_hook_active": true})),
            |e| matches!(e, HookEvent::Stop(s) if s.stop_hook_active == Some(true)),
        ),
        (
            HookEventKind::SubagentStop,
            with(
                "SubagentStop",
                json!({"stop_hook_active": false, "agent_id": "a-1", "agent_transcript_path": "/tmp/a.jsonl", "agent_type": "explore"}),
            ),
            |e| matches!(e, HookEvent::SubagentStop(s) if s.agent_id.as_deref() == Some("a-1") && s.agent_type.as_deref() == Some("explore")),
        ),
        (
            HookEventKind::SubagentStart,
            with(
                "SubagentStart",
                json!({"agent_id": "a-2", "agent_type": "plan"}),
            ),
            |e| matches!(e, HookEvent::SubagentStart(s) if s.agent_id.as_deref() == Some("a-2")),
        ),
        (
            HookEventKind::PreCompact,
            with(
                "PreCompact",
                json!({"trigger": "manual", "custom_instructions": "keep tests"}),
            ),
            |e| matches!(e, HookEvent::PreCompact(c) if c.trigger.as_deref() == Some("manual") && c.custom_instructions.as_deref() == Some("keep tests")),
        ),
        (
            HookEventKind::Notification,
            with(
                "Notification",
                json!({"message": "waiting", "title": "Claude", "notification_type": "idle"}),
            ),
            |e| matches!(e, HookEvent::Notification(n) if n.message.as_deref() == Some("waiting") && n.notification_type.as_deref() == Some("idle")),
        ),
        (
            HookEventKind::PermissionRequest,
            with(
                "PermissionRequest",
                json!({"tool_name": "Write", "tool_input": {"file_path": "/x"},
             "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}]}),
            ),
            |e| matches!(e, HookEvent::PermissionRequest(t) if matches!(t.permission_suggestions.as_deref(), Some([PermissionUpdate::SetMode(_)]))),
        ),
    ]
}

#[tokio::test]
async fn every_event_reaches_its_callback_typed() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut hooks = Hooks::new();
    for &event in HookEventKind::ALL {
        hooks = hooks.on(
            event,
            HookMatcher::any().hook(reporting(tx.clone(), HookOutput::default())),
        );
    }
    let cb = Callbacks::new().with_hooks(hooks);
    let cases = event_cases();
    assert_eq!(cases.len(), HookEventKind::ALL.len());
    for (i, (kind, input, check)) in cases.into_iter().enumerate() {
        let id = format!("hook_{i}");
        let expected_tool_use_id = input
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(str::to_owned);
        assert_eq!(
            call(&cb, hook_request(&id, input)).await.unwrap(),
            json!({}),
            "{kind}"
        );
        let (got, tool_use_id, callback_id, event) = rx.try_recv().unwrap();
        assert_eq!((callback_id.as_str(), event), (id.as_str(), kind));
        assert_eq!(got.hook_event_name(), kind.as_str());
        assert_eq!(got.common.cwd.as_deref(), Some("/work"));
        assert_eq!(got.common.permission_mode.as_deref(), Some("default"));
        assert_eq!(tool_use_id, expected_tool_use_id, "{kind}");
        assert!(check(&got.event), "{kind}: {:?}", got.event);
    }
}

#[tokio::test]
async fn output_forms_serialize_as_the_cli_expects() {
    let mut context = AdditionalContextOutput::default();
    context.additional_context = Some("note".into());
    let mut full = HookOutput::default();
    full.continue_ = Some(false);
    full.suppress_output = Some(true);
    full.stop_reason = Some("budget".into());
    full.decision = Some("block".into());
    full.system_message = Some("stopped by policy".into());
    full.reason = Some("over budget".into());
    full.hook_specific_output = Some(HookSpecificOutput::PostToolUse(context));
    let cases = [
        (
            full,
            json!({"continue": false, "suppressOutput": true, "stopReason": "budget",
            "decision": "block", "systemMessage": "stopped by policy", "reason": "over budget",
            "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "note"}}),
        ),
        (
            pre_tool_use_decision(PermissionDecision::Deny, "no rm"),
            json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no rm"}}),
        ),
        (
            HookOutput::async_ack(Some(30_000)),
            json!({"async": true, "asyncTimeout": 30000}),
        ),
        (HookOutput::async_ack(None), json!({"async": true})),
    ];
    for (output, expected) in cases {
        let (tx, _rx) = mpsc::unbounded_channel();
        let hooks = Hooks::new().on(
            HookEventKind::PreToolUse,
            HookMatcher::any().hook(reporting(tx, output)),
        );
        let cb = Callbacks::new().with_hooks(hooks);
        let input = common("PreToolUse");
        assert_eq!(
            call(&cb, hook_request("hook_0", input)).await.unwrap(),
            expected
        );
    }
}

#[tokio::test]
async fn unknown_ids_missing_input_and_failures_are_error_replies() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let failing = |_: HookInput, _: Option<String>, _: HookContext| async {
        Err::<HookOutput, _>(CallbackError::from("audit log is full"))
    };
    let cb = Callbacks::new()
        .with_hooks(Hooks::new().on(HookEventKind::Stop, HookMatcher::any().hook(failing)))
        .on_decision(Arc::new(move |d: &Decision| {
            sink.lock().unwrap().push(d.clone())
        }));

    let err = call(&cb, hook_request("hook_7", common("Stop")))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "no hook callback is registered with id \"hook_7\""
    );

    let no_input = json!({"subtype": "hook_callback", "callback_id": "hook_0"});
    let err = call(&cb, no_input).await.unwrap_err();
    assert_eq!(
        err.message(),
        "hook_callback request for hook_0 has no input"
    );

    let err = call(&cb, hook_request("hook_0", common("Stop")))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "hook callback hook_0 failed: audit log is full"
    );

    let bad = json!({"subtype": "hook_callback", "callback_id": ["hook_0"]});
    let err = call(&cb, bad).await.unwrap_err();
    assert!(
        err.message()
            .starts_with("cannot decode hook_callback request:"),
        "{err}"
    );

    assert_eq!(seen.lock().unwrap().len(), 4);
    assert!(
        seen.lock()
            .unwrap()
            .iter()
            .all(|d| matches!(d, Decision::Failed { subtype, .. } if subtype == "hook_callback"))
    );
}

#[tokio::test]
async fn the_observer_records_hook_outputs() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let (tx, _rx) = mpsc::unbounded_channel();
    let out = pre_tool_use_decision(PermissionDecision::Allow, "safe");
    let cb = Callbacks::new()
        .with_hooks(Hooks::new().on(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(reporting(tx, out.clone())),
        ))
        .on_decision(Arc::new(move |d: &Decision| {
            sink.lock().unwrap().push(d.clone())
        }));
    let mut input = common("PreToolUse");
    input["tool_use_id"] = json!("toolu_9");
    call(&cb, hook_request("hook_0", input)).await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [Decision::Hook {
            callback_id: "hook_0".into(),
            event: "PreToolUse".into(),
            tool_use_id: Some("toolu_9".into()),
            output: Box::new(out),
        }]
    );
}
