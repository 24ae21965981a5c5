//! Cancelling an in-process MCP tool call: through the runtime's token
//! (`control_cancel_request`), through MCP `notifications/cancelled`, and by
//! dropping the call. Tools report their start on a oneshot; nothing sleeps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult};
use claude_agent::callbacks::{CallbackError, Callbacks};
use claude_agent::runtime::{CancellationToken, InboundHandler, InboundRequest};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// Bounds every wait: a hang fails the test instead of stalling it.
const LIMIT: Duration = Duration::from_secs(10);

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

fn tools_call(id: u64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": {}, "_meta": {"claudecode/toolUseId": "toolu_5"}}})
}

/// A server whose `wait` tool reports its token when it starts, then either
/// waits for cancellation (cooperative) or never finishes.
fn waiting_server(cooperative: bool) -> (SdkMcpServer, oneshot::Receiver<CancellationToken>) {
    let (tx, rx) = oneshot::channel();
    let tx = Arc::new(Mutex::new(Some(tx)));
    let tool = Tool::new(
        "wait",
        "Waits",
        json!({"type": "object"}),
        move |_: Value, ctx: ToolContext| {
            let tx = tx.lock().unwrap().take();
            async move {
                if let Some(tx) = tx {
                    tx.send(ctx.cancel.clone()).unwrap();
                }
                if cooperative {
                    ctx.cancel.cancelled().await;
                    Ok(ToolResult::text("stopped early"))
                } else {
                    futures::future::pending::<Result<ToolResult, CallbackError>>().await
                }
            }
        },
    );
    (SdkMcpServer::new("calc", "1.0.0").tool(tool), rx)
}

#[tokio::test]
async fn control_cancel_cancels_the_tools_token() {
    let (server, started) = waiting_server(true);
    let cb = Callbacks::new().with_mcp_server(server.clone());
    let cancel = CancellationToken::new();
    let call = tokio::spawn(cb.handle(mcp("calc", tools_call(20, "wait")), cancel.clone()));
    let tool_token = tokio::time::timeout(LIMIT, started).await.unwrap().unwrap();
    assert_eq!(server.in_flight(), 1);
    assert!(!tool_token.is_cancelled());
    cancel.cancel();
    tokio::time::timeout(LIMIT, tool_token.cancelled())
        .await
        .unwrap();
    let reply = tokio::time::timeout(LIMIT, call)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(
        reply["mcp_response"]["result"]["content"][0]["text"],
        "stopped early"
    );
    assert_eq!(server.in_flight(), 0);
}

#[tokio::test]
async fn notifications_cancelled_cancels_the_call_with_that_id() {
    for cooperative in [true, false] {
        let (server, started) = waiting_server(cooperative);
        let cb = Callbacks::new().with_mcp_server(server.clone());
        let runtime_cancel = CancellationToken::new();
        let call =
            tokio::spawn(cb.handle(mcp("calc", tools_call(21, "wait")), runtime_cancel.clone()));
        let tool_token = tokio::time::timeout(LIMIT, started).await.unwrap().unwrap();

        // Another id is not this call.
        let other = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 22}});
        assert_eq!(
            send(&cb, other).await,
            json!({"jsonrpc": "2.0", "result": {}})
        );
        assert!(!tool_token.is_cancelled());

        let this = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                          "params": {"requestId": 21, "reason": "user interrupted"}});
        assert_eq!(
            send(&cb, this).await,
            json!({"jsonrpc": "2.0", "result": {}})
        );
        tokio::time::timeout(LIMIT, tool_token.cancelled())
            .await
            .unwrap();
        let reply = tokio::time::timeout(LIMIT, call)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        let result = &reply["mcp_response"]["result"];
        if cooperative {
            assert_eq!(result["content"][0]["text"], "stopped early");
        } else {
            assert_eq!(
                *result,
                json!({"content": [{"type": "text", "text": "tool \"wait\" was cancelled"}], "isError": true})
            );
        }
        assert!(!runtime_cancel.is_cancelled());
        assert_eq!(server.in_flight(), 0);
    }
}

#[tokio::test]
async fn a_dropped_call_leaves_no_in_flight_entry() {
    let (server, started) = waiting_server(false);
    let cb = Callbacks::new().with_mcp_server(server.clone());
    let call = tokio::spawn(cb.handle(
        mcp("calc", tools_call(30, "wait")),
        CancellationToken::new(),
    ));
    tokio::time::timeout(LIMIT, started).await.unwrap().unwrap();
    assert_eq!(server.in_flight(), 1);
    call.abort();
    assert!(call.await.unwrap_err().is_cancelled());
    assert_eq!(server.in_flight(), 0);
}
