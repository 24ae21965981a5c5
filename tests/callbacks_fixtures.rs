//! The router answers the control requests the real CLI 2.1.332 sent with
//! exactly the replies its fixtures recorded on stdin.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::callbacks::{
    CallbackError, Callbacks, HookContext, HookEventKind, HookMatcher, Hooks, PermissionContext,
    allow,
};
use claude_agent::protocol::{HookInput, HookOutput, PermissionRequest};
use claude_agent::runtime::{CancellationToken, InboundHandler, InboundRequest};
use serde_json::{Value, json};

fn fixture(scenario: &str, file: &str) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/claude-code-2.1.332")
        .join(scenario)
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("fixture {} is missing: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `(CLI request, recorded reply payload)` for every control request the
/// CLI sent in `scenario`, in order.
fn exchanges(scenario: &str) -> Vec<(InboundRequest, Value)> {
    let replies = fixture(scenario, "stdin.ndjson");
    fixture(scenario, "stdout.ndjson")
        .into_iter()
        .filter(|m| m["type"] == "control_request")
        .map(|m| {
            let id = m["request_id"].as_str().unwrap().to_owned();
            let reply = replies
                .iter()
                .find(|r| r["type"] == "control_response" && r["response"]["request_id"] == id)
                .unwrap_or_else(|| panic!("no recorded reply to {id}"));
            assert_eq!(reply["response"]["subtype"], "success");
            let request = InboundRequest {
                request_id: id,
                subtype: m["request"]["subtype"].as_str().unwrap().to_owned(),
                request: m["request"].clone().into(),
            };
            let expected =
                as_typescript_names_it(&m["request"], reply["response"]["response"].clone());
            (request, expected)
        })
        .collect()
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

async fn assert_replays(callbacks: &Callbacks, scenario: &str, expected_count: usize) {
    let exchanges = exchanges(scenario);
    assert_eq!(
        exchanges.len(),
        expected_count,
        "{scenario}: control requests"
    );
    for (request, expected) in exchanges {
        let what = format!("{scenario} {}", request.request_id);
        let got = callbacks
            .handle(request, CancellationToken::new())
            .await
            .unwrap_or_else(|e| panic!("{what}: error reply {e}"));
        assert_eq!(got, expected, "{what}");
    }
}

#[tokio::test]
async fn perm_allow_sends_the_original_input_back() {
    let callbacks = Callbacks::new().with_can_use_tool(
        |req: PermissionRequest, _ctx: PermissionContext| async move {
            assert_eq!(req.tool_name.as_deref(), Some("Bash"));
            assert_eq!(req.tool_use_id.as_deref(), Some("toolu_1795993054963249"));
            assert_eq!(req.permission_suggestions.as_ref().map(Vec::len), Some(3));
            Ok::<_, CallbackError>(allow())
        },
    );
    assert_replays(&callbacks, "perm_allow", 1).await;
}

fn empty_hook_callbacks() -> Callbacks {
    let hook = |input: HookInput, tool_use_id: Option<String>, ctx: HookContext| async move {
        assert_eq!(input.hook_event_name(), "PreToolUse");
        assert_eq!(ctx.callback_id, "hook_0");
        assert!(tool_use_id.is_some_and(|id| id.starts_with("toolu_")));
        Ok::<_, CallbackError>(HookOutput::default())
    };
    let hooks = Hooks::new().on(
        HookEventKind::PreToolUse,
        HookMatcher::tool("Bash").hook(hook),
    );
    Callbacks::new().with_hooks(hooks)
}

#[tokio::test]
async fn hook_fixtures_get_an_empty_output() {
    let callbacks = empty_hook_callbacks();
    assert_replays(&callbacks, "hook_allow", 1).await;
    assert_replays(&callbacks, "hook_events", 1).await;
}

#[test]
fn hooks_json_matches_what_the_sdk_sent() {
    for scenario in ["hook_allow", "hook_events"] {
        let init = fixture(scenario, "stdin.ndjson")
            .into_iter()
            .find(|m| m["request"]["subtype"] == "initialize")
            .unwrap();
        assert_eq!(
            empty_hook_callbacks().initialize_hooks_json().as_ref(),
            Some(&init["request"]["hooks"]),
            "{scenario}"
        );
    }
    let init = &fixture("perm_allow", "stdin.ndjson")[0];
    assert_eq!(init["request"]["hooks"], Value::Null);
    assert_eq!(Callbacks::new().initialize_hooks_json(), None);
}

#[tokio::test]
async fn mcp_fixture_replays_all_four_messages() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    });
    let add = Tool::new(
        "add",
        "Add two numbers",
        schema,
        |args: Value, ctx: ToolContext| async move {
            assert_eq!(ctx.tool_use_id.as_deref(), Some("toolu_1795993057541216"));
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            Ok::<_, CallbackError>(ToolResult::text(sum.to_string()))
        },
    );
    let callbacks = Callbacks::new().with_mcp_server(SdkMcpServer::new("calc", "1.0.0").tool(add));
    assert_replays(&callbacks, "mcp", 4).await;
}
