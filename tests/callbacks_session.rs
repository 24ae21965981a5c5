//! End to end through the real session runtime: a fake CLI subprocess sends
//! the control requests the real CLI sent in the `perm_allow`, `hook_allow`
//! and `mcp` fixtures; `Callbacks` is the session's inbound handler, and the
//! replies written to the CLI's stdin are exactly the recorded ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::callbacks::{
    AllowList, CallbackError, Callbacks, HookContext, HookEventKind, HookMatcher, Hooks,
};
use claude_agent::protocol::{HookInput, HookOutput};
use claude_agent::runtime::process::ProcessSpec;
use claude_agent::runtime::{Escalation, Session, SessionConfig};
use claude_agent_testkit::{Script, wait_until_gone};
use futures::StreamExt;
use serde_json::{Value, json};

const SOON: Duration = Duration::from_secs(20);

fn fixture(scenario: &str, file: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/claude-code-2.1.332")
        .join(scenario)
        .join(file);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {} is missing: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `(control request the CLI sent, reply payload the SDK wrote)`.
fn exchanges(scenario: &str) -> Vec<(Value, Value)> {
    let stdin = fixture(scenario, "stdin.ndjson");
    fixture(scenario, "stdout.ndjson")
        .into_iter()
        .filter(|m| m["type"] == "control_request")
        .map(|m| {
            let reply = stdin
                .iter()
                .find(|r| r["response"]["request_id"] == m["request_id"])
                .unwrap();
            (m.clone(), reply["response"]["response"].clone())
        })
        .collect()
}

fn callbacks() -> Callbacks {
    let schema = json!({"type": "object", "properties": {"a": {"type": "number"},
        "b": {"type": "number"}}, "required": ["a", "b"]});
    let add = Tool::new(
        "add",
        "Add two numbers",
        schema,
        |args: Value, _: ToolContext| async move {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            Ok::<_, CallbackError>(ToolResult::text(sum.to_string()))
        },
    );
    let hook = |_: HookInput, _: Option<String>, _: HookContext| async {
        Ok::<_, CallbackError>(HookOutput::default())
    };
    Callbacks::new()
        .with_can_use_tool(AllowList::new(["Bash"], Vec::<String>::new()))
        .with_hooks(Hooks::new().on(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(hook),
        ))
        .with_mcp_server(SdkMcpServer::new("calc", "1.0.0").tool(add))
}

/// The recorded replies are the Python SDK's; like the TypeScript SDK,
/// ours also name the tool use a permission reply answers.
fn as_typescript_names_it(request: &Value, mut reply: Value) -> Value {
    let tool_use_id = request["tool_use_id"].as_str().map(str::to_owned);
    if let (Some(id), Some(obj)) = (tool_use_id, reply.as_object_mut()) {
        if request["subtype"] == "can_use_tool" {
            obj.insert("toolUseID".into(), Value::String(id));
        }
    }
    reply
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixture_requests_get_the_recorded_replies_through_a_session() {
    let mut all = Vec::new();
    for scenario in ["mcp", "perm_allow", "hook_allow"] {
        all.extend(exchanges(scenario));
    }
    assert_eq!(all.len(), 6);
    let mut script = Script::new().expect_initialize();
    for (request, _) in &all {
        script = script.emit(request.clone()).step(json!({"op": "expect",
            "type": "control_response", "request_id": request["request_id"]}));
    }
    // Printed only once every reply above has arrived.
    let script = script
        .emit(json!({"type": "assistant", "marker": "done"}))
        .expect_eof();

    let dir = tempfile::tempdir().unwrap();
    let cli = script.install(dir.path()).unwrap();
    let mut spec = ProcessSpec::new(&cli.program);
    spec.env = cli.env.iter().map(|(k, v)| (k.into(), v.into())).collect();
    let callbacks = callbacks();
    let init = json!({"subtype": "initialize", "hooks": callbacks.initialize_hooks_json()});
    let config = SessionConfig::subprocess(spec)
        .initialize(init)
        .initialize_timeout(SOON)
        .grace(Duration::from_secs(5))
        .inbound(Arc::new(callbacks));
    let (session, mut stream) = tokio::time::timeout(SOON, Session::start(config))
        .await
        .unwrap()
        .unwrap();

    let frame = tokio::time::timeout(SOON, stream.next())
        .await
        .unwrap_or_else(|_| panic!("stuck; stdin so far: {:#?}", cli.recorded_lines()))
        .unwrap()
        .unwrap();
    assert_eq!(frame.to_value().unwrap()["marker"], "done");

    let recorded = cli.recorded_lines();
    let sent_init = recorded
        .iter()
        .find(|l| l["request"]["subtype"] == "initialize")
        .unwrap();
    assert_eq!(
        sent_init["request"]["hooks"],
        json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]})
    );
    for (request, expected) in &all {
        let replies: Vec<&Value> = recorded
            .iter()
            .filter(|l| {
                l["type"] == "control_response"
                    && l["response"]["request_id"] == request["request_id"]
            })
            .collect();
        assert_eq!(replies.len(), 1, "one reply to {}", request["request_id"]);
        assert_eq!(replies[0]["response"]["subtype"], "success");
        assert_eq!(
            replies[0]["response"]["response"],
            as_typescript_names_it(&request["request"], expected.clone()),
            "{}",
            request["request"]["subtype"]
        );
    }
    let pid = session.pid().unwrap();
    let report = session.shutdown().await;
    assert_eq!(report.escalation, Escalation::None, "{report:?}");
    assert!(
        wait_until_gone(pid, SOON),
        "the fake CLI {pid} is still running"
    );
}
