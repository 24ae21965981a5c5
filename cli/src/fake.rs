//! `claude-agent __fake-cli` (hidden): the built-in fake Claude Code CLI.
//!
//! `demo` runs its story through this when no real CLI is installed, so the
//! first command of the README works on any machine. The fake's behaviour
//! comes from its script (`FAKE_CLAUDE_SCRIPT` or `FAKE_CLAUDE_SCRIPT_JSON`);
//! see the testkit.

use std::ffi::OsString;
use std::process::ExitCode;

/// Arguments of `claude-agent __fake-cli`: whatever the host passes the CLI.
#[derive(Debug, clap::Args)]
pub(crate) struct FakeCliArgs {
    /// Accepted and ignored, like every argument of the fake CLI.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    _args: Vec<OsString>,
}

/// Runs the fake CLI in this process and exits with its status.
pub(crate) fn run(_args: &FakeCliArgs) -> ExitCode {
    let status = claude_agent_testkit::run_fake_cli();
    // Statuses outside 0..=255 cannot happen (the fake exits with small
    // codes); map them to a generic failure rather than truncating.
    ExitCode::from(u8::try_from(status).unwrap_or(1))
}
