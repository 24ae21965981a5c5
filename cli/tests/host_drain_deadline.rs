//! `claude-agent host`'s drain deadline holds with a stalled session store:
//! two CLIs that ignore EOF and SIGTERM, each with mirrored entries a file
//! store cannot take (another writer holds the session's lock). One SIGTERM
//! must end the tool within the deadline plus a few seconds, not the
//! deadline plus the mirror's 10 s flush deadline, and the loss is counted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The library's test helpers (the fake CLI behind a builder), shared.
#[path = "../../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

const SESSION: &str = "5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
const PROJECT: &str = "-drain-deadline";
/// The drain deadline the tool is given.
const DEADLINE: Duration = Duration::from_secs(3);
/// What the tool may take beyond the deadline: the kill, the hurried
/// flush, the report. Well under the mirror's 10 s flush deadline, which
/// the exit used to wait for on top of the deadline.
const MARGIN: Duration = Duration::from_secs(4);

/// A CLI that ignores SIGTERM, mirrors two entries, takes the turn and
/// never ends it (nor reads again: EOF does not end it either). The mirror
/// frame comes before the prompt is read, so a recorded prompt means the
/// frame is in the pipe.
fn stubborn(config: &std::path::Path) -> Script {
    let path = format!("{}/projects/{PROJECT}/{SESSION}.jsonl", config.display());
    let entry = |n: u32| json!({"type": "user", "uuid": format!("u-{n}"), "sessionId": SESSION});
    Script::new()
        .ignore_signal("TERM")
        .expect_initialize()
        .emit(
            json!({"type": "transcript_mirror", "filePath": path, "entries": [entry(1), entry(2)]}),
        )
        .expect("user", None)
        .emit(assistant("working"))
        .hang()
}

/// Waits (bounded) until the fake CLIs together recorded `n` prompts.
fn wait_for_prompts(fake: &Fake, n: usize) {
    let start = Instant::now();
    loop {
        let prompts = fake
            .received()
            .iter()
            .filter(|l| l["type"] == "user")
            .count();
        if prompts >= n {
            return;
        }
        assert!(start.elapsed() < SOON, "only {prompts} of {n} prompts sent");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn one_sigterm_ends_the_host_within_its_drain_deadline_though_the_store_stalls() {
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    // Another writer holds the session's lock for the whole run: every
    // append waits for it.
    let lock = hold_session_lock(store_dir.path(), PROJECT, SESSION);
    let fake = fake(stubborn(config.path()));
    let jobs = fake.dir.path().join("jobs.ndjson");
    std::fs::write(
        &jobs,
        "{\"tenant\": \"a\", \"prompt\": \"one\"}\n{\"tenant\": \"b\", \"prompt\": \"two\"}\n",
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("host")
        .arg("--jobs")
        .arg(&jobs)
        .arg("--cli")
        .arg(&fake.cli.program)
        .arg("--store")
        .arg(format!("file://{}", store_dir.path().display()))
        // The ordered ladder alone would take 10 s: the deadline kills.
        .args(["--grace", "5", "--term-grace", "5", "--json"])
        .args(["--drain-deadline", &DEADLINE.as_secs().to_string()])
        .env("CLAUDE_CONFIG_DIR", config.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut pids = Vec::new();
    let mut line = String::new();
    while pids.len() < 2 {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "output ended early"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["kind"] == "started" {
            pids.push(v["pid"].as_u64().unwrap() as u32);
        }
    }
    wait_for_prompts(&fake, 2);

    let signalled = Instant::now();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    let took = signalled.elapsed();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    lock.release();
    eprintln!("exited {took:?} after SIGTERM (deadline {DEADLINE:?})");

    assert_eq!(status.code(), Some(143), "128 + SIGTERM: {err}");
    assert!(
        took < DEADLINE + MARGIN,
        "exited {took:?} after SIGTERM, deadline {DEADLINE:?}: {err}"
    );
    let summary: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    assert_eq!(summary["kind"], "summary", "{summary}");
    assert_eq!(summary["drained"], true, "{summary}");
    assert_eq!(summary["drain"]["killed_at_deadline"], 2, "{summary}");
    assert_eq!(summary["drain"]["unresolved"], 0, "{summary}");
    assert_eq!(summary["jobs"], 2, "{summary}");
    // No silent loss: both sessions' entries count as not persisted.
    assert_eq!(summary["mirror"]["persisted"], 0, "{summary}");
    assert_eq!(summary["mirror"]["unpersisted"], 4, "{summary}");
    for pid in pids {
        assert!(
            claude_agent_testkit::wait_until_gone(pid, SOON),
            "CLI {pid} left running"
        );
    }
}
