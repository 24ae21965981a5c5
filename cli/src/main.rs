//! `claude-agent`: the command-line tool of the claude-agent SDK.
//!
//! Subcommands:
//! - `replay`: parse recorded stdout NDJSON of a Claude Code session and
//!   print it as a readable transcript or as one JSON object per frame.
//! - `sessions`: list, show, rename, tag, archive, delete, fork and import sessions,
//!   locally or in a session store.
//! - `run`: run one session and stream it, with a permission policy.
//! - `host`: run an NDJSON file of jobs through a multi-tenant `Host`.
//! - `worker` / `submit`: the same jobs spread over a fleet of machines
//!   through NATS JetStream.
//! - `completions` / `man`: a shell completion script, the man page.
//! - `demo`: a narrated session (permission decision, tool call, in-process
//!   MCP tool) through the real CLI against a scripted model when the CLI is
//!   installed, else through the built-in fake CLI.

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

mod args;
mod demo;
mod fake;
mod fault;
#[cfg(feature = "nats")]
mod fleet_args;
mod host;
mod logging;
mod render;
mod replay;
mod run;
mod sessions;
mod shebang;
mod shell;
mod signals;
mod store;
#[cfg(feature = "nats")]
mod submit;
#[cfg(feature = "nats")]
mod worker;

/// Embed and inspect Claude Code sessions.
#[derive(Debug, Parser)]
#[command(name = "claude-agent", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    verbosity: logging::Verbosity,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Replay recorded stdout NDJSON through the typed parser.
    Replay(replay::ReplayArgs),
    /// Run one session of the Claude Code CLI.
    Run(run::RunArgs),
    /// Run an NDJSON file of jobs through a multi-tenant host.
    Host(host::HostArgs),
    /// Pull jobs from a NATS JetStream fleet queue and run them.
    #[cfg(feature = "nats")]
    Worker(worker::WorkerArgs),
    /// Submit jobs to a NATS JetStream fleet queue (and await their outcomes).
    #[cfg(feature = "nats")]
    Submit(submit::SubmitArgs),
    /// `worker` in a build without the fleet.
    #[cfg(not(feature = "nats"))]
    #[command(hide = true, disable_help_flag = true)]
    Worker(NotBuilt),
    /// `submit` in a build without the fleet.
    #[cfg(not(feature = "nats"))]
    #[command(hide = true, disable_help_flag = true)]
    Submit(NotBuilt),
    /// A short narrated session: the real CLI if installed, else the built-in fake.
    Demo(demo::DemoArgs),
    /// List, show, rename, tag, archive, delete, fork and import sessions.
    Sessions(sessions::SessionsArgs),
    /// Print a shell completion script (bash, elvish, fish, powershell, zsh).
    Completions(shell::CompletionsArgs),
    /// Print the man page (roff): `claude-agent man | man -l -`.
    Man(shell::ManArgs),
    /// The built-in fake CLI (used by `demo`).
    #[command(name = "__fake-cli", hide = true)]
    FakeCli(fake::FakeCliArgs),
}

/// The arguments of a command this build left out.
#[cfg(not(feature = "nats"))]
#[derive(Debug, clap::Args)]
struct NotBuilt {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    _args: Vec<String>,
}

/// Says that `command` needs the fleet, which this build left out.
#[cfg(not(feature = "nats"))]
fn fleet_not_built(command: &str) -> ExitCode {
    eprintln!(
        "claude-agent: `{command}` needs the fleet (NATS), which this build left out; \
         install the tool with `--features nats` (or `full`)"
    );
    ExitCode::from(EXIT_USAGE)
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
    // The fake CLI's stderr is the CLI's, not ours: no log lines there.
    if !matches!(cli.command, Command::FakeCli(_)) {
        logging::init(cli.verbosity);
    }
    match cli.command {
        Command::Replay(args) => replay::run(&args),
        Command::Run(args) => run::run(args),
        Command::Host(args) => host::run(args),
        #[cfg(feature = "nats")]
        Command::Worker(args) => worker::run(args),
        #[cfg(feature = "nats")]
        Command::Submit(args) => submit::run(args),
        #[cfg(not(feature = "nats"))]
        Command::Worker(_) => fleet_not_built("worker"),
        #[cfg(not(feature = "nats"))]
        Command::Submit(_) => fleet_not_built("submit"),
        Command::Demo(args) => demo::run(&args),
        Command::Sessions(args) => sessions::run(args),
        Command::Completions(args) => shell::completions(&args, Cli::command()),
        Command::Man(args) => shell::man(&args, Cli::command()),
        Command::FakeCli(args) => fake::run(&args),
    }
}
