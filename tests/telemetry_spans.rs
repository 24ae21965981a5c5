//! The span tree of a session, exported through the in-memory exporter:
//! session -> turns -> control requests (a permission prompt, a hook, one
//! of our own), parent ids and attributes checked; the CLI's
//! `TRACEPARENT` names the session span.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod telemetry_common;

use claude_agent::callbacks::{
    CallbackError, HookContext, HookEventKind, HookMatcher, PermissionContext, allow,
};
use claude_agent::protocol::{HookInput, HookOutput, PermissionRequest};
use claude_agent::telemetry::{CONTROL_SPAN, SESSION_SPAN, TURN_SPAN};
use claude_agent_testkit::Script;
use common::*;
use opentelemetry::trace::{SpanId, Status};
use serde_json::json;
use telemetry_common::*;

fn two_turns_with_prompt_and_hook() -> Script {
    let hook_input = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp", "permission_mode": "default", "hook_event_name": "PreToolUse",
        "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "toolu_2"});
    Script::new()
        .expect_initialize()
        .auto_reply("set_model", json!({}))
        .expect("user", None)
        .emit(cli_request(
            "p1",
            json!({"subtype": "can_use_tool", "tool_name": "Read",
                   "input": {"file_path": "/tmp/x"}, "tool_use_id": "toolu_1"}),
        ))
        .step(expect_reply("p1"))
        .emit(result("success", "one"))
        .expect("user", None)
        .emit(cli_request(
            "h1",
            json!({"subtype": "hook_callback", "callback_id": "hook_0",
                   "input": hook_input, "tool_use_id": "toolu_2"}),
        ))
        .step(expect_reply("h1"))
        .emit(result("success", "two"))
}

#[tokio::test]
async fn a_two_turn_session_exports_a_session_turn_control_tree() {
    let mem = in_memory();
    let fake = fake(two_turns_with_prompt_and_hook());
    let audit = |_input: HookInput, _id: Option<String>, _ctx: HookContext| async move {
        Ok::<_, CallbackError>(HookOutput::default())
    };
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .tenant("acme")
        .can_use_tool(
            |_req: PermissionRequest, _ctx: PermissionContext| async move {
                Ok::<_, CallbackError>(allow())
            },
        )
        .hook(HookEventKind::PreToolUse, HookMatcher::any().hook(audit))
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    client.send("one").await.unwrap();
    finish_turn(&client).await;
    client.send("two").await.unwrap();
    finish_turn(&client).await;
    client.set_model(Some("other")).await.unwrap();
    let report = client.shutdown().await;
    fake.assert_gone(pid).await;

    let spans = mem.finished_spans();
    let sessions = named(&spans, SESSION_SPAN);
    assert_eq!(sessions.len(), 1, "{spans:#?}");
    let session = &sessions[0];
    let trace_id = session.span_context.trace_id();
    let session_id = session.span_context.span_id();
    assert_eq!(session.parent_span_id, SpanId::INVALID);
    assert_eq!(attr_str(session, "tenant").as_deref(), Some("acme"));
    assert_eq!(attr(session, "process.pid"), Some(i64::from(pid).into()));
    assert_eq!(
        attr_str(session, "claude_agent.session_id").as_deref(),
        Some("s-1")
    );
    assert_eq!(
        attr_str(session, "claude_agent.shutdown.cause").as_deref(),
        Some("requested")
    );
    assert_eq!(
        attr_str(session, "claude_agent.shutdown.escalation").as_deref(),
        Some(format!("{:?}", report.escalation).to_lowercase().as_str())
    );

    let turns = named(&spans, TURN_SPAN);
    assert_eq!(turns.len(), 2, "{turns:#?}");
    for turn in &turns {
        assert_eq!(turn.span_context.trace_id(), trace_id);
        assert_eq!(turn.parent_span_id, session_id);
        assert_eq!(
            attr_str(turn, "claude_agent.turn.subtype").as_deref(),
            Some("success")
        );
        assert_eq!(attr(turn, "claude_agent.turn.is_error"), Some(false.into()));
        assert_eq!(attr(turn, "claude_agent.turn.num_turns"), Some(1i64.into()));
        assert_eq!(
            attr(turn, "claude_agent.turn.duration_ms"),
            Some(5i64.into())
        );
        assert_eq!(turn.status, Status::Unset);
    }
    // Spans are exported as they end: turn one first.
    let (first, second) = (&turns[0], &turns[1]);
    assert!(first.end_time <= second.start_time);

    let controls = named(&spans, CONTROL_SPAN);
    assert_eq!(controls.len(), 3, "{controls:#?}");
    let by_subtype = |s: &str| {
        controls
            .iter()
            .find(|c| attr_str(c, "claude_agent.control.subtype").as_deref() == Some(s))
            .unwrap_or_else(|| panic!("no {s} span"))
    };
    let permission = by_subtype("can_use_tool");
    assert_eq!(permission.parent_span_id, first.span_context.span_id());
    assert_eq!(
        attr_str(permission, "claude_agent.tool.name").as_deref(),
        Some("Read")
    );
    assert_eq!(
        attr_str(permission, "claude_agent.decision").as_deref(),
        Some("allow")
    );
    assert_eq!(
        attr_str(permission, "claude_agent.control.direction").as_deref(),
        Some("in")
    );

    let hook = by_subtype("hook_callback");
    assert_eq!(hook.parent_span_id, second.span_context.span_id());
    assert_eq!(
        attr_str(hook, "claude_agent.hook.event").as_deref(),
        Some("PreToolUse")
    );
    assert_eq!(
        attr_str(hook, "claude_agent.hook.callback_id").as_deref(),
        Some("hook_0")
    );

    // Between turns, our own request hangs off the session.
    let set_model = by_subtype("set_model");
    assert_eq!(set_model.parent_span_id, session_id);
    assert_eq!(
        attr_str(set_model, "claude_agent.control.direction").as_deref(),
        Some("out")
    );
    for c in &controls {
        assert_eq!(c.span_context.trace_id(), trace_id);
        assert_eq!(
            attr_str(c, "claude_agent.control.outcome").as_deref(),
            Some("success")
        );
    }
    mem.shutdown();
}

#[tokio::test]
async fn the_cli_gets_a_traceparent_naming_the_session_span() {
    let mem = in_memory();
    let fake = fake(Script::new().expect_initialize().expect_eof());
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .connect()
        .await
        .unwrap();
    client.shutdown().await;

    let spans = mem.finished_spans();
    let session = &named(&spans, SESSION_SPAN)[0];
    let env = fake.cli.recorded_env().expect("the fake recorded its env");
    let expected = format!(
        "00-{}-{}-01",
        session.span_context.trace_id(),
        session.span_context.span_id()
    );
    assert_eq!(env["TRACEPARENT"], expected);
    mem.shutdown();
}

#[tokio::test]
async fn a_session_whose_client_is_dropped_still_ends_its_span() {
    let mem = in_memory();
    let fake = fake(Script::new().expect_initialize().expect_eof());
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    drop(client);
    fake.assert_gone(pid).await;

    let ended = eventually(SOON, || {
        !named(&mem.finished_spans(), SESSION_SPAN).is_empty()
    })
    .await;
    assert!(ended, "the session span never ended");
    let spans = mem.finished_spans();
    let session = &named(&spans, SESSION_SPAN)[0];
    assert_eq!(
        attr_str(session, "claude_agent.shutdown.cause").as_deref(),
        Some("handle_dropped")
    );
    mem.shutdown();
}

#[tokio::test]
async fn a_failed_connect_ends_the_session_span_in_error() {
    let mem = in_memory();
    let fake = fake(Script::new().exit(3));
    let err = fake
        .builder()
        .telemetry(mem.telemetry())
        .connect()
        .await
        .unwrap_err();
    let spans = mem.finished_spans();
    let sessions = named(&spans, SESSION_SPAN);
    assert_eq!(sessions.len(), 1);
    // The span says the whole chain, as the report does.
    assert_eq!(sessions[0].status, Status::error(format!("{err:?}")));
    mem.shutdown();
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: f64,
    b: f64,
}

#[tokio::test]
async fn an_in_process_mcp_tool_call_is_a_control_span_of_its_turn() {
    use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};

    let mem = in_memory();
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(cli_request(
                "m1",
                json!({"subtype": "mcp_message", "server_name": "calc",
                       "message": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                   "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}}),
            ))
            .step(expect_reply("m1"))
            .emit(result("success", "5")),
    );
    let calc = SdkMcpServer::new("calc", "1.0.0").tool(Tool::typed::<Add>(
        "add",
        "Add two numbers",
        |args, _ctx| async move { Ok(ToolResult::text((args.a + args.b).to_string())) },
    ));
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .mcp_server(calc)
        .connect()
        .await
        .unwrap();
    client.send("add").await.unwrap();
    finish_turn(&client).await;
    client.shutdown().await;

    let spans = mem.finished_spans();
    let turn = &named(&spans, TURN_SPAN)[0];
    let call = &named(&spans, CONTROL_SPAN)[0];
    assert_eq!(call.parent_span_id, turn.span_context.span_id());
    assert_eq!(
        attr_str(call, "claude_agent.control.subtype").as_deref(),
        Some("mcp_message")
    );
    assert_eq!(
        attr_str(call, "claude_agent.mcp.server").as_deref(),
        Some("calc")
    );
    assert_eq!(
        attr_str(call, "claude_agent.mcp.method").as_deref(),
        Some("tools/call")
    );
    assert_eq!(
        attr_str(call, "claude_agent.tool.name").as_deref(),
        Some("add")
    );
    mem.shutdown();
}
