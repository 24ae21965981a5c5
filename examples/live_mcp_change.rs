//! Adding an in-process MCP server to a session that is already running,
//! then removing it.
//!
//! The session starts with no MCP servers. After a first turn, a `clock`
//! server is added with `Client::add_mcp_server`: the CLI connects it
//! before the call returns, so the next turn's model can call
//! `mcp__clock__now`. `remove_mcp_server` takes it away again.
//!
//! ```text
//! cargo run --example live_mcp_change
//! ```

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult, mcp_tool_name};
use claude_agent::protocol::{ContentBlock, Message};
use claude_agent::{client::Client, options::Options};
use futures::StreamExt;
use serde_json::{Value, json};

/// Prints one turn's text and tool calls, up to its result.
async fn print_turn(client: &Client) -> Result<(), claude_agent::Error> {
    let mut turn = client.receive_response();
    while let Some(message) = turn.next().await {
        match message? {
            Message::Assistant(reply) => {
                for block in reply.message.blocks() {
                    match block {
                        ContentBlock::Text(t) => println!("{}", t.text.as_deref().unwrap_or("")),
                        ContentBlock::ToolUse(t) => {
                            println!("[model calls] {}", t.name.as_deref().unwrap_or("?"));
                        }
                        _ => {}
                    }
                }
            }
            Message::Result(result) => println!("-- {}", result.subtype),
            _ => {}
        }
    }
    Ok(())
}

async fn run() -> Result<(), claude_agent::Error> {
    let options = Options::new()
        .max_turns(3)
        .allowed_tools([mcp_tool_name("clock", "now")]);
    let client = Client::builder(options).connect().await?;

    client.send("Say hello in five words.").await?;
    print_turn(&client).await?;

    let now = Tool::new(
        "now",
        "The current Unix time in seconds",
        json!({"type": "object"}),
        |_: Value, _: ToolContext| async {
            let secs = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_err(CallbackError::other)?
                .as_secs();
            Ok(ToolResult::text(secs.to_string()))
        },
    );
    let added = client
        .add_mcp_server(SdkMcpServer::new("clock", "1.0.0").tool(now))
        .await?;
    println!("[added] {:?}", added.added.unwrap_or_default());

    client
        .send("Use the clock tool to tell me the Unix time.")
        .await?;
    print_turn(&client).await?;

    let removed = client.remove_mcp_server("clock").await?;
    println!("[removed] {:?}", removed.removed.unwrap_or_default());
    client.shutdown().await;
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
