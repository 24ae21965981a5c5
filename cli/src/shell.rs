//! `claude-agent completions SHELL` and `claude-agent man [COMMAND]`: the
//! tool described for a shell's completion and for `man`, both generated
//! from the same argument definitions the tool parses with.

use std::io::Write;
use std::process::ExitCode;

use clap_complete::Shell;

/// Arguments of `claude-agent completions`.
#[derive(Debug, clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, elvish, fish, powershell or zsh.
    shell: Shell,
}

/// Arguments of `claude-agent man`.
#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// A command's own page (e.g. `run`) instead of the tool's.
    #[arg(value_name = "COMMAND")]
    command: Option<String>,
}

/// Prints the completion script for `args.shell` to stdout.
pub(crate) fn completions(args: &CompletionsArgs, cli: clap::Command) -> ExitCode {
    let mut cli = without_hidden(cli);
    let name = cli.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, name, &mut script);
    print(&script, "completions")
}

/// Prints the man page (roff) of the tool, or of one of its commands, to
/// stdout: `claude-agent man | man -l -`.
pub(crate) fn man(args: &ManArgs, cli: clap::Command) -> ExitCode {
    let mut cli = cli.version(env!("CARGO_PKG_VERSION"));
    // Global flags (`-v`, `-q`) reach each command's page, and usage lines
    // say `claude-agent run`.
    cli.build();
    let page = match &args.command {
        None => cli,
        Some(name) => {
            let tool = cli.get_name().to_owned();
            let found = cli
                .get_subcommands()
                .find(|c| c.get_name() == name && visible(c))
                .cloned();
            match found {
                // Named as man names a command's page: `claude-agent-run`.
                Some(sub) => sub
                    .display_name(format!("{tool}-{name}"))
                    .version(env!("CARGO_PKG_VERSION")),
                None => {
                    let names: Vec<&str> = cli
                        .get_subcommands()
                        .filter(|c| visible(c))
                        .map(clap::Command::get_name)
                        .collect();
                    eprintln!(
                        "claude-agent man: no command \"{name}\" (one of: {})",
                        names.join(", ")
                    );
                    return ExitCode::from(crate::EXIT_USAGE);
                }
            }
        }
    };
    let mut roff = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut roff) {
        eprintln!("claude-agent man: cannot render the page: {e}");
        return ExitCode::from(2);
    }
    print(&roff, "man")
}

/// A command of the tool with a page of its own (not `help`, not hidden).
fn visible(c: &clap::Command) -> bool {
    !c.is_hide_set() && c.get_name() != "help"
}

/// `cli` without its hidden commands (`__fake-cli`): the generators would
/// offer them. clap cannot remove a subcommand, so the rest are copied
/// into a command of the same name and flags.
fn without_hidden(cli: clap::Command) -> clap::Command {
    let visible: Vec<clap::Command> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .cloned()
        .collect();
    clap::Command::new("claude-agent")
        .args(cli.get_arguments().cloned())
        .subcommands(visible)
}

fn print(bytes: &[u8], command: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`| head`) is the reader's choice.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("claude-agent {command}: cannot write to stdout: {e}");
            ExitCode::from(2)
        }
    }
}
