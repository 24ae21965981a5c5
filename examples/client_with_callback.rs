//! A `Client` over two turns, with a permission callback and an in-process
//! MCP tool the model may call.
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};
use claude_agent::callbacks::{PermissionContext, allow, deny};
use claude_agent::prelude::*;
use claude_agent::protocol::PermissionRequest;

#[tokio::main]
async fn main() -> claude_agent::Result<()> {
    let clock = Tool::new(
        "now",
        "The time",
        serde_json::json!({"type": "object"}),
        |_, _| async { Ok(ToolResult::text("09:30")) },
    );
    let client = Client::builder(Options::new())
        .mcp_server(SdkMcpServer::new("clock", "1.0.0").tool(clock))
        .can_use_tool(|req: PermissionRequest, _: PermissionContext| async move {
            match req.tool_name.as_deref() {
                Some("mcp__clock__now") => Ok(allow()),
                _ => Ok(deny("only the clock may be used")),
            }
        })
        .connect()
        .await?;
    for prompt in ["What time is it?", "In one word: is that morning?"] {
        client.send(prompt).await?;
        let mut replies = client.receive_response();
        while let Some(message) = replies.next().await {
            if let Some(text) = message?.text() {
                println!("{text}");
            }
        }
    }
    client.shutdown().await;
    Ok(())
}
