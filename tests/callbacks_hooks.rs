//! Hooks through the router: callback ids and the `initialize` JSON, every
//! event's input decoding (all 34 of CLI 2.1.332), every output form,
//! unknown ids and failures.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent::callbacks::{
    CallbackError, Callbacks, Decision, HookContext, HookEventKind, HookMatcher, Hooks, OnFailure,
    pre_tool_use_decision,
};
use claude_agent::protocol::{
    HookEvent, HookInput, HookOutput, HookSpecificOutput, PermissionDecision, PostToolUseOutput,
};
use claude_agent::runtime::{CancellationToken, HandlerError, InboundHandler, InboundRequest};
use serde_json::{Value, json};
use tokio::sync::mpsc;

mod hook_cases;
use hook_cases::{common, event_cases};

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
    for e in HookEventKind::ALL {
        assert_eq!(&HookEventKind::from_name(e.as_str()), e);
    }
}

#[tokio::test]
async fn every_event_reaches_its_callback_typed() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut hooks = Hooks::new();
    for event in HookEventKind::ALL {
        hooks = hooks.on(
            event.clone(),
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
        assert_eq!((callback_id.as_str(), &event), (id.as_str(), &kind));
        assert_eq!(got.hook_event_name(), kind.as_str());
        assert_eq!(got.common.cwd.as_deref(), Some("/repo"));
        assert!(got.common.prompt_id.is_some(), "{kind}");
        assert_eq!(got.common.permission_mode.as_deref(), Some("default"));
        assert_eq!(tool_use_id, expected_tool_use_id, "{kind}");
        assert!(check(&got.event), "{kind}: {:?}", got.event);
    }
}

#[tokio::test]
async fn output_forms_serialize_as_the_cli_expects() {
    let mut context = PostToolUseOutput::default();
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

#[tokio::test]
async fn an_unknown_event_is_registered_verbatim_and_gets_its_raw_input() {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let hook = || reporting(tx.clone(), HookOutput::default());
    let hooks = Hooks::new()
        .on(
            HookEventKind::Other("SessionDream".into()),
            HookMatcher::any().hook(hook()),
        )
        .on("AgentNap", HookMatcher::any().hook(hook()))
        // An `Other` naming a known event is that event.
        .on(
            HookEventKind::Other("PreToolUse".into()),
            HookMatcher::tool("Bash").hook(hook()),
        )
        .on(
            HookEventKind::SessionEnd,
            HookMatcher::any()
                .hook(hook())
                .on_failure(OnFailure::Continue),
        );
    // Known events first (in HookEventKind order), then unknown ones by name.
    assert_eq!(
        hooks.initialize_json().unwrap(),
        json!({
            "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}],
            "SessionEnd": [{"matcher": null, "hookCallbackIds": ["hook_1"], "onFailure": "continue"}],
            "AgentNap": [{"matcher": null, "hookCallbackIds": ["hook_2"]}],
            "SessionDream": [{"matcher": null, "hookCallbackIds": ["hook_3"]}],
        })
    );
    // Nothing fails closed, so any initialize reply will do.
    assert!(!hooks.blocks_on_failure());
    assert_eq!(hooks.check_initialize_reply(&json!({})), Ok(()));

    let cb = Callbacks::new().with_hooks(hooks);
    let mut input = common("SessionDream");
    input["dream"] = json!({"depth": 3});
    assert_eq!(
        call(&cb, hook_request("hook_3", input)).await.unwrap(),
        json!({})
    );
    let (got, _, callback_id, event) = rx.try_recv().unwrap();
    assert_eq!(callback_id, "hook_3");
    assert_eq!(event, HookEventKind::Other("SessionDream".into()));
    assert!(
        matches!(&got.event, HookEvent::Other { hook_event_name, raw }
            if hook_event_name == "SessionDream" && raw["dream"] == json!({"depth": 3})),
        "{got:?}"
    );
}

#[tokio::test]
async fn a_failure_says_it_blocks_only_where_the_cli_blocks() {
    let failing = |_: HookInput, _: Option<String>, _: HookContext| async {
        Err::<HookOutput, _>(CallbackError::from("audit log is full"))
    };
    let cb = Callbacks::new().with_hooks(
        Hooks::new()
            .on(
                HookEventKind::UserPromptSubmit,
                HookMatcher::any().hook(failing).fail_closed(),
            )
            // The CLI ignores onFailure on Stop: nothing to block.
            .on(
                HookEventKind::Stop,
                HookMatcher::any().hook(failing).fail_closed(),
            ),
    );
    let err = call(&cb, hook_request("hook_0", common("UserPromptSubmit")))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "hook callback hook_0 failed: audit log is full (on_failure is block: the action is blocked)"
    );
    let err = call(&cb, hook_request("hook_1", common("Stop")))
        .await
        .unwrap_err();
    assert_eq!(
        err.message(),
        "hook callback hook_1 failed: audit log is full"
    );
}
