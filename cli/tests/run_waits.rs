//! What the tool says on stderr while it waits on something else: an API
//! the CLI retries, a session store that does not answer (`run`, `host`,
//! `sessions`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/real_cli/mod.rs"]
mod real_cli;
mod run_common;

use std::net::{TcpListener, TcpStream};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use claude_agent_testkit::Script;
use claude_agent_testkit::model::{ModelScript, Reply};
use common::*;
use run_common::run;
use serde_json::json;

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn api_retry(attempt: u64) -> serde_json::Value {
    json!({"type": "system", "subtype": "api_retry", "attempt": attempt, "max_retries": 10,
        "retry_delay_ms": 1200, "error_status": 529, "error": "server_error",
        "uuid": format!("u-r{attempt}"), "session_id": "s-1"})
}

#[test]
fn api_retries_are_one_stderr_line_each_in_human_mode() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(api_retry(1))
            .emit(api_retry(2))
            .emit(assistant("hello"))
            .emit(result("success", "hello")),
    );
    let out = run(&fake, &["hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = stderr(&out);
    let retries: Vec<&str> = err.lines().filter(|l| l.contains("retrying")).collect();
    assert_eq!(
        retries,
        [
            "claude-agent run: retrying the API call in 1.2 s, attempt 1 of 10: server error (HTTP 529)",
            "claude-agent run: retrying the API call in 1.2 s, attempt 2 of 10: server error (HTTP 529)",
        ],
        "{err}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("retrying"),
        "stdout is the session's: {text}"
    );
}

#[test]
fn with_json_a_retry_is_its_message_on_stdout_only() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(api_retry(1))
            .emit(result("success", "hello")),
    );
    let out = run(&fake, &["--json", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!stderr(&out).contains("retrying"), "{}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("\"kind\":\"system/api_retry\""), "{text}");
}

// Multi-threaded: the model server answers while this thread waits on the
// tool's process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_real_clis_retries_of_a_failing_api_are_shown() {
    let script = ModelScript::new().fallback(Reply::error(529));
    let Some(rig) = real_cli::Rig::start(script).await else {
        return;
    };
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("run")
        .arg("--cli")
        .arg(&rig.cli)
        .arg("--cwd")
        .arg(rig.cwd.path())
        .arg("hello")
        .env("HOME", rig.home.path());
    for (k, v) in rig.server.env() {
        cmd.env(k, v);
    }
    let out = tokio::time::timeout(real_cli::TURN, cmd.output())
        .await
        .unwrap()
        .unwrap();
    // The turn ends in an error result once the retries are spent.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = stderr(&out);
    let retries: Vec<&str> = err.lines().filter(|l| l.contains("retrying")).collect();
    // The rig's CLAUDE_CODE_MAX_RETRIES=2.
    assert_eq!(retries.len(), 2, "{err}");
    assert!(
        retries[0].contains("attempt 1 of 2") && retries[0].contains("529"),
        "{err}"
    );
}

/// A server on 127.0.0.1 that accepts connections and never answers.
struct Stalled {
    port: u16,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Stalled {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut held = Vec::new();
            for conn in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                // Held open, never read or written.
                held.extend(conn.ok());
            }
        });
        Self {
            port,
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Stalled {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop to see the flag.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Asserts `err` says what the tool waits for and that it gave up at
/// `--store-timeout`, naming the server but not the password.
fn assert_stalled_store_reported(err: &str, command: &str, address: &str) {
    let waiting = format!(
        "claude-agent {command}: waiting for the session store at {address} to answer (up to 3.0 s, --store-timeout)"
    );
    assert!(err.lines().any(|l| l == waiting), "{err}");
    assert!(
        err.contains(&format!(
            "the session store at {address} did not answer within 3.0 s (--store-timeout)"
        )),
        "{err}"
    );
    assert!(!err.contains("secret"), "the password leaked: {err}");
}

#[test]
fn a_store_that_does_not_answer_is_reported_and_given_up_on_at_store_timeout() {
    let server = Stalled::start();
    let fake = fake(Script::new());
    for (scheme, url) in [
        (
            "postgres",
            format!("postgres://u:secret@127.0.0.1:{}/db", server.port),
        ),
        (
            "redis",
            format!("redis://:secret@127.0.0.1:{}", server.port),
        ),
    ] {
        let started = Instant::now();
        let out = run(&fake, &["--store", &url, "--store-timeout", "3", "hi"]);
        let took = started.elapsed();
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert_stalled_store_reported(
            &stderr(&out),
            "run",
            &format!("{scheme}://127.0.0.1:{}", server.port),
        );
        assert!(took < Duration::from_secs(10), "took {took:?}");
    }
    assert!(fake.cli.recorded_argv().is_none(), "no CLI was started");
}

#[test]
fn host_and_sessions_bound_a_stalled_store_by_store_timeout_too() {
    let server = Stalled::start();
    let url = format!("redis://127.0.0.1:{}", server.port);
    let address = url.clone();
    let fake = fake(Script::new());
    let jobs = fake.dir.path().join("jobs.ndjson");
    std::fs::write(&jobs, "{\"tenant\": \"a\", \"prompt\": \"x\"}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["host", "--store", &url, "--store-timeout", "3", "--jobs"])
        .arg(&jobs)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_stalled_store_reported(&stderr(&out), "host", &address);
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["sessions", "list", "--store", &url, "--store-timeout", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_stalled_store_reported(&stderr(&out), "sessions", &address);
}

#[test]
fn a_store_that_answers_quickly_says_nothing_about_waiting() {
    let store = tempfile::tempdir().unwrap();
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "ok")),
    );
    let url = format!("file://{}", store.path().display());
    let out = run(&fake, &["--store", &url, "hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!stderr(&out).contains("waiting for"), "{}", stderr(&out));
}
