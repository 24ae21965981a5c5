//! The process surface: `-v`, record files, pid file, script sources,
//! malformed scripts, `write_file`, and locating the binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::{EXIT_BAD_SCRIPT, EXIT_IO, Script, fake_cli_path};
use common::{Running, user, wait_bounded};
use serde_json::json;
use std::process::{Command, Stdio};

#[test]
fn version_flag_prints_the_version_and_exits_zero() {
    for flag in ["-v", "--version"] {
        let out = Command::new(fake_cli_path().unwrap())
            .arg(flag)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            "2.1.332 (Claude Code)\n"
        );
    }
}

#[test]
fn records_argv_env_stdin_and_pid() {
    let args = [
        "--output-format",
        "stream-json",
        "--verbose",
        "--system-prompt",
        "",
    ];
    let mut run = Running::start_with(&Script::new().expect_eof(), &args, |cmd| {
        cmd.env("FAKE_TEST_MARKER", "m1");
    });
    run.send(user("first"));
    run.send_raw("{\"type\":\"user\",   \"spacing\":  \"kept\"}\n");
    run.close_stdin();
    assert!(run.wait().success());
    assert_eq!(run.fake.recorded_argv().unwrap(), args);
    assert_eq!(run.fake.recorded_env().unwrap()["FAKE_TEST_MARKER"], "m1");
    assert_eq!(run.fake.pid(), Some(run.pid()));
    let raw = std::fs::read_to_string(&run.fake.record_path).unwrap();
    assert_eq!(
        raw.lines().nth(1),
        Some("{\"type\":\"user\",   \"spacing\":  \"kept\"}")
    );
    assert_eq!(run.fake.recorded_lines()[0]["message"]["content"], "first");
}

#[test]
fn inline_script_and_bare_step_array_are_accepted() {
    let mut run = Running::start_with(&Script::new(), &[], |cmd| {
        cmd.env_remove("FAKE_CLAUDE_SCRIPT").env(
            "FAKE_CLAUDE_SCRIPT_JSON",
            r#"[{"op":"emit","frame":{"type":"inline"}},{"op":"exit","code":6}]"#,
        );
    });
    assert_eq!(run.json()["type"], "inline");
    assert_eq!(run.wait().code(), Some(6));
}

#[test]
fn malformed_scripts_exit_2_before_any_step_runs() {
    let bad = [
        json!([{"op": "emit", "frame": {"type": "never"}}, {"op": "no_such_op"}]),
        json!([{"op": "emit", "frame": {}, "typo_field": 1}]),
        json!([{"op": "crash", "signal": "NOPE"}]),
        json!([{"op": "emit_raw", "base64": "***"}]),
        json!({"steps": [], "on_end": "sometimes"}),
        json!("not a script"),
    ];
    for script in bad {
        let mut run = Running::start_with(&Script::new(), &[], |cmd| {
            cmd.env_remove("FAKE_CLAUDE_SCRIPT")
                .env("FAKE_CLAUDE_SCRIPT_JSON", script.to_string());
        });
        assert_eq!(run.wait().code(), Some(EXIT_BAD_SCRIPT), "{script}");
        run.expect_stdout_eof();
        assert!(run.stderr_after_exit().contains("bad script"), "{script}");
    }
}

#[test]
fn write_file_creates_a_marker_and_missing_emit_file_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker.txt");
    std::fs::write(&marker, "old content that is longer").unwrap();
    let script = Script::new()
        .write_file(&marker, "new")
        .emit_file(dir.path().join("missing.ndjson"));
    let mut run = Running::start(&script);
    assert_eq!(run.wait().code(), Some(EXIT_IO));
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "new");
}

#[test]
fn sleep_delays_without_reading() {
    let script = Script::new()
        .sleep_ms(100)
        .emit(json!({"type": "woke"}))
        .on_end_exit();
    let mut run = Running::start(&script);
    // Tolerate EPIPE on a very slow machine: the assertion below holds
    // either way.
    let _ = std::io::Write::write_all(
        run.stdin.as_mut().unwrap(),
        format!("{}\n", user("early")).as_bytes(),
    );
    assert_eq!(run.json()["type"], "woke");
    assert!(run.wait().success());
    // on_end exit: the early line was never read, so never recorded.
    assert!(run.fake.recorded_lines().is_empty());
}

#[test]
fn starts_and_exits_on_eof_without_a_harness() {
    let dir = tempfile::tempdir().unwrap();
    let fake = Script::new()
        .expect_initialize()
        .install(dir.path())
        .unwrap();
    let mut child = fake
        .command()
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    assert!(wait_bounded(&mut child).success());
}
