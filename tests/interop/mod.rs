//! Shared by the interop tests: the official Python SDK (installed by
//! `scripts/install-python-sdk.sh`, named by `CLAUDE_AGENT_PYTHON_SDK`)
//! driven through `python_sessions.py`, which prints what its session
//! functions return as JSON.
//!
//! Without the SDK a test says so and returns, unless
//! `CLAUDE_AGENT_REQUIRE_PYTHON_SDK=1`, which makes that a failure.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

/// Bound on one run of the Python driver (it imports the whole SDK).
const PYTHON_RUN: Duration = Duration::from_secs(60);

/// The Python SDK's venv python, or `None` (after saying so) when this run
/// may skip it.
pub fn python_sdk() -> Option<PathBuf> {
    let required = std::env::var("CLAUDE_AGENT_REQUIRE_PYTHON_SDK").is_ok_and(|v| v == "1");
    match std::env::var_os("CLAUDE_AGENT_PYTHON_SDK").map(PathBuf::from) {
        Some(p) if p.is_file() => Some(p),
        other => {
            assert!(
                !required,
                "CLAUDE_AGENT_REQUIRE_PYTHON_SDK=1 but no Python SDK at {other:?} \
                 (scripts/install-python-sdk.sh prints its path)"
            );
            eprintln!(
                "SKIPPED: Python SDK interop test (set CLAUDE_AGENT_PYTHON_SDK to \
                 the python scripts/install-python-sdk.sh prints)"
            );
            None
        }
    }
}

/// One request to the Python SDK, with `home` as HOME (its config folder
/// `home/.claude`); its answer.
pub async fn python(sdk: &Path, home: &Path, request: Value) -> Value {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/interop/python_sessions.py"
    );
    let run = tokio::process::Command::new(sdk)
        .arg(script)
        .arg(request.to_string())
        .env("HOME", home)
        .env_remove("CLAUDE_CONFIG_DIR")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(PYTHON_RUN, run)
        .await
        .unwrap_or_else(|_| panic!("the Python SDK did not answer {request} in {PYTHON_RUN:?}"))
        .unwrap();
    assert!(
        out.status.success(),
        "python {request}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "python {request} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The fields the Python SDK's `SDKSessionInfo` has.
pub const INFO_FIELDS: [&str; 10] = [
    "session_id",
    "summary",
    "last_modified",
    "file_size",
    "custom_title",
    "first_prompt",
    "git_branch",
    "cwd",
    "tag",
    "created_at",
];

/// Asserts that `ours` (a serialized `SessionInfo`) and `theirs` (the
/// Python SDK's) say the same in every field the Python SDK has (a field
/// we leave out is its `None`).
pub fn assert_same_info(ours: &Value, theirs: &Value) {
    for field in INFO_FIELDS {
        assert_eq!(
            ours.get(field).unwrap_or(&Value::Null),
            &theirs[field],
            "{field}: ours {ours}, the Python SDK's {theirs}"
        );
    }
}
