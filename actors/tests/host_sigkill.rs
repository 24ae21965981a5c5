//! The host process is SIGKILLed mid-turn (no Drop, no shutdown, nothing of
//! ours runs): within a second, no process of any session's process group is
//! alive, the grandchildren a tool left behind included. The keeper does it.
//!
//! The test re-executes itself (this one test of this binary) as the
//! "host": with `ACTORS_TEST_HOST` set, the test function runs `host_role`
//! instead, which starts three sessions against a fake CLI that leaves a
//! grandchild in its group, prints every pid, and waits forever; the outer
//! run SIGKILLs it. The role is not a test of its own, so nothing passes
//! without doing its work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use claude_agent_testkit::{
    ProcState, Script, group_members, process_alive, process_state, wait_until_exited,
};
use common::*;
use futures::StreamExt;
use serde_json::json;

const HOST_ENV: &str = "ACTORS_TEST_HOST";
const SESSIONS: usize = 3;

/// The re-executed host: never returns (the outer run kills it).
fn host_role() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut keep = Vec::new();
        for _ in 0..SESSIONS {
            let pid_file = tempfile::NamedTempFile::new().unwrap().into_temp_path();
            let fx = install(
                Script::new()
                    .expect_initialize()
                    .spawn_grandchild(&pid_file)
                    .emit(json!({"type": "system", "subtype": "grandchild_started"}))
                    .hang(),
            );
            let (session, mut stream) = fx.start().await;
            while let Some(frame) = stream.next().await {
                if frame.unwrap().kind == "system" {
                    break;
                }
            }
            let grandchild = std::fs::read_to_string(&pid_file).unwrap();
            println!(
                "PIDS {} {} {}",
                session.pid().unwrap(),
                grandchild.trim(),
                claude_agent_actors::process::keeper_pid().unwrap()
            );
            keep.push((fx, session, stream, pid_file));
        }
        futures::future::pending::<()>().await;
    });
}

#[test]
fn no_process_of_any_session_outlives_a_sigkilled_host() {
    if std::env::var_os(HOST_ENV).is_some() {
        return host_role();
    }
    let mut host = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "no_process_of_any_session_outlives_a_sigkilled_host",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HOST_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    let mut groups = Vec::new();
    let mut keeper = 0;
    while groups.len() < SESSIONS {
        let line = lines
            .next()
            .expect("host ended before printing the pids")
            .unwrap();
        // libtest prints "test no_process_... ... " on the same line first.
        if let Some(at) = line.find("PIDS ") {
            let pids: Vec<u32> = line[at + 5..]
                .split_whitespace()
                .map(|p| p.parse().unwrap())
                .collect();
            let (cli, grandchild) = (pids[0], pids[1]);
            keeper = pids[2];
            assert!(
                group_members(cli).contains(&grandchild),
                "the grandchild {grandchild} is not in the CLI's group {cli}"
            );
            groups.push((cli, grandchild));
        }
    }
    assert!(process_alive(keeper), "no keeper runs");
    host.kill().unwrap(); // SIGKILL: nothing of the host runs any more
    host.wait().unwrap();
    // Orphans are reaped by the init process, which is not ours to wait
    // for: "gone" here means exited (zombie or reaped).
    for (cli, grandchild) in groups {
        assert!(
            wait_until_exited(grandchild, Duration::from_secs(1)),
            "grandchild {grandchild} outlived its SIGKILLed host by a second"
        );
        assert!(
            wait_until_exited(cli, Duration::from_secs(1)),
            "CLI {cli} outlived its SIGKILLed host by a second"
        );
        let running: Vec<u32> = group_members(cli)
            .into_iter()
            .filter(|&p| process_state(p) == ProcState::Running)
            .collect();
        assert_eq!(running, Vec::<u32>::new(), "group {cli} still runs");
    }
    assert!(
        wait_until_exited(keeper, Duration::from_secs(1)),
        "the keeper {keeper} stayed after its work was done"
    );
}

/// A session that ends in order is forgotten by the keeper: its group number
/// is not killed later (when the kernel may have given it to someone else).
#[tokio::test]
async fn a_session_shut_down_in_order_is_forgotten_by_the_keeper() {
    let fx = install(Script::new().expect_initialize().loop_turns("x"));
    let (session, _stream) = fx.start().await;
    let keeper = claude_agent_actors::process::keeper_pid().expect("no keeper");
    let report = session.shutdown().await;
    assert!(report.exit.is_some());
    // The keeper lives on for the next session and was told to forget.
    assert!(process_alive(keeper));
    assert!(claude_agent_actors::process::registered_groups().is_empty());
}
