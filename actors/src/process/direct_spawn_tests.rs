#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::ffi::OsString;
use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use super::*;
use crate::process::threads::try_reap;

fn sh(script: &str) -> ProcessSpec {
    let mut spec = ProcessSpec::new("/bin/sh");
    spec.args = vec!["-c".into(), script.into()];
    spec
}

/// Spawns directly, closes stdin, and returns stdout and the exit code.
fn run(spec: &ProcessSpec) -> (String, Option<i32>) {
    let direct = DirectSpawn::prepare(spec, true)
        .expect("takes the direct path")
        .unwrap();
    let child = direct.spawn().unwrap();
    drop(child.stdin);
    let mut out = String::new();
    std::fs::File::from(child.stdout)
        .read_to_string(&mut out)
        .unwrap();
    let exit = loop {
        if let Some(exit) = try_reap(child.pid).unwrap() {
            break exit;
        }
        std::thread::yield_now();
    };
    (out, exit.code)
}

fn inherited_key() -> OsString {
    std::env::vars_os()
        .map(|(k, _)| k)
        .find(|k| k == "PATH" || k == "HOME")
        .expect("the test process has PATH or HOME")
}

#[test]
fn the_child_sees_the_inherited_environment_with_the_specs_changes() {
    let kept = inherited_key();
    let kept_value = std::env::var_os(&kept).unwrap();
    let mut spec = sh(&format!(
        "printf '%s|%s|%s|%s' \"${}\" \"${{DIRECT_SET-unset}}\" \"${{DIRECT_TWICE-unset}}\" \"${{PWD_GONE-unset}}\"",
        kept.to_str().unwrap()
    ));
    spec.env = vec![
        ("DIRECT_SET".into(), "a b=c".into()),
        ("DIRECT_TWICE".into(), "first".into()),
        ("DIRECT_TWICE".into(), "second".into()),
    ];
    spec.env_remove = vec![kept.clone()];
    let (out, code) = run(&spec);
    assert_eq!(code, Some(0));
    assert_eq!(out, "|a b=c|second|unset", "removed, set, last of two");

    spec.env_remove.clear();
    let (out, _) = run(&spec);
    assert_eq!(
        out.split('|').next().unwrap(),
        kept_value.to_str().unwrap(),
        "an inherited variable reaches the child unchanged"
    );
}

#[test]
fn an_overridden_variable_appears_once_with_the_specs_value() {
    let key = inherited_key();
    let mut spec = sh(&format!("env | grep -c '^{}='", key.to_str().unwrap()));
    spec.env = vec![(key, "overridden".into())];
    let (out, _) = run(&spec);
    assert_eq!(out.trim(), "1");
}

#[test]
fn the_child_runs_in_the_working_directory_in_its_own_group_with_default_sigpipe() {
    let dir = tempfile::tempdir().unwrap();
    // SigIgn in /proc/self/status is a hex mask; SIGPIPE (13) is bit 12.
    let mut spec = sh(
        "pwd; echo $$ $(awk '{print $5}' /proc/$$/stat); awk '/^SigIgn/{print $2}' /proc/$$/status",
    );
    spec.cwd = Some(dir.path().to_path_buf());
    let (out, code) = run(&spec);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        PathBuf::from(lines[0]).canonicalize().unwrap(),
        dir.path().canonicalize().unwrap()
    );
    let ids: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(ids[0], ids[1], "the child leads its own process group");
    let ignored = u64::from_str_radix(lines[2], 16).unwrap();
    assert_eq!(
        ignored & (1 << 12),
        0,
        "SIGPIPE is not ignored in the child"
    );
}

#[test]
fn a_missing_program_is_not_found_and_leaves_no_pipe_open() {
    let spec = ProcessSpec::new("/nonexistent/direct-spawn-test");
    let direct = DirectSpawn::prepare(&spec, true).unwrap().unwrap();
    let fds_before = std::fs::read_dir("/proc/self/fd").unwrap().count();
    let err = direct.spawn().unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::NotFound);
    assert_eq!(
        std::fs::read_dir("/proc/self/fd").unwrap().count(),
        fds_before
    );
}

#[test]
fn spawns_that_need_std_are_not_taken() {
    // A bare name needs a PATH search.
    assert!(DirectSpawn::prepare(&ProcessSpec::new("sh"), true).is_none());
    // Without the keeper, the parent-death hook needs fork.
    assert!(DirectSpawn::prepare(&ProcessSpec::new("/bin/sh"), false).is_none());
    let mut no_hook = ProcessSpec::new("/bin/sh");
    no_hook.parent_death_signal = false;
    assert!(DirectSpawn::prepare(&no_hook, false).is_some());
}

#[test]
fn a_nul_byte_is_an_invalid_input_error() {
    let mut spec = sh("true");
    spec.args.push(OsString::from("a\0b"));
    let err = DirectSpawn::prepare(&spec, true).unwrap().unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
}

#[test]
fn a_descriptor_below_the_bound_is_replaced_by_a_close_on_exec_copy_above_it() {
    let (read, write) = pipe().unwrap();
    assert!(read.as_raw_fd() > 2 && write.as_raw_fd() > 2);
    // The stdio numbers are taken in a test process, so raise above this
    // descriptor's own number instead: the same call.
    let low: OwnedFd = std::fs::File::open("/dev/null").unwrap().into();
    let bound = low.as_raw_fd() + 10;
    let raised = raise_to(low, bound).unwrap();
    assert!(raised.as_raw_fd() >= bound);
    // SAFETY (test): F_GETFD on an open descriptor.
    let flags = unsafe { libc::fcntl(raised.as_raw_fd(), libc::F_GETFD) };
    assert_ne!(flags & libc::FD_CLOEXEC, 0);
    let unchanged: OwnedFd = std::fs::File::open("/dev/null").unwrap().into();
    let number = unchanged.as_raw_fd();
    assert_eq!(raise_to(unchanged, 3).unwrap().as_raw_fd(), number);
}
