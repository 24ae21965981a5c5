//! Process checks for "nothing left running" assertions. On Linux these
//! read `/proc`; elsewhere they fall back to `kill(pid, 0)`, which cannot
//! tell a zombie from a running process.

use std::time::{Duration, Instant};

/// What the kernel says about a pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcState {
    /// Exists and has not exited (running, sleeping, stopped, ...).
    Running,
    /// Exited but not yet reaped by its parent.
    Zombie,
    /// No such process.
    Gone,
}

/// The state of `pid`.
///
/// ```
/// use claude_agent_testkit::{ProcState, process_state};
/// assert_eq!(process_state(std::process::id()), ProcState::Running);
/// ```
pub fn process_state(pid: u32) -> ProcState {
    if cfg!(target_os = "linux") {
        match stat_fields(pid) {
            None => ProcState::Gone,
            Some((state, _)) if state == 'Z' || state == 'X' => ProcState::Zombie,
            Some(_) => ProcState::Running,
        }
    } else {
        signal_probe(pid)
    }
}

fn signal_probe(pid: u32) -> ProcState {
    let Some(pid) = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return ProcState::Gone;
    };
    match rustix::process::test_kill_process(pid) {
        Err(rustix::io::Errno::SRCH) => ProcState::Gone,
        _ => ProcState::Running,
    }
}

/// True while `pid` exists, including as an unreaped zombie.
pub fn process_alive(pid: u32) -> bool {
    process_state(pid) != ProcState::Gone
}

/// Polls until `pid` is [`ProcState::Gone`] (exited and reaped) or
/// `deadline` has elapsed; returns whether it is gone.
pub fn wait_until_gone(pid: u32, deadline: Duration) -> bool {
    wait_for_state(pid, deadline, |s| s == ProcState::Gone)
}

/// Polls until `pid` has exited (zombie or gone) or `deadline` elapsed.
/// Use it for orphans, whose reaping by the init process is not yours to
/// wait for (some container init processes never reap).
pub fn wait_until_exited(pid: u32, deadline: Duration) -> bool {
    wait_for_state(pid, deadline, |s| s != ProcState::Running)
}

fn wait_for_state(pid: u32, deadline: Duration, done: impl Fn(ProcState) -> bool) -> bool {
    let end = Instant::now() + deadline;
    loop {
        if done(process_state(pid)) {
            return true;
        }
        if Instant::now() >= end {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Pids of every process (zombies included) whose process group is
/// `pgid`, from `/proc/*/stat`. Empty where `/proc` is unavailable.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&pid| stat_fields(pid).is_some_and(|(_, pgrp)| pgrp == pgid))
        .collect();
    pids.sort_unstable();
    pids
}

/// Pids of the live children of `ppid` (zombies excluded), from
/// `/proc/*/stat`. Empty where `/proc` is unavailable.
pub fn child_pids(ppid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut pids: Vec<u32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&pid| parent_of(pid) == Some(ppid) && process_state(pid) == ProcState::Running)
        .collect();
    pids.sort_unstable();
    pids
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_ascii_whitespace().nth(1)?.parse().ok()
}

/// The process group of `pid`, from `/proc/<pid>/stat`.
pub fn process_group(pid: u32) -> Option<u32> {
    stat_fields(pid).map(|(_, pgrp)| pgrp)
}

/// `(state, pgrp)` from `/proc/<pid>/stat`. The command name may contain
/// spaces and parentheses, so parse from the last `)`.
fn stat_fields(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, pgrp))
}
