//! The host process dies (SIGKILL, no cleanup at all): the CLI dies too,
//! through the parent-death signal set at spawn.
//!
//! The test re-executes itself (this one test of this binary) as the
//! "host": with `ACTORS_TEST_HOST` set, the test function runs `host_role`
//! instead, which starts a session against the fake CLI, prints the CLI's
//! pid and waits forever; the outer run SIGKILLs it. The role is not a test
//! of its own, so nothing passes without doing its work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use claude_agent_testkit::Script;
use common::*;

const HOST_ENV: &str = "ACTORS_TEST_HOST";

/// The re-executed host: never returns (the outer run kills it).
fn host_role() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let fx = install(Script::new().expect_initialize().loop_turns("x"));
        let (session, _stream) = fx.start().await;
        println!("CLI_PID {}", session.pid().unwrap());
        futures::future::pending::<()>().await;
    });
}

#[test]
fn cli_dies_when_the_host_is_killed() {
    if std::env::var_os(HOST_ENV).is_some() {
        return host_role();
    }
    let mut host = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "cli_dies_when_the_host_is_killed",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HOST_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(host.stdout.take().unwrap()).lines();
    let pid: u32 = loop {
        let line = lines
            .next()
            .expect("host ended before printing the pid")
            .unwrap();
        // libtest prints "test cli_dies_when_... ... " on the same line first.
        if let Some(at) = line.find("CLI_PID ") {
            break line[at + 8..].trim().parse().unwrap();
        }
    };
    assert_running(pid);
    host.kill().unwrap(); // SIGKILL: no Drop, no shutdown runs in the host
    host.wait().unwrap();
    assert!(
        claude_agent_testkit::wait_until_gone(pid, Duration::from_secs(10)),
        "CLI {pid} outlived its host"
    );
}
