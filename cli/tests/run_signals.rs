//! `claude-agent run` honours SIGINT and SIGTERM at every moment: during a
//! turn the first one starts the ordered shutdown (exit 130 or 143); during
//! the shutdown each further one cuts the current wait short (SIGTERM to the
//! CLI now, then SIGKILL), and the report lists every step with its reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The library's test helpers (the fake CLI behind a builder), shared.
#[path = "../../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

use claude_agent_testkit::Script;
use common::*;
use serde_json::Value;

fn start(fake: &Fake, args: &[&str]) -> Child {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.args(["run", "--json", "--cli"])
        .arg(&fake.cli.program)
        .args(args)
        .arg("go")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    cmd.spawn().unwrap()
}

fn signal(child: &Child, sig: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, sig).unwrap();
}

/// Reads stderr lines until one contains `needle`, and returns it.
fn stderr_until(stderr: &mut BufReader<ChildStderr>, needle: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = stderr.read_line(&mut line).unwrap();
        assert!(n > 0, "stderr ended before {needle:?}");
        if line.contains(needle) {
            return line;
        }
    }
}

/// Reads stdout lines until one contains `needle`.
fn stdout_until(stdout: &mut BufReader<std::process::ChildStdout>, needle: &str) {
    let mut line = String::new();
    loop {
        line.clear();
        let n = stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "stdout ended before {needle:?}");
        if line.contains(needle) {
            return;
        }
    }
}

#[test]
fn sigint_during_a_turn_shuts_down_in_order_and_exits_130() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("working on it")),
    );
    let mut child = start(&fake, &[]);
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout_until(&mut stdout, "working on it");
    signal(&child, rustix::process::Signal::INT);
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(130), "128 + SIGINT");
    let last: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "shutdown");
    assert_eq!(last["escalation"], "none", "{last}");
}

#[test]
fn two_more_signals_during_the_shutdown_send_sigterm_then_sigkill_at_once() {
    // The turn ends, then the CLI ignores EOF and SIGTERM. Its graces are
    // far longer than this test may take: only the signals can end it.
    // (TERM is ignored from the start: a hurry must never find it not yet
    // ignored.)
    let fake = fake(
        Script::new()
            .ignore_signal("TERM")
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "done"))
            .hang(),
    );
    let started = Instant::now();
    let mut child = start(&fake, &["--grace", "600", "--term-grace", "600"]);
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    stdout_until(&mut stdout, "result");
    // Each SIGINT gets one stderr line. The first may still land in the
    // turn (it then starts the shutdown) or already in the shutdown (it
    // then cuts it short): send them one at a time until two have cut it.
    let mut cuts = 0;
    while cuts < 2 {
        signal(&child, rustix::process::Signal::INT);
        if stderr_until(&mut stderr, "SIGINT:").contains("cutting the shutdown short") {
            cuts += 1;
        }
    }
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "the graces were waited out"
    );
    assert_eq!(status.code(), Some(130), "128 + SIGINT");
    let last: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "shutdown");
    let steps: Vec<(&str, &str)> = last["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["to"].as_str().unwrap(), s["why"].as_str().unwrap()))
        .collect();
    assert_eq!(steps, [("term", "hurried"), ("kill", "hurried")], "{last}");
    assert_eq!(last["escalation"], "kill", "{last}");
    assert_eq!(last["exit"]["signal"], 9, "{last}");
    if let Some(pid) = fake.cli.pid() {
        assert!(claude_agent_testkit::wait_until_gone(pid, SOON));
    }
}
