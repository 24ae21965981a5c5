//! `claude-agent`: the command-line tool of the claude-agent SDK.
//!
//! Subcommands:
//! - `replay`: parse recorded stdout NDJSON of a Claude Code session and
//!   print it as a readable transcript or as one JSON object per frame.
//! - `run`: run one session and stream it, with a permission policy.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod render;
mod replay;
mod run;

/// Embed and inspect Claude Code sessions.
#[derive(Debug, Parser)]
#[command(name = "claude-agent", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay recorded stdout NDJSON through the typed parser.
    Replay(replay::ReplayArgs),
    /// Run one session of the Claude Code CLI.
    Run(run::RunArgs),
}

/// Exit code for command-line usage errors (BSD `EX_USAGE`).
pub(crate) const EXIT_USAGE: u8 = 64;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_USAGE } else { 0 };
            // Printing help or a usage error can only fail if stdout/stderr
            // are gone; there is nothing better to do then.
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Replay(args) => replay::run(&args),
        Command::Run(args) => run::run(args),
    }
}
