//! `claude-agent demo` end to end, as a user runs it: with no CLI installed
//! (the built-in fake plays the CLI's side), and with the real CLI when
//! `CLAUDE_AGENT_CLI` names it (`#[ignore]`d: `scripts/test.sh` runs it
//! with `--include-ignored` when the CLI is installed).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// The demo gets this long before the test kills it and fails.
const BOUND: Duration = Duration::from_secs(60);

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `claude-agent demo` (bounded: killed after [`BOUND`]).
fn run_demo(mut cmd: Command) -> Run {
    cmd.arg("demo")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let pid = child.id();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let mut stdout = String::new();
        let mut stderr = String::new();
        let errs = std::thread::spawn(move || {
            err.read_to_string(&mut stderr).unwrap();
            stderr
        });
        out.read_to_string(&mut stdout).unwrap();
        let stderr = errs.join().unwrap();
        let status = child.wait().unwrap();
        let _ = tx.send(());
        Run {
            code: status.code(),
            stdout,
            stderr,
        }
    });
    if rx.recv_timeout(BOUND).is_err() {
        // The child is not reaped yet (the waiter owns it), so the pid is ours.
        let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        let run = waiter.join().unwrap();
        panic!(
            "demo still running after {BOUND:?}\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        );
    }
    waiter.join().unwrap()
}

fn demo_command() -> Command {
    Command::new(env!("CARGO_BIN_EXE_claude-agent"))
}

#[test]
fn without_a_cli_the_demo_runs_the_story_on_the_built_in_fake() {
    let empty_path = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = demo_command();
    cmd.env("CLAUDE_AGENT_CLI", cwd.path().join("no-such-claude"))
        .env("PATH", empty_path.path())
        .env("HOME", home.path())
        // An inherited script must not replace the demo's own.
        .env("FAKE_CLAUDE_SCRIPT_JSON", r#"[{"op":"exit","code":9}]"#)
        .current_dir(cwd.path());
    let run = run_demo(cmd);
    assert_eq!(
        run.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
    let out = &run.stdout;
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("no Claude Code CLI found; using the built-in fake CLI"),
        "{out}"
    );
    assert!(
        out.contains("[permission] allow Bash: `touch demo.txt`"),
        "{out}"
    );
    assert!(out.contains("[mcp] calc.add(2, 3) = 5"), "{out}");
    assert!(out.contains("tool result toolu_demo_2 (ok): 5"), "{out}");
    assert!(out.contains("[assistant] 2 + 3 = 5"), "{out}");
    assert_eq!(out.matches("[result] success").count(), 2, "{out}");
    assert!(out.contains("[check] demo.txt exists"), "{out}");
    assert!(
        out.contains("[shutdown] escalation: none, CLI exit code 0"),
        "{out}"
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

/// The real CLI named by `CLAUDE_AGENT_CLI`, unless it is missing or the
/// testkit's fake; a missing CLI fails the test when
/// `CLAUDE_AGENT_REQUIRE_REAL_CLI=1`.
fn real_cli() -> Option<PathBuf> {
    let named = std::env::var_os("CLAUDE_AGENT_CLI").map(PathBuf::from);
    let found = named.clone().filter(|path| {
        let fake = path.file_name().is_some_and(|n| n == "fake-claude")
            || std::env::var_os("CLAUDE_AGENT_FAKE_CLI").is_some_and(|f| Path::new(&f) == path);
        path.is_file() && !fake
    });
    if found.is_none() {
        let required = std::env::var("CLAUDE_AGENT_REQUIRE_REAL_CLI").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "CLAUDE_AGENT_REQUIRE_REAL_CLI=1 but no real CLI at {named:?}"
        );
        eprintln!("SKIPPED: real-CLI demo test (set CLAUDE_AGENT_CLI to the real claude)");
    }
    found
}

#[test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
fn with_the_real_cli_the_demo_says_so_and_runs_the_story_through_it() {
    let Some(cli) = real_cli() else { return };
    let cwd = tempfile::tempdir().unwrap();
    let mut cmd = demo_command();
    cmd.env("CLAUDE_AGENT_CLI", &cli).current_dir(cwd.path());
    let run = run_demo(cmd);
    assert_eq!(
        run.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
    let out = &run.stdout;
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("using the real Claude Code CLI 2.1.332 at ")
            && first.contains("against a scripted model on 127.0.0.1:"),
        "{out}"
    );
    assert!(
        out.contains("[permission] allow Bash: `touch demo.txt`"),
        "{out}"
    );
    assert!(out.contains("[mcp] calc.add(2, 3) = 5"), "{out}");
    assert!(out.contains("[check] demo.txt exists"), "{out}");
}
