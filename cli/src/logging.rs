//! The library's logs (`tracing` events) on stderr: `-v`/`-q` set the
//! level, `RUST_LOG` refines it.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

/// `-v`/`-q`, global to every subcommand.
#[derive(Debug, Clone, Copy, clap::Args)]
pub(crate) struct Verbosity {
    /// More log lines on stderr: -v warnings, -vv info, -vvv debug, -vvvv
    /// trace (default: errors). RUST_LOG (e.g. `claude_agent=debug`) adds
    /// its own directives on top.
    #[arg(short, long, action = clap::ArgAction::Count, global = true, conflicts_with = "quiet")]
    verbose: u8,
    /// No log lines on stderr (what the command itself reports stays).
    #[arg(short, long, global = true)]
    quiet: bool,
}

impl Verbosity {
    /// The level the flags ask for.
    fn level(self) -> LevelFilter {
        // Errors by default, as `RUST_LOG`-driven tools do: what the
        // library warns about, the commands mostly report in their own words.
        match (self.quiet, self.verbose) {
            (true, _) => LevelFilter::OFF,
            (false, 0) => LevelFilter::ERROR,
            (false, 1) => LevelFilter::WARN,
            (false, 2) => LevelFilter::INFO,
            (false, 3) => LevelFilter::DEBUG,
            (false, _) => LevelFilter::TRACE,
        }
    }
}

/// Installs the subscriber: the flags' level for everything, then
/// `RUST_LOG`'s directives (a bad one is skipped, not fatal). Colours only
/// on a terminal.
pub(crate) fn init(verbosity: Verbosity) {
    let filter = EnvFilter::builder()
        .with_default_directive(verbosity.level().into())
        .from_env_lossy();
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .try_init();
    // Only fails if a subscriber is already set, and `main` sets one once.
    drop(installed);
}
