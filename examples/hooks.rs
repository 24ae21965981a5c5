//! Hooks: async closures the CLI calls around tool use.
//!
//! - a `PreToolUse` hook on `Bash` refuses any command containing `rm -rf`,
//!   through `hookSpecificOutput.permissionDecision: "deny"` with a reason
//!   the model reads;
//! - a `PostToolUse` hook on every tool logs what ran.
//!
//! The session runs in a fresh temporary directory, so nothing of yours is
//! at stake even if you change the policy.
//!
//! ```text
//! cargo run --example hooks
//! ```

use std::process::ExitCode;

use claude_agent::callbacks::{
    CallbackError, HookContext, HookEventKind, HookMatcher, pre_tool_use_decision,
};
use claude_agent::protocol::{
    ContentBlock, HookEvent, HookInput, HookOutput, Message, PermissionDecision,
};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;
use serde_json::Value;

/// Registered for `Bash` only (the matcher), so every input is a Bash call.
async fn no_rm_rf(
    input: HookInput,
    _tool_use_id: Option<String>,
    _ctx: HookContext,
) -> Result<HookOutput, CallbackError> {
    let HookEvent::PreToolUse(call) = &input.event else {
        return Ok(HookOutput::default());
    };
    let command = call
        .tool_input
        .as_ref()
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if command.contains("rm -rf") {
        eprintln!("[pre] denied: {command}");
        return Ok(pre_tool_use_decision(
            PermissionDecision::Deny,
            "recursive forced deletion is not allowed; delete files one by one",
        ));
    }
    // An empty output leaves the decision to the usual permission rules.
    Ok(HookOutput::default())
}

async fn log_tool(
    input: HookInput,
    tool_use_id: Option<String>,
    _ctx: HookContext,
) -> Result<HookOutput, CallbackError> {
    if let HookEvent::PostToolUse(call) = &input.event {
        let tool = call.tool_name.as_deref().unwrap_or("?");
        eprintln!(
            "[post] {tool} ran ({})",
            tool_use_id.as_deref().unwrap_or("-")
        );
    }
    Ok(HookOutput::default())
}

#[tokio::main]
async fn main() -> ExitCode {
    let scratch = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("error: cannot create a scratch directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = Options::new()
        .cwd(scratch.path())
        .max_turns(4)
        // Let harmless commands run without a permission prompt.
        .allowed_tools(["Bash(mkdir:*)", "Bash(ls:*)", "Bash(rm:*)"]);
    let connected = Client::builder(options)
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(no_rm_rf),
        )
        .hook(
            HookEventKind::PostToolUse,
            HookMatcher::any().hook(log_tool),
        )
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => return fail(&e),
    };
    let prompt = "Create a directory named build with mkdir, then remove it with `rm -rf build`, \
                  then list the directory with ls.";
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
                    if let ContentBlock::Text(t) = block {
                        println!("{}", t.text.as_deref().unwrap_or_default());
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
