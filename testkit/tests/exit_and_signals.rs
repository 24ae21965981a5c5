//! Ending badly on purpose: exit codes, deaths by signal, ignored signals,
//! hanging, and a host that hangs up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::Script;
use common::{Running, control_request, user};
use rustix::process::Signal;
use serde_json::json;
use std::os::unix::process::ExitStatusExt;

#[test]
fn exit_uses_the_given_code_after_flushing() {
    let mut run = Running::start(&Script::new().emit(json!({"type": "bye"})).exit(17));
    assert_eq!(run.json()["type"], "bye");
    assert_eq!(run.wait().code(), Some(17));
}

#[test]
fn crash_dies_by_the_named_signal() {
    for (name, sig) in [
        ("SEGV", libc::SIGSEGV),
        ("ABRT", libc::SIGABRT),
        ("KILL", libc::SIGKILL),
        ("TERM", libc::SIGTERM),
    ] {
        let script = Script::new().emit(json!({"type": "before"})).crash(name);
        let mut run = Running::start(&script);
        assert_eq!(run.json()["type"], "before", "{name}");
        let status = run.wait();
        assert_eq!(status.signal(), Some(sig), "{name}: {status:?}");
    }
}

#[test]
fn crash_restores_default_disposition_of_an_ignored_signal() {
    let script = Script::new().ignore_signal("TERM").crash("TERM");
    let mut run = Running::start(&script);
    assert_eq!(run.wait().signal(), Some(libc::SIGTERM));
}

#[test]
fn ignored_term_leaves_it_alive_until_kill() {
    let script = Script::new()
        .ignore_signal("TERM")
        .emit(json!({"type": "armed"}))
        .expect_control("ping", json!({"alive": true}));
    let mut run = Running::start(&script);
    assert_eq!(run.json()["type"], "armed");
    run.signal(Signal::TERM);
    // The signal is pending the moment kill() returns, so an answer to a
    // request sent afterwards proves it was ignored.
    run.send(control_request("p1", "ping"));
    assert_eq!(run.json()["response"]["response"]["alive"], true);
    run.signal(Signal::KILL);
    assert_eq!(run.wait().signal(), Some(libc::SIGKILL));
}

#[test]
fn hang_ignores_stdin_and_eof() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("hanging");
    let script = Script::new().write_file(&marker, "x").hang();
    let mut run = Running::start(&script);
    assert!(common::wait_for_file(&marker));
    run.send(user("hello?"));
    run.close_stdin();
    // Nothing is read once hanging: the record stays empty, and EOF does
    // not end the process.
    assert!(run.still_running_after(std::time::Duration::from_millis(200)));
    assert!(run.fake.recorded_lines().is_empty());
    run.signal(Signal::TERM);
    assert_eq!(run.wait().signal(), Some(libc::SIGTERM));
}

#[test]
fn host_hanging_up_stdout_exits_zero_quietly() {
    let script = Script::new().flood(claude_agent_testkit::Stream::Stdout, "x", 100_000_000);
    let dir = tempfile::tempdir().unwrap();
    let fake = script.install(dir.path()).unwrap();
    let mut child = fake
        .command()
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = common::wait_bounded(&mut child);
    assert_eq!(status.code(), Some(0));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(err, "");
}
