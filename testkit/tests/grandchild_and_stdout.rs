//! `spawn_grandchild` (same process group, left running) and
//! `close_stdout` (stdout EOF while the process lives on).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::{
    ProcState, Script, group_members, process_alive, process_group, process_state,
    wait_until_exited,
};
use common::{DEADLINE, Running, control_request};
use rustix::process::{Pid, Signal, kill_process};
use serde_json::json;

/// Kills `pid` when dropped, so a failing assertion leaves nothing behind.
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if let Some(pid) = Pid::from_raw(self.0 as i32) {
            let _ = kill_process(pid, Signal::KILL);
        }
    }
}

#[test]
fn grandchild_runs_in_the_same_process_group_and_outlives_its_parent() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let script = Script::new()
        .spawn_grandchild(&pid_file)
        .emit(json!({"type": "spawned"}))
        .exit(0);
    // Its own process group, as a session runtime would spawn it, so the
    // group scan below only sees the fake CLI's family.
    let mut run = Running::start_with(&script, &[], |cmd| {
        std::os::unix::process::CommandExt::process_group(cmd, 0);
    });
    let parent = run.pid();
    assert_eq!(run.json()["type"], "spawned");
    let grandchild: u32 = std::fs::read_to_string(&pid_file).unwrap().parse().unwrap();
    let _guard = KillOnDrop(grandchild);
    assert_ne!(grandchild, parent);
    assert_eq!(process_state(grandchild), ProcState::Running);
    assert_eq!(process_group(grandchild), Some(parent));
    assert!(group_members(parent).contains(&grandchild));
    assert!(run.wait().success());
    // The parent is gone (reaped by us); the grandchild is still there.
    assert!(!process_alive(parent));
    assert_eq!(process_state(grandchild), ProcState::Running);
    assert_eq!(group_members(parent), vec![grandchild]);

    kill_process(Pid::from_raw(grandchild as i32).unwrap(), Signal::KILL).unwrap();
    // An orphan is reaped by init, which some containers never do: wait
    // for "exited", not "gone".
    assert!(wait_until_exited(grandchild, DEADLINE));
}

#[test]
fn close_stdout_gives_eof_while_the_process_keeps_running() {
    let script = Script::new()
        .emit(json!({"type": "last"}))
        .close_stdout()
        .emit(json!({"type": "lost"}))
        .expect_control("ping", json!({}))
        .stderr("still here")
        .exit(3);
    let mut run = Running::start(&script);
    assert_eq!(run.json()["type"], "last");
    run.expect_stdout_eof();
    assert_eq!(process_state(run.pid()), ProcState::Running);
    // It still reads stdin and runs its steps after stdout is gone.
    run.send(control_request("p", "ping"));
    assert_eq!(run.wait().code(), Some(3));
    assert!(run.stderr_after_exit().contains("still here"));
}
