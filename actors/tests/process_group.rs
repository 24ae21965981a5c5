//! Processes: own group, signals reach grandchildren, leftovers are killed,
//! the parent-death signal fires, dropping reaps, the registry tracks live
//! processes, `wait` is cancel-safe. Real processes throughout; Linux `/proc`
//! is used to observe them.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use claude_agent_actors::process::{
    ChildProcess, ExitInfo, ProcessSpec, Signal, live_processes, spawn,
};
use futures::FutureExt;
use tokio::io::{AsyncBufReadExt, BufReader as AsyncBufReader};

const DEADLINE: Duration = Duration::from_secs(10);

fn sh(script: &str) -> ProcessSpec {
    let mut spec = ProcessSpec::new("sh");
    spec.args = vec!["-c".into(), script.into()];
    spec
}

/// The state letter from `/proc/<pid>/stat`, `None` once the pid is gone.
fn proc_state(pid: u32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.chars().next()
}

/// The process group from `/proc/<pid>/stat`.
fn proc_pgrp(pid: u32) -> u32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let fields: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
    fields[2].parse().unwrap()
}

/// Dead: gone, or a zombie waiting for an init that may never reap it.
fn is_dead(pid: u32) -> bool {
    matches!(proc_state(pid), None | Some('Z') | Some('X'))
}

fn is_alive(pid: u32) -> bool {
    !is_dead(pid)
}

/// Polls `cond` until it holds, failing after [`DEADLINE`].
async fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Spawns a shell that starts `sleep 300` in the background and reports its
/// pid on stdout; returns the shell and the grandchild's pid.
async fn with_grandchild(tail: &str) -> (ChildProcess, u32) {
    let mut child = spawn(sh(&format!("sleep 300 & echo $!; {tail}")))
        .await
        .unwrap();
    let mut out = AsyncBufReader::new(child.take_stdout().unwrap());
    let mut line = String::new();
    tokio::time::timeout(DEADLINE, out.read_line(&mut line))
        .await
        .unwrap()
        .unwrap();
    (child, line.trim().parse().unwrap())
}

async fn wait_bounded(child: &mut ChildProcess) -> ExitInfo {
    tokio::time::timeout(DEADLINE, child.wait())
        .await
        .expect("child did not exit")
        .unwrap()
}

#[tokio::test]
async fn child_leads_its_own_process_group() {
    let mut child = spawn(ProcessSpec::new("sleep").tap_args(["300"]))
        .await
        .unwrap();
    assert_eq!(child.pgid(), child.pid());
    assert_eq!(proc_pgrp(child.pid()), child.pid());
    assert_ne!(proc_pgrp(child.pid()), proc_pgrp(std::process::id()));
    child.signal_group(Signal::Kill).unwrap();
    let exit = wait_bounded(&mut child).await;
    assert_eq!(
        exit,
        ExitInfo {
            code: None,
            signal: Some(9)
        }
    );
    assert_eq!(exit.to_string(), "killed by signal 9 (SIGKILL)");
}

#[tokio::test]
async fn signal_group_reaches_the_grandchild() {
    let (mut child, grandchild) = with_grandchild("wait").await;
    assert!(is_alive(grandchild));
    assert_eq!(proc_pgrp(grandchild), child.pgid());
    child.signal_group(Signal::Term).unwrap();
    let exit = wait_bounded(&mut child).await;
    assert!(!exit.success());
    eventually("grandchild to die", || is_dead(grandchild)).await;
}

#[tokio::test]
async fn signal_reaches_only_the_leader() {
    let (mut child, grandchild) = with_grandchild("wait").await;
    child.signal(Signal::Term).unwrap();
    assert_eq!(wait_bounded(&mut child).await.signal, Some(15));
    assert!(
        is_alive(grandchild),
        "signal() must not reach the rest of the group"
    );
    assert_eq!(child.kill_group_remnants().unwrap(), 1);
    eventually("grandchild to die", || is_dead(grandchild)).await;
}

#[tokio::test]
async fn kill_group_remnants_after_the_leader_exited() {
    let (mut child, grandchild) = with_grandchild("exit 0").await;
    let exit = wait_bounded(&mut child).await;
    assert!(exit.success(), "{exit}");
    assert!(
        is_alive(grandchild),
        "the background job outlives the leader"
    );
    assert_eq!(child.kill_group_remnants().unwrap(), 1);
    eventually("grandchild to die", || is_dead(grandchild)).await;
}

#[tokio::test]
async fn exit_code_is_reported_and_wait_repeats_it() {
    let mut child = spawn(sh("exit 3")).await.unwrap();
    let exit = wait_bounded(&mut child).await;
    assert_eq!(
        exit,
        ExitInfo {
            code: Some(3),
            signal: None
        }
    );
    assert_eq!(exit.to_string(), "exit code 3");
    assert_eq!(child.try_wait().unwrap(), Some(exit));
    assert_eq!(wait_bounded(&mut child).await, exit);
    // Reaped: signalling the leader is a harmless no-op.
    child.signal(Signal::Kill).unwrap();
}

#[tokio::test]
async fn dropping_an_unreaped_child_kills_the_group_and_reaps() {
    let (child, grandchild) = with_grandchild("wait").await;
    let pid = child.pid();
    assert_eq!(proc_state(pid).map(|s| s != 'Z'), Some(true));
    drop(child);
    // Our own child: reaped means /proc/<pid> is gone, not a zombie.
    eventually("leader to be reaped", || proc_state(pid).is_none()).await;
    eventually("grandchild to die", || is_dead(grandchild)).await;
    eventually("registry to forget it", || {
        live_processes().iter().all(|p| p.pid != pid)
    })
    .await;
}

#[tokio::test]
async fn registry_lists_live_processes_until_reaped() {
    let mut spec = ProcessSpec::new("sleep").tap_args(["300"]);
    spec.session_label = Some("registry-test".into());
    let before = std::time::SystemTime::now();
    let mut child = spawn(spec).await.unwrap();
    let after = std::time::SystemTime::now();
    let pid = child.pid();
    let info = live_processes()
        .into_iter()
        .find(|p| p.pid == pid)
        .expect("listed");
    assert_eq!(info.pgid, pid);
    assert_eq!(info.session_label.as_deref(), Some("registry-test"));
    // Stamped at the spawn, not some other time.
    assert!(
        before <= info.started_at && info.started_at <= after,
        "started_at {:?} outside the spawn {before:?}..{after:?}",
        info.started_at
    );
    child.signal_group(Signal::Kill).unwrap();
    // Dead but not yet reaped: still listed.
    eventually("leader to become a zombie", || proc_state(pid) == Some('Z')).await;
    assert!(live_processes().iter().any(|p| p.pid == pid));
    wait_bounded(&mut child).await;
    assert!(live_processes().iter().all(|p| p.pid != pid));
}

#[tokio::test]
async fn wait_is_cancel_safe() {
    let mut child = spawn(ProcessSpec::new("sleep").tap_args(["300"]))
        .await
        .unwrap();
    tokio::select! {
        exit = child.wait() => panic!("sleep 300 exited early: {exit:?}"),
        () = tokio::time::sleep(Duration::from_millis(20)) => {}
    }
    assert!(child.wait().now_or_never().is_none(), "still running");
    child.signal_group(Signal::Kill).unwrap();
    assert_eq!(wait_bounded(&mut child).await.signal, Some(9));
}

#[tokio::test]
async fn spawning_a_missing_program_fails_with_not_found() {
    let err = spawn(ProcessSpec::new("/nonexistent/claude-osedge"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}

/// Processes whose parent is this test process and whose name is `comm`.
fn our_children_named(comm: &str) -> Vec<u32> {
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                return false;
            };
            let Some((head, rest)) = stat.rsplit_once(") ") else {
                return false;
            };
            head.ends_with(&format!("({comm}")) && rest.split(' ').nth(1) == Some(me.as_str())
        })
        .collect()
}

#[tokio::test]
async fn dropping_spawn_mid_flight_leaves_no_process() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("osedge-cancel");
    // Blocks on its (never written) stdin pipe, with no children of its own.
    std::fs::write(&script, "#!/bin/sh\nread line\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    // One poll sends the request to the spawner thread; then we give up.
    drop(spawn(ProcessSpec::new(&script)).now_or_never());
    // The spawner is FIFO: once this spawn returns, the first was handled.
    let mut marker = spawn(ProcessSpec::new("true")).await.unwrap();
    wait_bounded(&mut marker).await;
    eventually("the abandoned child to be killed and reaped", || {
        our_children_named("osedge-cancel").is_empty()
    })
    .await;
}

const HOST_ENV: &str = "CLAUDE_AGENT_OSEDGE_PDEATH_HOST";

/// Run twice: as the outer test, it starts this test binary again as a
/// "host" that spawns `sleep 300` and reports its pid, SIGKILLs the host,
/// and checks the sleep dies with it. As the host (env var set), it spawns
/// and then blocks until killed.
#[tokio::test]
async fn parent_death_signal_kills_the_cli_when_the_host_dies() {
    if std::env::var_os(HOST_ENV).is_some() {
        let child = spawn(ProcessSpec::new("sleep").tap_args(["300"]))
            .await
            .unwrap();
        println!("CLI_PID {}", child.pid());
        // Bounded, in case the outer test died without killing us.
        std::thread::sleep(DEADLINE * 3);
        drop(child);
        return;
    }
    let mut host = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "parent_death_signal_kills_the_cli_when_the_host_dies",
            "--nocapture",
        ])
        .env(HOST_ENV, "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(host.stdout.take().unwrap());
    let reader = std::thread::spawn(move || {
        stdout
            .lines()
            .map_while(Result::ok)
            .find_map(|l| l.strip_prefix("CLI_PID ").map(str::to_owned))
    });
    let cli: u32 = tokio::task::spawn_blocking(move || reader.join().unwrap())
        .await
        .unwrap()
        .expect("host printed the CLI pid")
        .parse()
        .unwrap();
    let _cleanup = KillOnDrop(cli);
    assert!(is_alive(cli));
    host.kill().unwrap();
    host.wait().unwrap();
    eventually("the CLI to die with its host", || is_dead(cli)).await;
}

/// Kills a pid if the test fails before it died, so nothing stays running.
struct KillOnDrop(u32);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if is_alive(self.0) {
            let _ = std::process::Command::new("kill")
                .args(["-9", &self.0.to_string()])
                .status();
        }
    }
}

/// Small builder helper for the tests.
trait TapArgs {
    fn tap_args<const N: usize>(self, args: [&str; N]) -> Self;
}

impl TapArgs for ProcessSpec {
    fn tap_args<const N: usize>(mut self, args: [&str; N]) -> Self {
        self.args = args.iter().map(Into::into).collect();
        self
    }
}
