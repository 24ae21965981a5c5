//! `submit --wait` for a person: a progress bar on a terminal (none on a
//! pipe), and jobs without an outcome when the wait ends reported as
//! pending, not failed, with the command that waits for them again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
mod fleet_common;
mod pty;

use std::process::Command;

use claude_agent_testkit::Script;
use common::{assistant, fake, result};
use fleet_common::*;
use serde_json::json;

fn submit_command(nats: &str, prefix: &str, jobs: &std::path::Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.args(["submit", "--queue", nats, "--prefix", prefix])
        .arg("--jobs")
        .arg(jobs)
        .args(args);
    cmd
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn jobs_without_an_outcome_are_pending_and_the_hint_waits_for_them_again() {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("submit-pending");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let ok = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("done"))
            .emit(result("success", "done")),
    );
    let tenant = unique("tenant");
    let jobs = write_jobs(
        ok.dir.path(),
        &[
            json!({"tenant": tenant, "prompt": "one", "id": unique("one")}),
            json!({"tenant": tenant, "prompt": "two", "id": unique("two")}),
        ],
    );
    // No worker yet: nothing can finish within the timeout.
    let out = submit_command(&nats, &prefix, &jobs, &["--wait", "--timeout", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(75), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("2 jobs in") && text.contains("0 failed, 2 pending"),
        "{text}"
    );
    assert!(!text.contains("no_outcome"), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains('\r') && !err.contains("0/2"),
        "a bar on a pipe: {err}"
    );
    let hint = err
        .lines()
        .find(|l| l.contains("still pending"))
        .unwrap_or_else(|| panic!("{err}"));
    let command = hint
        .split_once("wait for them again with: ")
        .unwrap_or_else(|| panic!("{hint}"))
        .1;
    assert!(command.contains(&format!("--prefix {prefix}")), "{command}");

    // The same with --json: the summary counts them as pending.
    let out = submit(&nats, &prefix, &jobs, &["--wait", "--timeout", "1"]);
    assert_eq!(out.status.code(), Some(75), "{out:?}");
    let lines = json_lines(&out);
    let summary = lines.last().unwrap();
    assert_eq!(
        (&summary["failed"], &summary["pending"]),
        (&json!(0), &json!(2)),
        "{summary}"
    );
    assert_eq!(summary["pending_jobs"][0]["line"], 1, "{summary}");

    // A worker comes; the hint's command (run as given) publishes nothing
    // and collects both outcomes.
    let store = tempfile::tempdir().unwrap();
    let worker = Worker::spawn(
        &nats,
        &prefix,
        &format!("file://{}", store.path().display()),
        &ok.cli.program,
        &ok.cli.env,
        &[],
    );
    let words: Vec<&str> = command.split(' ').collect();
    assert_eq!(&words[..2], ["claude-agent", "submit"], "{command}");
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(&words[1..])
        .args(["--timeout", "60", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}\n{}", worker.stderr());
    let lines = json_lines(&out);
    assert!(
        !lines.iter().any(|l| l["kind"] == "submitted"),
        "published again: {lines:?}"
    );
    let summary = lines.last().unwrap();
    assert_eq!(
        (
            &summary["completed"],
            &summary["pending"],
            &summary["duplicates"]
        ),
        (&json!(2), &json!(0), &json!(0)),
        "{summary}"
    );
}

#[tokio::test]
#[ignore = "needs NATS"]
async fn on_a_terminal_the_wait_draws_a_progress_bar() {
    let Some(nats) = shared_nats() else { return };
    let prefix = unique("submit-bar");
    let _cleanup = StreamsGuard {
        nats: nats.clone(),
        prefix: prefix.clone(),
    };
    let dir = tempfile::tempdir().unwrap();
    let jobs = write_jobs(
        dir.path(),
        &[json!({"tenant": "t", "prompt": "one", "id": unique("one")})],
    );
    let out = pty::output_with_tty_stderr(submit_command(
        &nats,
        &prefix,
        &jobs,
        &["--wait", "--timeout", "1"],
    ));
    assert_eq!(out.status.code(), Some(75), "{out:?}");
    let screen = String::from_utf8_lossy(&out.stderr);
    assert!(
        screen.contains("0/1") && screen.contains("1 pending"),
        "no bar: {screen:?}"
    );
}

#[test]
fn no_publish_needs_every_jobs_id_and_wait() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write_jobs(
        dir.path(),
        &[
            json!({"tenant": "t", "prompt": "one", "id": "a"}),
            json!({"tenant": "t", "prompt": "two"}),
        ],
    );
    // Nothing listens there: the file is refused before any connection.
    let out = submit_command(
        "nats://127.0.0.1:9",
        "p",
        &jobs,
        &["--wait", "--no-publish"],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2: no \"id\""), "{err}");
    let out = submit_command("nats://127.0.0.1:9", "p", &jobs, &["--no-publish"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64), "--wait is required: {out:?}");
}
