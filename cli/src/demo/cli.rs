//! Which CLI the demo runs: the real Claude Code CLI when one is installed,
//! else a launcher for the built-in fake (`claude-agent __fake-cli`).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use claude_agent::discovery::find_cli;

/// Where `scripts/install-cli.sh` installs the CLI, relative to the cwd.
const PROJECT_INSTALL: &str = ".cli/node_modules/.bin/claude";

/// How long `claude --version` may take (the real one starts Node).
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// A real CLI and the version it reported.
#[derive(Debug)]
pub(crate) struct Found {
    /// The executable.
    pub(crate) path: PathBuf,
    /// E.g. `2.1.332`.
    pub(crate) version: String,
}

/// The real CLI: discovery (which honours `CLAUDE_AGENT_CLI`), then the
/// project-local install; `None` when neither is a real Claude Code.
pub(crate) async fn find_real() -> Option<Found> {
    let candidates = [
        find_cli(None, None).ok(),
        Some(PathBuf::from(PROJECT_INSTALL)),
    ];
    for path in candidates.into_iter().flatten() {
        if !path.is_file() || is_fake(&path) {
            continue;
        }
        if let Some(version) = version_of(&path).await {
            let path = std::path::absolute(&path).unwrap_or(path);
            return Some(Found { path, version });
        }
    }
    None
}

/// The testkit's fake prints the same `--version` line as the real CLI, so
/// it is told apart by name (and by the variable that points tests at it).
fn is_fake(path: &Path) -> bool {
    let named_fake = path.file_name().is_some_and(|n| n == "fake-claude");
    let env_fake = std::env::var_os(claude_agent_testkit::ENV_FAKE_CLI)
        .is_some_and(|f| same_file(Path::new(&f), path));
    let ours = std::env::current_exe().is_ok_and(|me| same_file(&me, path));
    named_fake || env_fake || ours
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Runs `<cli> --version` (bounded) and returns the version when the output
/// says `(Claude Code)`.
async fn version_of(path: &Path) -> Option<String> {
    let child = tokio::process::Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(VERSION_TIMEOUT, child)
        .await
        .ok()?
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("(Claude Code)"))?;
    line.split_whitespace().next().map(str::to_owned)
}

/// Writes `<dir>/claude`, a shell launcher that re-executes this binary as
/// `claude-agent __fake-cli <args>`: the SDK spawns a program with the
/// CLI's arguments only, and the hidden subcommand must come first.
pub(crate) fn fake_launcher(dir: &Path) -> std::io::Result<PathBuf> {
    let me = std::env::current_exe()?;
    let launcher = dir.join("claude");
    let script = format!("#!/bin/sh\nexec {} __fake-cli \"$@\"\n", sh_quote(&me));
    std::fs::write(&launcher, script)?;
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))?;
    Ok(launcher)
}

/// Single-quotes a path for `sh`.
fn sh_quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}
