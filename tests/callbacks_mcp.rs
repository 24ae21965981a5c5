//! In-process MCP servers through the router: JSON-RPC behaviour, typed
//! tools, errors as results, and cancellation from both directions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use claude_agent::callbacks::mcp::{
    SdkMcpServer, Tool, ToolAnnotations, ToolContent, ToolContext, ToolResult, mcp_tool_name,
};
use claude_agent::callbacks::{CallbackError, Callbacks, Decision};
use claude_agent::runtime::{CancellationToken, HandlerError, InboundHandler, InboundRequest};
use serde_json::{Value, json};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    /// First addend.
    a: f64,
    /// Second addend.
    b: f64,
    /// Round the sum.
    #[serde(default)]
    round: Option<bool>,
}

fn calc() -> SdkMcpServer {
    SdkMcpServer::new("calc", "1.0.0")
        .tool(Tool::typed::<Add>(
            "add",
            "Add two numbers",
            |args, ctx| async move {
                assert_eq!(&*ctx.tool, "add");
                let sum = args.a + args.b;
                let sum = if args.round == Some(true) {
                    sum.round()
                } else {
                    sum
                };
                Ok(ToolResult::text(sum.to_string()))
            },
        ))
        .tool(
            Tool::new(
                "fail",
                "Always fails",
                json!({"type": "object"}),
                |_: Value, _: ToolContext| async {
                    Err::<ToolResult, _>(CallbackError::from("disk on fire"))
                },
            )
            .annotations({
                let mut hints = ToolAnnotations::default();
                hints.read_only_hint = Some(true);
                hints
            }),
        )
        .tool(Tool::new(
            "pic",
            "An image",
            json!({"type": "object"}),
            |_: Value, _: ToolContext| async {
                Ok::<_, CallbackError>(ToolResult::image("iVBORw0KGgo=", "image/png").with(
                    ToolContent::Text {
                        text: "a pixel".into(),
                    },
                ))
            },
        ))
}

fn mcp(server: &str, message: Value) -> InboundRequest {
    InboundRequest {
        request_id: "req-m".into(),
        subtype: "mcp_message".into(),
        request: json!({"subtype": "mcp_message", "server_name": server, "message": message})
            .into(),
    }
}

async fn send(cb: &Callbacks, message: Value) -> Value {
    let reply = cb
        .handle(mcp("calc", message), CancellationToken::new())
        .await
        .unwrap();
    reply["mcp_response"].clone()
}

fn tools_call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments, "_meta": {"claudecode/toolUseId": "toolu_5"}}})
}

#[tokio::test]
async fn initialize_echoes_a_known_version_and_offers_ours_otherwise() {
    let cb = Callbacks::new().with_mcp_server(calc());
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2024-11-05"),
        ("1999-01-01", "2025-11-25"),
    ] {
        let reply = send(
            &cb,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": asked, "capabilities": {}}}),
        )
        .await;
        assert_eq!(
            reply,
            json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": answered,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "calc", "version": "1.0.0"}}})
        );
    }
}

#[tokio::test]
async fn notifications_get_the_empty_result_and_ping_gets_an_empty_object() {
    let cb = Callbacks::new().with_mcp_server(calc());
    for method in [
        "notifications/initialized",
        "notifications/progress",
        "notifications/cancelled",
    ] {
        let reply = send(&cb, json!({"jsonrpc": "2.0", "method": method})).await;
        assert_eq!(reply, json!({"jsonrpc": "2.0", "result": {}}), "{method}");
    }
    let reply = send(
        &cb,
        json!({"jsonrpc": "2.0", "id": "p-1", "method": "ping"}),
    )
    .await;
    assert_eq!(reply, json!({"jsonrpc": "2.0", "id": "p-1", "result": {}}));
}

#[tokio::test]
async fn tools_list_has_the_derived_schema_and_annotations() {
    let cb = Callbacks::new().with_mcp_server(calc());
    let reply = send(
        &cb,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )
    .await;
    let tools = reply["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 3);
    let add = &tools[0];
    assert_eq!(add["name"], "add");
    assert_eq!(add["description"], "Add two numbers");
    let schema = &add["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["a"]["type"], "number");
    assert_eq!(schema["properties"]["a"]["description"], "First addend.");
    assert!(schema["properties"]["round"].is_object());
    assert_eq!(schema["required"], json!(["a", "b"]));
    assert!(schema.get("$schema").is_none());
    assert!(add.get("annotations").is_none());
    assert_eq!(tools[1]["annotations"], json!({"readOnlyHint": true}));
    assert_eq!(mcp_tool_name("calc", "add"), "mcp__calc__add");
}

#[tokio::test]
async fn tools_call_results_and_errors_are_results() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let cb = Callbacks::new()
        .with_mcp_server(calc())
        .on_decision(Arc::new(move |d: &Decision| {
            sink.lock().unwrap().push(d.clone())
        }));
    let ok = send(
        &cb,
        tools_call(2, "add", json!({"a": 2, "b": 3.4, "round": true})),
    )
    .await;
    assert_eq!(
        ok,
        json!({"jsonrpc": "2.0", "id": 2,
        "result": {"content": [{"type": "text", "text": "5"}], "isError": false}})
    );

    let bad = send(&cb, tools_call(3, "add", json!({"a": "two"}))).await;
    assert_eq!(bad["id"], 3);
    assert_eq!(bad["result"]["isError"], true);
    let text = bad["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("invalid arguments for tool add: invalid type: string \"two\""),
        "{text}"
    );

    let failed = send(&cb, tools_call(4, "fail", json!({}))).await;
    assert_eq!(
        failed["result"],
        json!({"content": [{"type": "text", "text": "disk on fire"}], "isError": true})
    );

    let unknown = send(&cb, tools_call(5, "mul", json!({}))).await;
    assert_eq!(unknown["result"]["isError"], true);
    assert_eq!(
        unknown["result"]["content"][0]["text"],
        "tool \"mul\" not found on MCP server \"calc\""
    );

    let pic = send(&cb, tools_call(6, "pic", Value::Null)).await;
    assert_eq!(
        pic["result"]["content"],
        json!([
        {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        {"type": "text", "text": "a pixel"}])
    );

    let calls: Vec<_> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|d| match d {
            Decision::McpCall {
                server,
                tool,
                tool_use_id,
                is_error,
            } => {
                assert_eq!(
                    (server.as_str(), tool_use_id.as_deref()),
                    ("calc", Some("toolu_5"))
                );
                (tool.clone(), *is_error)
            }
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("add".into(), false),
            ("add".into(), true),
            ("fail".into(), true),
            ("mul".into(), true),
            ("pic".into(), false)
        ]
    );
}

#[tokio::test]
async fn protocol_errors_are_json_rpc_errors() {
    let cb = Callbacks::new().with_mcp_server(calc());
    let cases = [
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "resources/list"}),
            json!(7),
            -32601,
        ),
        (
            json!({"jsonrpc": "1.0", "id": 8, "method": "ping"}),
            json!(8),
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"}),
            Value::Null,
            -32600,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 9, "method": 5}),
            json!(9),
            -32600,
        ),
        (json!({"jsonrpc": "2.0", "id": 10}), json!(10), -32600),
        (json!("not an object"), Value::Null, -32600),
        (
            json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {}}),
            json!(11),
            -32602,
        ),
    ];
    for (message, id, code) in cases {
        let reply = send(&cb, message.clone()).await;
        assert_eq!(reply["jsonrpc"], "2.0", "{message}");
        assert_eq!(reply.get("id"), Some(&id), "{message}: {reply}");
        assert_eq!(reply["error"]["code"], code, "{message}: {reply}");
        assert!(reply["error"]["message"].is_string());
    }
    let missing = InboundRequest {
        request: json!({"subtype": "mcp_message", "server_name": "calc"}).into(),
        ..mcp("calc", Value::Null)
    };
    let reply = cb.handle(missing, CancellationToken::new()).await.unwrap();
    assert_eq!(reply["mcp_response"]["error"]["code"], -32600);
}

#[tokio::test]
async fn unknown_server_is_a_json_rpc_error_and_a_missing_name_an_error_reply() {
    let cb = Callbacks::new().with_mcp_server(calc());
    let reply = cb
        .handle(
            mcp(
                "db",
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
            ),
            CancellationToken::new(),
        )
        .await
        .unwrap();
    assert_eq!(
        reply,
        json!({"mcp_response": {"jsonrpc": "2.0", "id": 3,
        "error": {"code": -32601, "message": "MCP server \"db\" not found"}}})
    );
    let nameless = InboundRequest {
        request: json!({"subtype": "mcp_message", "message": {}}).into(),
        ..mcp("calc", Value::Null)
    };
    let err: HandlerError = cb
        .handle(nameless, CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(err.message(), "mcp_message request has no server_name");
}
