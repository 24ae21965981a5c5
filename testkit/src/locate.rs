//! Finding (and if needed building) the `fake-claude` binary, so that
//! `cargo test --workspace` works on a clean checkout with no manual step.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::SystemTime;

use crate::error::TestkitError;

/// Env var that overrides where the binary is looked for.
pub const ENV_FAKE_CLI: &str = "CLAUDE_AGENT_FAKE_CLI";

const BIN: &str = "fake-claude";

/// Outcome of this process's one build attempt.
static BUILT: Mutex<Option<Result<PathBuf, String>>> = Mutex::new(None);

/// Path to the built `fake-claude` binary.
///
/// Looks, in order, at `$CLAUDE_AGENT_FAKE_CLI`; next to the running test
/// executable (`target/<profile>/fake-claude`, then `target/<profile>/deps/`);
/// and otherwise builds it once per process with `cargo build -p
/// claude-agent-testkit --bin fake-claude` (`--release` when the test runs
/// from a `release` directory). A binary older than the testkit sources
/// (when they are present) is rebuilt rather than used stale.
///
/// ```no_run
/// let program = claude_agent_testkit::fake_cli_path()?;
/// assert!(program.ends_with("fake-claude"));
/// # Ok::<(), claude_agent_testkit::TestkitError>(())
/// ```
pub fn fake_cli_path() -> Result<PathBuf, TestkitError> {
    if let Some(p) = std::env::var_os(ENV_FAKE_CLI) {
        return Ok(PathBuf::from(p));
    }
    let candidates = candidates();
    if let Some(found) = candidates.iter().find(|p| is_fresh(p)) {
        return Ok(found.clone());
    }
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    match &*built {
        Some(Ok(path)) => return Ok(path.clone()),
        Some(Err(msg)) => return Err(TestkitError::EarlierBuildFailed(msg.clone())),
        None => {}
    }
    let result = build(&candidates);
    *built = Some(
        result
            .as_ref()
            .map(Clone::clone)
            .map_err(ToString::to_string),
    );
    result
}

/// `target/<profile>/fake-claude` and `target/<profile>/deps/fake-claude`,
/// judged from the running executable.
fn candidates() -> Vec<PathBuf> {
    let Ok(exe) = std::env::current_exe() else {
        return Vec::new();
    };
    let name = format!("{BIN}{}", std::env::consts::EXE_SUFFIX);
    let dir = exe.parent();
    [dir.and_then(Path::parent), dir]
        .into_iter()
        .flatten()
        .map(|d| d.join(&name))
        .collect()
}

/// Exists, and is not older than any file under the testkit's `src/`.
fn is_fresh(bin: &Path) -> bool {
    let Ok(bin_time) = bin.metadata().and_then(|m| m.modified()) else {
        return false;
    };
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    newest_mtime(&src).is_none_or(|src_time| src_time <= bin_time)
}

fn newest_mtime(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let time = if path.is_dir() {
            newest_mtime(&path)
        } else {
            entry.metadata().and_then(|m| m.modified()).ok()
        };
        newest = newest.max(time);
    }
    newest
}

/// Runs cargo once and returns the built binary's path.
fn build(candidates: &[PathBuf]) -> Result<PathBuf, TestkitError> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest_dir
        .parent()
        .unwrap_or(manifest_dir)
        .join("Cargo.toml");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let release = std::env::current_exe()
        .map(|e| e.components().any(|c| c.as_os_str() == "release"))
        .unwrap_or(false);
    let mut cmd = Command::new(&cargo);
    cmd.args([
        "build",
        "--quiet",
        "-p",
        "claude-agent-testkit",
        "--bin",
        BIN,
    ])
    .arg("--message-format=json-render-diagnostics")
    .arg("--manifest-path")
    .arg(&root);
    if release {
        cmd.arg("--release");
    }
    let out = cmd
        .output()
        .map_err(|source| TestkitError::CargoSpawn { cargo, source })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        return Err(TestkitError::Build {
            status: out.status.to_string(),
            stderr_tail: tail,
        });
    }
    // Cargo names the exact artifact; this also covers CARGO_TARGET_DIR.
    let from_cargo = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v.pointer("/target/name").and_then(|n| n.as_str()) == Some(BIN))
        .find_map(|v| {
            v.get("executable")
                .and_then(|e| e.as_str())
                .map(PathBuf::from)
        });
    from_cargo
        .into_iter()
        .chain(candidates.iter().cloned())
        .find(|p| p.is_file())
        .ok_or_else(|| TestkitError::NotFound {
            looked_in: candidates.to_vec(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the same cargo invocation a clean checkout would (cheap when
    /// up to date) and checks the artifact path cargo reports is usable.
    #[test]
    fn build_reports_the_binary_cargo_built() {
        let path = build(&[]).unwrap();
        assert!(path.is_file(), "{}", path.display());
        assert!(path.ends_with(format!("{BIN}{}", std::env::consts::EXE_SUFFIX)));
        assert!(is_fresh(&path));
    }

    #[test]
    fn freshness_compares_against_the_sources() {
        let dir = std::env::temp_dir().join(format!("fc-fresh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let old = dir.join(BIN);
        std::fs::write(&old, "").unwrap();
        let long_ago = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        assert!(!is_fresh(&old));
        assert!(!is_fresh(&dir.join("absent")));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
