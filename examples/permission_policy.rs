//! A permission policy as an async closure (`can_use_tool`): the CLI asks
//! before each tool call that its own rules do not already settle, and the
//! closure answers.
//!
//! - `Read` and `Glob` are allowed as asked;
//! - `Bash` is allowed with a rewritten command (`allow_with_input`): every
//!   command runs under a CPU-time limit;
//! - anything else is denied, with a message the model reads.
//!
//! ```text
//! cargo run --example permission_policy
//! ```

use std::process::ExitCode;

use claude_agent::callbacks::{CallbackError, PermissionContext, allow, allow_with_input, deny};
use claude_agent::protocol::{ContentBlock, Message, PermissionRequest, PermissionResult};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;
use serde_json::Value;

/// The policy. It runs on the session's runtime, once per request, each in
/// its own task: a slow answer never blocks the messages of the turn.
async fn policy(
    request: PermissionRequest,
    ctx: PermissionContext,
) -> Result<PermissionResult, CallbackError> {
    let tool = request.tool_name.as_deref().unwrap_or_default();
    let decision = match tool {
        "Read" | "Glob" => allow(),
        "Bash" => {
            let mut input = request.input.clone().unwrap_or(Value::Null);
            match input.get("command").and_then(Value::as_str) {
                Some(command) => {
                    // Same command, but it cannot spin a CPU for more than
                    // a minute.
                    input["command"] = Value::String(format!("ulimit -t 60; {command}"));
                    allow_with_input(input)
                }
                None => deny("a Bash call needs a command"),
            }
        }
        other => deny(format!(
            "{other} is not allowed in this session; only Read, Glob and Bash are"
        )),
    };
    eprintln!("[policy] {} {tool}: {decision:?}", ctx.request_id);
    Ok(decision)
}

#[tokio::main]
async fn main() -> ExitCode {
    // Registering a policy adds `--permission-prompt-tool stdio`, so the CLI
    // sends its permission questions to us instead of refusing.
    let connected = Client::builder(Options::new().max_turns(4))
        .can_use_tool(policy)
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => return fail(&e),
    };
    let prompt = "List the files here, show the first line of Cargo.toml with `head -1`, \
                  then write a file notes.txt saying hello.";
    let outcome = match run(&client, prompt).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    };
    client.shutdown().await;
    outcome
}

async fn run(client: &Client, prompt: &str) -> Result<(), Error> {
    client.send(prompt).await?;
    let mut messages = client.receive_response();
    while let Some(message) = messages.next().await {
        match message? {
            Message::Assistant(reply) => {
                for block in reply.message.blocks() {
                    match block {
                        ContentBlock::Text(t) => println!("{}", t.text.as_deref().unwrap_or("")),
                        ContentBlock::ToolUse(t) => {
                            println!("[tool] {}", t.name.as_deref().unwrap_or("?"));
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

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::FAILURE
}
