//! Log lines on stderr: `-v`/`-q` set the level, `RUST_LOG` refines it;
//! without either only errors would show.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;

use std::process::{Command, Output};

use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

/// `claude-agent run ARGS --cli FAKE hi` (a turn that succeeds, its CLI
/// mirroring one transcript entry) with `RUST_LOG` set to `rust_log` (or
/// removed).
fn run(args: &[&str], rust_log: Option<&str>) -> Output {
    let config = tempfile::tempdir().unwrap();
    let path = format!("{}/projects/-logs/s-1.jsonl", config.path().display());
    let entry = json!({"type": "user", "uuid": "u-1", "sessionId": "s-1"});
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type": "transcript_mirror", "filePath": path, "entries": [entry]}))
            .emit(result("success", "ok")),
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    // The tests' store fails on purpose (for its warning): that loss is
    // expected, so it must not make the run exit 3.
    cmd.arg("run")
        .args(args)
        .arg("--allow-store-loss")
        .arg("--cli")
        .arg(&fake.cli.program)
        .arg("hi")
        .env("CLAUDE_CONFIG_DIR", config.path());
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    match rust_log {
        Some(v) => cmd.env("RUST_LOG", v),
        None => cmd.env_remove("RUST_LOG"),
    };
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    out
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The session's end, logged at info level.
const SHUT_DOWN: &str = "session shut down";
/// A store whose folder cannot be created: the mirror warns.
fn unwritable_store(dir: &tempfile::TempDir) -> String {
    let file = dir.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    format!("file://{}/store", file.display())
}

#[test]
fn without_flags_warnings_and_info_lines_stay_hidden() {
    let dir = tempfile::tempdir().unwrap();
    let err = stderr(&run(&["--store", &unwritable_store(&dir)], None));
    assert!(!err.contains("WARN") && !err.contains(SHUT_DOWN), "{err}");
    // The command's own report of the failed mirror is still there.
    assert!(err.contains("a mirrored batch was dropped"), "{err}");
}

#[test]
fn each_v_shows_one_level_more() {
    let dir = tempfile::tempdir().unwrap();
    let err = stderr(&run(&["-v", "--store", &unwritable_store(&dir)], None));
    assert!(
        err.contains("WARN") && err.contains("session mirror error"),
        "{err}"
    );
    assert!(!err.contains(SHUT_DOWN), "{err}");
    let err = stderr(&run(&["-vv"], None));
    assert!(err.contains("INFO") && err.contains(SHUT_DOWN), "{err}");
    assert!(!err.contains("DEBUG"), "{err}");
    let err = stderr(&run(&["-v", "-v", "-v"], None));
    assert!(err.contains("DEBUG"), "{err}");
    assert!(!err.contains('\u{1b}'), "colours on a pipe: {err}");
}

#[test]
fn rust_log_turns_on_one_target_and_its_bare_level_overrides_the_flags() {
    let err = stderr(&run(&[], Some("claude_agent_actors=info")));
    assert!(err.contains(SHUT_DOWN), "{err}");
    let err = stderr(&run(&["-vv"], Some("off")));
    assert!(!err.contains(SHUT_DOWN), "{err}");
}

#[test]
fn quiet_hides_the_warnings_verbose_would_show() {
    let dir = tempfile::tempdir().unwrap();
    let err = stderr(&run(&["-q", "--store", &unwritable_store(&dir)], None));
    assert!(!err.contains("WARN"), "{err}");
}

#[test]
fn verbose_and_quiet_together_are_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["-v", "-q", "run", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64), "{out:?}");
}
