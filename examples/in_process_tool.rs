//! An in-process MCP tool: Rust code the model calls as `mcp__calc__add`.
//!
//! The arguments are a typed struct; its JSON schema (derived with
//! `schemars`) is what the model sees in `tools/list`, and arguments that
//! do not decode become an `isError: true` result the model can read, so
//! the function only ever sees valid input. The server is registered on the
//! builder, which adds it to `--mcp-config` as `{"type": "sdk"}`, and the
//! tool is pre-approved with `allowed_tools`, so no permission prompt runs.
//!
//! ```text
//! cargo run --example in_process_tool
//! ```

use std::process::ExitCode;

use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolContext, ToolResult, mcp_tool_name};
use claude_agent::protocol::{ContentBlock, Message};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;
use schemars::JsonSchema;
use serde::Deserialize;

/// The tool's arguments; doc comments become schema descriptions.
#[derive(Debug, Deserialize, JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: f64,
    /// The second addend.
    b: f64,
}

async fn add(
    args: AddArgs,
    ctx: ToolContext,
) -> Result<ToolResult, claude_agent::callbacks::CallbackError> {
    eprintln!("[calc] {} {args:?}", ctx.tool);
    Ok(ToolResult::text((args.a + args.b).to_string()))
}

#[tokio::main]
async fn main() -> ExitCode {
    let calc = SdkMcpServer::new("calc", "1.0.0").tool(Tool::typed::<AddArgs>(
        "add",
        "Add two numbers",
        add,
    ));
    let options = Options::new()
        .max_turns(3)
        .allowed_tools([mcp_tool_name("calc", "add")]);

    // One-shot through the builder: callbacks work for the whole run.
    let mut messages = Client::builder(options)
        .mcp_server(calc)
        .query("Use the add tool to compute 1234.5 + 8765.5, then tell me the sum.");
    while let Some(item) = messages.next().await {
        match item {
            Ok(Message::Assistant(reply)) => {
                for block in reply.message.blocks() {
                    match block {
                        ContentBlock::Text(t) => println!("{}", t.text.as_deref().unwrap_or("")),
                        ContentBlock::ToolUse(t) => println!(
                            "[model calls] {} {}",
                            t.name.as_deref().unwrap_or("?"),
                            t.input
                                .as_ref()
                                .map(ToString::to_string)
                                .unwrap_or_default()
                        ),
                        _ => {}
                    }
                }
            }
            Ok(Message::Result(result)) => println!("-- {}", result.subtype),
            Ok(_) => {}
            Err(Error::Parse(e)) => eprintln!("skipped a malformed line: {e}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
