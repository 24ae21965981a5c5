//! Two [`Extension`]s of one's own: `MinVersion` refuses to connect to a
//! Claude Code older than a given version (its `post_start` reads the
//! `initialize` reply), and `SessionLog` logs each session's pid, then its
//! id and how it ended, and adds that to the session's report. Both run
//! around the built-in extensions on every connect of the builder.
//!
//! ```text
//! cargo run --example session_extension
//! CLAUDE_AGENT_MIN_VERSION=99.0.0 cargo run --example session_extension   # refused
//! ```

use std::process::ExitCode;

use claude_agent::extensions::{Extension, Started, Stopped};
use claude_agent::protocol::Message;
use claude_agent::{Error, Result, client::Client, options::Options};
use futures::StreamExt;
use serde_json::json;

/// Refuses a CLI older than `min` (`major.minor.patch`).
struct MinVersion {
    min: (u32, u32, u32),
}

impl Extension for MinVersion {
    fn name(&self) -> &str {
        "min_version"
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        let version = started.server_info()?.claude_code_version;
        let found = version.as_deref().and_then(parse_version);
        match found {
            Some(v) if v >= self.min => Ok(()),
            _ => {
                let (a, b, c) = self.min;
                let found = version.as_deref().unwrap_or("an unknown version");
                // The connect fails with this error; the session it started
                // is shut down.
                Err(Error::extension(
                    self.name(),
                    format!("Claude Code {found} is older than {a}.{b}.{c}"),
                ))
            }
        }
    }
}

/// Logs the start and the end of each session.
struct SessionLog;

impl Extension for SessionLog {
    fn name(&self) -> &str {
        "session_log"
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        eprintln!(
            "[session_log] CLI started, pid {:?}",
            started.session().pid()
        );
        Ok(())
    }

    fn connect_failed(&self, error: &Error) {
        eprintln!("[session_log] connect failed: {error}");
    }

    async fn post_stop(&self, stopped: &mut Stopped<'_>) {
        let exit = stopped.runtime().exit.as_ref().map(ToString::to_string);
        let id = stopped.session_id().map(str::to_owned);
        eprintln!(
            "[session_log] session {} ended: {}",
            id.as_deref().unwrap_or("(no id)"),
            exit.as_deref().unwrap_or("exit unknown")
        );
        // This extension's part of the SessionReport.
        stopped.report(json!({
            "session_id": id,
            "exit": exit,
            "frames_in": stopped.stats().frames_in,
            "frames_out": stopped.stats().frames_out,
        }));
    }
}

/// `major.minor.patch` from a version string such as `2.1.332 (Claude Code)`.
fn parse_version(v: &str) -> Option<(u32, u32, u32)> {
    let mut parts = v.trim().split(['.', '-', ' ']).map(|p| p.parse().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

#[tokio::main]
async fn main() -> ExitCode {
    let min = std::env::var("CLAUDE_AGENT_MIN_VERSION").unwrap_or_else(|_| "2.0.0".into());
    let Some(min) = parse_version(&min) else {
        eprintln!("error: CLAUDE_AGENT_MIN_VERSION is not major.minor.patch: {min}");
        return ExitCode::FAILURE;
    };
    let connected = Client::builder(Options::new().max_turns(1))
        .extension(SessionLog)
        .extension(MinVersion { min })
        .connect()
        .await;
    let client = match connected {
        Ok(client) => client,
        Err(e) => return fail(&e),
    };

    let mut outcome = ExitCode::SUCCESS;
    if let Err(e) = client.send("Say hello in five words.").await {
        outcome = fail(&e);
    }
    let mut turn = client.receive_response();
    while let Some(message) = turn.next().await {
        match message {
            Ok(Message::Result(result)) => {
                println!("{}", result.result.as_deref().unwrap_or_default());
            }
            Ok(_) => {}
            Err(e) => {
                outcome = fail(&e);
                break;
            }
        }
    }
    drop(turn);

    let report = client.shutdown().await;
    println!("escalation: {:?}", report.escalation);
    for (name, part) in &report.extensions {
        println!("{name}: {part}");
    }
    outcome
}

fn fail(e: &Error) -> ExitCode {
    eprintln!("error: {e}");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        eprintln!("  because: {s}");
        source = s.source();
    }
    ExitCode::FAILURE
}
