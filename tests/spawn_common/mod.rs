//! Wrappers for the custom-spawn tests: spawners that run the fake CLI
//! under `/bin/sh`, leaving a marker file that proves the wrapper ran.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

use claude_agent::runtime::channel::SpawnerError;
use claude_agent::runtime::process::ProcessSpec;

/// The variable naming the wrapper's marker file.
const MARKER_ENV: &str = "WRAPPER_MARKER";

/// `sh` writes its pid to the marker, then becomes the CLI.
const EXEC: &str = r#"echo $$ > "$WRAPPER_MARKER"; exec "$@""#;

/// `sh` writes its pid to the marker, runs the CLI as its child, then
/// appends the CLI's exit status (a command after the CLI keeps `sh` from
/// replacing itself with it).
const CHILD: &str = r#"echo $$ > "$WRAPPER_MARKER"; "$@"; code=$?; echo "cli exited $code" >> "$WRAPPER_MARKER"; exit $code"#;

/// A spawner that runs the CLI through `sh -c SCRIPT`.
fn sh_wrapper(
    script: &'static str,
    marker: PathBuf,
) -> impl Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError> + Send + Sync + 'static {
    move |spec: ProcessSpec| {
        let mut wrapped = spec.clone();
        wrapped.program = "/bin/sh".into();
        wrapped.args = vec!["-c".into(), script.into(), "wrapper".into()];
        wrapped.args.push(spec.program.into_os_string());
        wrapped.args.extend(spec.args);
        wrapped
            .env
            .push((MARKER_ENV.into(), marker.clone().into_os_string()));
        Ok(wrapped)
    }
}

/// A wrapper that `exec`s the CLI: the spawned pid becomes the CLI's.
pub fn exec_wrapper(
    marker: PathBuf,
) -> impl Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError> + Send + Sync + 'static {
    sh_wrapper(EXEC, marker)
}

/// A wrapper that runs the CLI as its child, in its process group.
pub fn child_wrapper(
    marker: PathBuf,
) -> impl Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError> + Send + Sync + 'static {
    sh_wrapper(CHILD, marker)
}

/// The wrapper's pid from its marker, `None` when the wrapper never ran.
pub fn wrapper_pid(marker: &Path) -> Option<u32> {
    let text = std::fs::read_to_string(marker).ok()?;
    text.lines().next()?.trim().parse().ok()
}

/// The lines the wrapper appended after its pid.
pub fn wrapper_notes(marker: &Path) -> Vec<String> {
    std::fs::read_to_string(marker)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .map(str::to_owned)
        .collect()
}
