//! `claude-agent run` and `claude-agent host` are SIGKILLed while their
//! sessions are mid-turn and each CLI has started a tool process (a
//! grandchild in its process group): one second later no process of any
//! session's group is alive, and neither is the keeper that killed them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The library's test helpers (the fake CLI behind a builder), shared.
#[path = "../../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use claude_agent_testkit::{
    ProcState, Script, child_pids, group_members, process_state, wait_until_exited,
};
use common::*;
use serde_json::json;

/// A CLI that, on the first prompt, starts a grandchild that hangs, says
/// something, and then never ends the turn.
/// (The pid file's folder must outlive the fake.)
fn mid_turn_with_a_grandchild() -> (Fake, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let f = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .spawn_grandchild(&pid_file)
            .emit(assistant("working"))
            .hang(),
    );
    (f, dir)
}

fn running(pid: u32) -> bool {
    process_state(pid) == ProcState::Running
}

/// Waits until `host` has `n` children that lead a group with a second
/// running member (a CLI and its grandchild); returns every pid of those
/// groups and of the host's other children (the keeper).
fn sessions_mid_turn(host: u32, n: usize) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let children = child_pids(host);
        let busy: Vec<u32> = children
            .iter()
            .copied()
            .filter(|&c| group_members(c).into_iter().filter(|&p| running(p)).count() >= 2)
            .collect();
        if busy.len() == n {
            let mut all: Vec<u32> = busy.iter().flat_map(|&c| group_members(c)).collect();
            all.extend(children.iter().filter(|c| !busy.contains(c)));
            return all;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {n} sessions reached their tool process",
            busy.len()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn sigkill_and_check(mut host: Child, pids: Vec<u32>) {
    assert!(
        pids.len() >= 3,
        "expected CLIs, grandchildren and a keeper: {pids:?}"
    );
    host.kill().unwrap(); // SIGKILL: nothing of the host runs any more
    host.wait().unwrap();
    let survivors: Vec<u32> = pids
        .into_iter()
        .filter(|&p| !wait_until_exited(p, Duration::from_secs(1)))
        .collect();
    assert_eq!(
        survivors,
        Vec::<u32>::new(),
        "alive 1 s after the host's SIGKILL"
    );
}

#[test]
fn run_sigkilled_mid_turn_leaves_no_process_behind() {
    let (fake, _pids) = mid_turn_with_a_grandchild();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.args(["run", "--json", "--cli"])
        .arg(&fake.cli.program)
        .arg("go")
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    let mut host = cmd.spawn().unwrap();
    // The assistant line is printed once the grandchild runs.
    let out = BufReader::new(host.stdout.take().unwrap()).lines();
    let said = out.map(Result::unwrap).find(|l| l.contains("working"));
    assert!(said.is_some(), "run ended before the assistant spoke");
    let pids = sessions_mid_turn(host.id(), 1);
    sigkill_and_check(host, pids);
}

#[test]
fn host_sigkilled_with_five_sessions_mid_turn_leaves_no_process_behind() {
    let (fake, _pids) = mid_turn_with_a_grandchild();
    let jobs = fake.dir.path().join("jobs.ndjson");
    let text: String = (0..5)
        .map(|i| format!("{}\n", json!({"tenant": format!("t{i}"), "prompt": "go"})))
        .collect();
    std::fs::write(&jobs, text).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.args(["host", "--json", "--concurrency", "5", "--jobs"])
        .arg(&jobs)
        .arg("--cli")
        .arg(&fake.cli.program)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    let host = cmd.spawn().unwrap();
    let pids = sessions_mid_turn(host.id(), 5);
    sigkill_and_check(host, pids);
}
