//! Relaying a tenant's text to Claude Code: the CLI runs as the tenant's OS
//! user, the text is delivered as written (an `@/etc/passwd` in it is not
//! read), no setting files are loaded and nothing is kept on disk.
//!
//! ```text
//! sudo cargo run --example untrusted_tenant -- tenant1 "summarize @/etc/hostname"
//! ```
//!
//! Running as another user needs root (or CAP_SETUID, CAP_SETGID and
//! CAP_KILL); without the user argument the CLI runs as you. The CLI is
//! found by discovery; without one the program prints why and exits 1.

use std::process::ExitCode;

use claude_agent::options::OptionsError;
use claude_agent::protocol::Message;
use claude_agent::{Error, client::query, options::Options};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let user = args.next().filter(|u| !u.is_empty());
    let text = args
        .next()
        .unwrap_or_else(|| "What is in @/etc/hostname?".to_owned());

    let mut options = Options::new()
        .max_turns(1)
        // `client_composed` on every message: no `@path`, no slash commands.
        .verbatim_prompts(true)
        // Project settings in a tenant's cwd could run hooks: load none.
        .setting_sources([])
        .persist_session(false);
    if let Some(user) = user {
        options = options.user(user);
    }

    let mut messages = query(text, options);
    while let Some(item) = messages.next().await {
        match item {
            Ok(Message::Result(result)) => {
                println!("{}", result.result.as_deref().unwrap_or_default());
            }
            Ok(_) => {}
            Err(Error::Options(OptionsError::User(e))) => {
                // No such user, or this process may not switch to it.
                eprintln!("cannot run as the tenant: {e}");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
