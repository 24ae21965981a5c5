//! The subprocess channel: typed errors before any spawn, program lookup,
//! a real round trip through `cat`, signals, and the stderr drain.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use claude_agent_actors::channel::{
    ChannelError, Connection, SpawnerError, SubprocessTransport, Transport,
};
use claude_agent_actors::framing::{Line, LineReader};
use claude_agent_actors::process::{ExitInfo, ProcessSpec};
use claude_agent_actors::stderr::{StderrRing, drain_into};
use tokio::io::AsyncWriteExt;

const DEADLINE: Duration = Duration::from_secs(10);

async fn connect(spec: ProcessSpec) -> Result<Connection, ChannelError> {
    Box::new(SubprocessTransport::new(spec)).connect().await
}

fn sh(script: &str) -> ProcessSpec {
    let mut spec = ProcessSpec::new("sh");
    spec.args = vec!["-c".into(), script.into()];
    spec
}

fn write_script(dir: &Path, name: &str, mode: u32) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, "#!/bin/sh\necho from-script\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

async fn wait(conn: &mut Connection) -> ExitInfo {
    tokio::time::timeout(DEADLINE, conn.control.wait())
        .await
        .expect("exit in time")
        .unwrap()
}

async fn first_line(conn: &mut Connection) -> String {
    let mut reader = LineReader::new(&mut conn.reader, 1024);
    match tokio::time::timeout(DEADLINE, reader.next_line())
        .await
        .unwrap()
        .unwrap()
    {
        Some(Line::Complete(b)) => String::from_utf8(b.to_vec()).unwrap(),
        other => panic!("expected a line, got {other:?}"),
    }
}

#[tokio::test]
async fn missing_program_is_not_found() {
    for program in ["/nonexistent/dir/claude", "claude-osedge-no-such-command"] {
        match connect(ProcessSpec::new(program)).await {
            Err(ChannelError::NotFound { path }) => assert_eq!(path, Path::new(program)),
            other => panic!("expected NotFound for {program}, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_file_without_execute_permission_is_not_executable_not_missing() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_script(dir.path(), "claude", 0o644);
    let err = connect(ProcessSpec::new(&path)).await.unwrap_err();
    assert!(matches!(err, ChannelError::NotExecutable { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!(
            "{} exists but cannot be executed: no execute permission",
            path.display()
        )
    );
}

#[tokio::test]
async fn missing_cwd_fails_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let mut spec = sh(&format!("touch '{}'", marker.display()));
    let missing = dir.path().join("no-such-dir");
    spec.cwd = Some(missing.clone());
    match connect(spec).await {
        Err(ChannelError::CwdMissing { path }) => assert_eq!(path, missing),
        other => panic!("expected CwdMissing, got {other:?}"),
    }
    assert!(!marker.exists(), "the program must not have run");
}

#[tokio::test]
async fn program_is_found_relative_to_cwd_and_in_the_child_path() {
    let dir = tempfile::tempdir().unwrap();
    write_script(dir.path(), "fake-cli-osedge", 0o755);

    let mut relative = ProcessSpec::new("./fake-cli-osedge");
    relative.cwd = Some(dir.path().to_owned());
    let mut conn = connect(relative).await.unwrap();
    assert_eq!(first_line(&mut conn).await, "from-script");
    assert!(wait(&mut conn).await.success());

    let mut on_path = ProcessSpec::new("fake-cli-osedge");
    on_path.env.push(("PATH".into(), dir.path().into()));
    let mut conn = connect(on_path).await.unwrap();
    assert_eq!(first_line(&mut conn).await, "from-script");
    assert!(wait(&mut conn).await.success());
}

/// A program someone holds open for writing cannot be run (ETXTBSY). The
/// spawn rides out the short window in which another thread's child holds
/// a just-written script open, then gives up with the OS error: bounded,
/// and typed.
#[tokio::test]
async fn a_program_that_stays_busy_fails_with_the_os_error_after_its_retries() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_script(dir.path(), "fake-cli-busy", 0o755);
    let _writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let mut spec = ProcessSpec::new("./fake-cli-busy");
    spec.cwd = Some(dir.path().to_owned());
    let Err(err) = tokio::time::timeout(DEADLINE, connect(spec))
        .await
        .expect("gives up in time")
    else {
        panic!("a busy program was run");
    };
    assert!(
        matches!(&err, ChannelError::Spawn { source, .. }
            if source.kind() == std::io::ErrorKind::ExecutableFileBusy),
        "{err:?}"
    );
}

#[tokio::test]
async fn round_trip_through_cat() {
    let transport = SubprocessTransport::new(ProcessSpec::new("cat"));
    assert_eq!(transport.kind(), "subprocess");
    let mut conn = Box::new(transport).connect().await.unwrap();
    let pid = conn.control.pid().unwrap();
    assert_eq!(conn.control.pgid(), Some(pid));
    assert!(conn.control.supports_signals());
    assert_eq!(conn.control.try_wait().unwrap(), None);

    conn.writer
        .write_all(b"{\"type\":\"ping\"}\n")
        .await
        .unwrap();
    conn.writer.flush().await.unwrap();
    assert_eq!(first_line(&mut conn).await, "{\"type\":\"ping\"}");

    // EOF on stdin: cat exits on its own.
    conn.writer.shutdown().await.unwrap();
    let exit = wait(&mut conn).await;
    assert!(exit.success(), "{exit}");
    conn.control.cleanup().unwrap();
}

#[tokio::test]
async fn env_is_set_and_removed() {
    let mut spec = sh("echo \"${OSEDGE_SET:-unset}/${HOME:-unset}\"");
    spec.env.push(("OSEDGE_SET".into(), "yes".into()));
    spec.env_remove.push("HOME".into());
    let mut conn = connect(spec).await.unwrap();
    assert_eq!(first_line(&mut conn).await, "yes/unset");
    assert!(wait(&mut conn).await.success());
}

#[tokio::test]
async fn terminate_and_kill_signal_the_group() {
    let mut conn = connect(ProcessSpec::new("sleep").tap_arg("300"))
        .await
        .unwrap();
    conn.control.terminate().unwrap();
    assert_eq!(wait(&mut conn).await.signal, Some(15));

    let mut conn = connect(sh("trap '' TERM; echo ready; while :; do sleep 1; done"))
        .await
        .unwrap();
    assert_eq!(first_line(&mut conn).await, "ready");
    conn.control.terminate().unwrap(); // ignored by the shell...
    conn.control.kill().unwrap(); // ...but not this
    assert_eq!(wait(&mut conn).await.signal, Some(9));
    conn.control.cleanup().unwrap();
}

#[tokio::test]
async fn stderr_is_drained_into_the_ring() {
    let mut conn = connect(sh("for i in 1 2 3 4 5; do echo err$i >&2; done; exit 4"))
        .await
        .unwrap();
    let ring = StderrRing::new(3, 64);
    let stderr = conn.stderr.take().unwrap();
    tokio::time::timeout(DEADLINE, drain_into(stderr, ring.clone(), None))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(ring.tail(), ["err3", "err4", "err5"]);
    assert_eq!(ring.total_lines(), 5);
    assert_eq!(
        wait(&mut conn).await,
        ExitInfo {
            code: Some(4),
            signal: None
        }
    );
}

trait TapArg {
    fn tap_arg(self, arg: &str) -> Self;
}

impl TapArg for ProcessSpec {
    fn tap_arg(mut self, arg: &str) -> Self {
        self.args.push(arg.into());
        self
    }
}

#[tokio::test]
async fn a_spawner_s_command_is_checked_and_spawned_in_place_of_the_spec() {
    // The original program does not exist; the spawner's wrapper does, and
    // prints the argv it was given. It then waits for stdin's EOF, so that it
    // is still unreaped when the registry is read.
    let wrap = |spec: ProcessSpec| {
        let mut wrapped = sh(r#"echo "wrapped $*"; cat >/dev/null"#);
        wrapped.args.push("sh".into());
        wrapped.args.push(spec.program.into_os_string());
        wrapped.args.extend(spec.args);
        Ok(wrapped)
    };
    let mut spec = ProcessSpec::new("/nonexistent/claude");
    spec.args = vec!["--print".into()];
    spec.session_label = Some("wrapped-session".into());
    let mut conn = Box::new(SubprocessTransport::new(spec).with_spawner(wrap))
        .connect()
        .await
        .unwrap();
    assert_eq!(
        first_line(&mut conn).await,
        "wrapped /nonexistent/claude --print"
    );
    let pid = conn.control.pid().unwrap();
    let listed = claude_agent_actors::process::live_processes()
        .into_iter()
        .find(|p| p.pid == pid)
        .expect("the wrapper is listed until reaped");
    assert_eq!(
        listed.session_label.as_deref(),
        Some("wrapped-session"),
        "the label survives a spawner that built a fresh spec"
    );
    conn.writer.shutdown().await.unwrap();
    assert!(wait(&mut conn).await.success());

    // The wrapper's own program goes through the same typed checks.
    let missing = |_spec: ProcessSpec| Ok(ProcessSpec::new("/nonexistent/bwrap"));
    let err = Box::new(SubprocessTransport::new(sh("true")).with_spawner(missing))
        .connect()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ChannelError::NotFound { path } if path == Path::new("/nonexistent/bwrap")),
        "{err}"
    );

    let refuse = |_spec: ProcessSpec| Err(SpawnerError::new("no sandbox for this tenant"));
    let err = Box::new(SubprocessTransport::new(sh("true")).with_spawner(refuse))
        .connect()
        .await
        .unwrap_err();
    assert!(matches!(err, ChannelError::Spawner(_)), "{err}");
    assert_eq!(
        std::error::Error::source(&err).map(ToString::to_string),
        Some("no sandbox for this tenant".to_owned())
    );
}
