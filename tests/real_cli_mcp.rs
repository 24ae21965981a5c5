//! An in-process MCP tool called by the model through the real CLI; its
//! result reaches the next model request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Value, json};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_model_calls_an_in_process_mcp_tool() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_add",
            "mcp__calc__add",
            json!({"a": 2, "b": 40}),
        ))
        .reply(Reply::text("It is 42."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let add = Tool::new(
        "add",
        "Add two numbers",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"]}),
        move |args: Value, _ctx: ToolContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            async move { Ok::<_, CallbackError>(ToolResult::text(format!("sum={sum}"))) }
        },
    );
    let client = rig
        .builder(rig.options().allowed_tools(["mcp__calc__add"]))
        .mcp_server(SdkMcpServer::new("calc", "1.0.0").tool(add))
        .connect()
        .await
        .unwrap();
    client.send("add 2 and 40").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.result.as_deref(), Some("It is 42."));
    assert_eq!(calls.load(Ordering::SeqCst), 1);

    let main = rig.server.main_requests();
    // 2.1.332 does not list MCP tools in `tools` of the request: they are
    // deferred behind ToolSearch, yet a direct call to one still runs.
    let results = main[1].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_add");
    assert!(!results[0].is_error, "{results:?}");
    assert_eq!(results[0].text(), "sum=42");
    shutdown(&client).await;
}
