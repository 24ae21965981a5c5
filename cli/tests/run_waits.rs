//! What `run` says on stderr while it waits on something else: an API the
//! CLI retries, a session store that does not answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/real_cli/mod.rs"]
mod real_cli;

use std::process::{Command, Output};

use claude_agent_testkit::Script;
use claude_agent_testkit::model::{ModelScript, Reply};
use common::*;
use serde_json::json;

fn run(fake: &Fake, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("run")
        .arg("--cli")
        .arg(&fake.cli.program)
        .args(args);
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn api_retry(attempt: u64) -> serde_json::Value {
    json!({"type": "system", "subtype": "api_retry", "attempt": attempt, "max_retries": 10,
        "retry_delay_ms": 1200, "error_status": 529, "error": "server_error",
        "uuid": format!("u-r{attempt}"), "session_id": "s-1"})
}

#[test]
fn api_retries_are_one_stderr_line_each_in_human_mode() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(api_retry(1))
            .emit(api_retry(2))
            .emit(assistant("hello"))
            .emit(result("success", "hello")),
    );
    let out = run(&fake, &["hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = stderr(&out);
    let retries: Vec<&str> = err.lines().filter(|l| l.contains("retrying")).collect();
    assert_eq!(
        retries,
        [
            "claude-agent run: retrying the API call in 1.2 s, attempt 1 of 10: server error (HTTP 529)",
            "claude-agent run: retrying the API call in 1.2 s, attempt 2 of 10: server error (HTTP 529)",
        ],
        "{err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("retrying"),
        "stdout is the session's: {text}"
    );
}

#[test]
fn with_json_a_retry_is_its_message_on_stdout_only() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(api_retry(1))
            .emit(result("success", "hello")),
    );
    let out = run(&fake, &["--json", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!stderr(&out).contains("retrying"), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"kind\":\"system/api_retry\""), "{text}");
}

// Multi-threaded: the model server answers while this thread waits on the
// tool's process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_real_clis_retries_of_a_failing_api_are_shown() {
    let script = ModelScript::new().fallback(Reply::error(529));
    let Some(rig) = real_cli::Rig::start(script).await else {
        return;
    };
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("run")
        .arg("--cli")
        .arg(&rig.cli)
        .arg("--cwd")
        .arg(rig.cwd.path())
        .arg("hello")
        .env("HOME", rig.home.path());
    for (k, v) in rig.server.env() {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(real_cli::TURN, cmd.output())
        .await
        .unwrap()
        .unwrap();
    // The turn ends in an error result once the retries are spent.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = stderr(&out);
    let retries: Vec<&str> = err.lines().filter(|l| l.contains("retrying")).collect();
    // The rig's CLAUDE_CODE_MAX_RETRIES=2.
    assert_eq!(retries.len(), 2, "{err}");
    assert!(
        retries[0].contains("attempt 1 of 2") && retries[0].contains("529"),
        "{err}"
    );
}
