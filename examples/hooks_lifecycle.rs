//! Session lifecycle hooks: a logger for `SessionStart` and `SessionEnd`.
//!
//! One turn, then `/clear`: the CLI ends the session (`SessionEnd`, reason
//! `clear`) and starts a fresh one (`SessionStart`, source `clear`); each
//! hook prints what it was told. The `SessionStart` hook also answers with
//! `additionalContext`, which the model sees at the start of the new
//! session.
//!
//! Claude Code 2.1.332 runs its `startup` SessionStart hooks before it reads
//! the SDK's hook registrations, so callbacks see `clear`, `compact` and
//! later starts, not the first one.
//!
//! ```text
//! cargo run --example hooks_lifecycle
//! ```

use std::process::ExitCode;

use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher};
use claude_agent::protocol::{
    HookEvent, HookInput, HookOutput, HookSpecificOutput, Message, SessionStartOutput,
};
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;

async fn log_lifecycle(
    input: HookInput,
    _tool_use_id: Option<String>,
    _ctx: HookContext,
) -> Result<HookOutput, CallbackError> {
    let session = input.common.session_id.as_deref().unwrap_or("?");
    let mut output = HookOutput::default();
    match &input.event {
        HookEvent::SessionStart(start) => {
            let source = start.source.as_ref().map_or("?", |s| s.as_str());
            eprintln!("[hook] session {session} started ({source})");
            let mut context = SessionStartOutput::default();
            context.additional_context = Some("This session was logged by the host.".into());
            output.hook_specific_output = Some(HookSpecificOutput::SessionStart(context));
        }
        HookEvent::SessionEnd(end) => {
            let reason = end.reason.as_ref().map_or("?", |r| r.as_str());
            eprintln!("[hook] session {session} ended ({reason})");
        }
        other => eprintln!("[hook] {}", other.tag()),
    }
    Ok(output)
}

#[tokio::main]
async fn main() -> ExitCode {
    let connected = Client::builder(Options::new().max_turns(1))
        .hook(
            HookEventKind::SessionStart,
            HookMatcher::any().hook(log_lifecycle),
        )
        .hook(
            HookEventKind::SessionEnd,
            HookMatcher::any().hook(log_lifecycle),
        )
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => return fail(&e),
    };
    let mut outcome = ExitCode::SUCCESS;
    for prompt in ["Say hello in five words.", "/clear"] {
        if let Err(e) = turn(&client, prompt).await {
            outcome = fail(&e);
            break;
        }
    }
    client.shutdown().await;
    outcome
}

async fn turn(client: &Client, prompt: &str) -> Result<(), Error> {
    client.send(prompt).await?;
    let mut messages = client.receive_response();
    while let Some(message) = messages.next().await {
        if let Message::Result(result) = message? {
            println!("-- {prompt}: {}", result.subtype);
        }
    }
    Ok(())
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    ExitCode::FAILURE
}
