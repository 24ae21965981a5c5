//! A fail-closed guard: a `PreToolUse` hook on `Bash` set to
//! `OnFailure::Block`, so the command does not run when the guard cannot
//! decide.
//!
//! The guard asks a policy (here: a file that must exist and list allowed
//! command prefixes) and fails when the policy cannot be read. With
//! `OnFailure::Block`, that failure (an `Err`, a panic, or running past the
//! matcher's timeout) blocks the tool call; with the default it would let
//! the command through. `connect()` refuses a CLI that does not confirm it
//! honors `onFailure`, so the guard never silently fails open.
//!
//! ```text
//! cargo run --example fail_closed_guard [policy-file]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use claude_agent::callbacks::{
    CallbackError, HookContext, HookEventKind, HookMatcher, OnFailure, pre_tool_use_decision,
};
use claude_agent::protocol::{HookEvent, HookInput, HookOutput, Message, PermissionDecision};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;
use serde_json::Value;

/// Allows the command when a line of the policy file is a prefix of it,
/// denies it otherwise, and fails when the policy cannot be read.
async fn guard(policy: PathBuf, input: HookInput) -> Result<HookOutput, CallbackError> {
    let HookEvent::PreToolUse(call) = &input.event else {
        return Ok(HookOutput::default());
    };
    let command = call
        .tool_input
        .as_ref()
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let rules = tokio::fs::read_to_string(&policy)
        .await
        .map_err(CallbackError::other)?;
    let allowed = rules
        .lines()
        .map(str::trim)
        .any(|prefix| !prefix.is_empty() && command.starts_with(prefix));
    eprintln!(
        "[guard] {command:?}: {}",
        if allowed { "allowed" } else { "denied" }
    );
    Ok(if allowed {
        pre_tool_use_decision(PermissionDecision::Allow, "listed in the policy")
    } else {
        pre_tool_use_decision(PermissionDecision::Deny, "not listed in the policy")
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    let policy = std::env::args_os()
        .nth(1)
        .map_or_else(|| PathBuf::from("bash-policy.txt"), PathBuf::from);
    let scratch = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            eprintln!("error: cannot create a scratch directory: {e}");
            return ExitCode::FAILURE;
        }
    };
    let options = Options::new().cwd(scratch.path()).max_turns(3);
    let matcher = HookMatcher::tool("Bash")
        .hook(
            move |input, _tool_use_id: Option<String>, _ctx: HookContext| {
                guard(policy.clone(), input)
            },
        )
        .timeout(Duration::from_secs(5))
        .on_failure(OnFailure::Block);
    let connected = Client::builder(options)
        .hook(HookEventKind::PreToolUse, matcher)
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => return fail(&e),
    };
    let outcome = match run(&client, "Run `touch guarded.txt` with Bash, then say done.").await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(&e),
    };
    client.shutdown().await;
    let ran = scratch.path().join("guarded.txt").exists();
    println!("the command {}", if ran { "ran" } else { "was blocked" });
    outcome
}

async fn run(client: &Client, prompt: &str) -> Result<(), Error> {
    client.send(prompt).await?;
    let mut messages = client.receive_response();
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("-- {}", result.subtype);
        }
    }
    Ok(())
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::FAILURE
}
