//! `--store URL` of `run` and `host`: transcripts mirrored into the store
//! and counted, `--resume` restored from the store, a failing store shown
//! as `mirror_error` while the run succeeds, and bad URLs or refusing
//! servers as one line with a non-zero exit.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The library's test helpers (the fake CLI behind a builder), shared.
#[path = "../../tests/common/mod.rs"]
mod common;

use std::path::Path;
use std::process::{Command, Output};

use claude_agent::store::{FileStore, SessionKey, SessionStore, project_key_for};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

const SESSION: &str = "2f0c6a51-7d3e-4b8e-9a11-0c5d4e3f2a10";
const PROJECT: &str = "-cli-store-proj";
/// `run`'s exit for options that cannot make a CLI invocation.
const EXIT_INVALID: i32 = 2;

fn command(fake: &Fake, config: &Path, sub: &str) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg(sub).arg("--cli").arg(&fake.cli.program);
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    // Where the SDK maps mirrored file paths to store keys and restores to.
    cmd.env("CLAUDE_CONFIG_DIR", config);
    cmd
}

fn stdout_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn entry(n: u32) -> Value {
    json!({"type": "user", "uuid": format!("u-{n}"), "sessionId": SESSION, "n": n})
}

/// One turn whose CLI mirrors two entries of its session file.
fn mirroring_turn(config: &Path) -> Script {
    let path = format!("{}/projects/{PROJECT}/{SESSION}.jsonl", config.display());
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(
            json!({"type": "transcript_mirror", "filePath": path, "entries": [entry(1), entry(2)]}),
        )
        .emit(assistant("hello"))
        .emit(result("success", "hello"))
}

fn file_url(dir: &Path) -> String {
    format!("file://{}", dir.display())
}

/// A local port nothing listens on: bound, then released.
fn refusing_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn run_with_a_file_store_mirrors_the_transcript_and_reports_the_counts() {
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let fake = fake(mirroring_turn(config.path()));
    let out = command(&fake, config.path(), "run")
        .args(["--json", "--store", &file_url(store_dir.path()), "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let lines = stdout_lines(&out);
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["assistant", "result/success", "shutdown"]);
    let shutdown = lines.last().unwrap();
    assert_eq!(shutdown["mirror_persisted"], 2, "{shutdown}");
    assert_eq!(shutdown["mirror_unpersisted"], 0, "{shutdown}");
    let store = FileStore::new(store_dir.path());
    let stored = store
        .load(&SessionKey::new(PROJECT, SESSION))
        .await
        .unwrap()
        .expect("the session in the store");
    assert_eq!(stored, [entry(1), entry(2)]);
}

#[test]
fn run_without_json_says_the_mirror_counts_in_one_line() {
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let fake = fake(mirroring_turn(config.path()));
    let out = command(&fake, config.path(), "run")
        .args(["--store", &file_url(store_dir.path()), "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("session store: 2 transcript entries persisted, 0 not"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test]
async fn run_resume_with_a_store_restores_the_session_file_the_config_dir_lacks() {
    let config = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let project = project_key_for(cwd.path());
    let store = FileStore::new(store_dir.path());
    store
        .append(
            &SessionKey::new(project.clone(), SESSION),
            &[entry(1).into(), entry(2).into()],
        )
        .await
        .unwrap();
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("resumed"))
            .emit(result("success", "resumed")),
    );
    let out = command(&fake, config.path(), "run")
        .arg("--cwd")
        .arg(cwd.path())
        .args(["--store", &file_url(store_dir.path())])
        .args(["--resume", SESSION, "go on"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let argv = fake.cli.recorded_argv().expect("the CLI ran");
    assert!(
        argv.iter().any(|a| *a == format!("--resume={SESSION}")),
        "{argv:?}"
    );
    let restored = config
        .path()
        .join("projects")
        .join(&project)
        .join(format!("{SESSION}.jsonl"));
    let text = std::fs::read_to_string(&restored)
        .unwrap_or_else(|e| panic!("{}: {e}", restored.display()));
    let entries: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries, [entry(1), entry(2)]);
}

#[test]
fn a_corrupt_row_in_the_store_fails_the_resume_in_one_line_naming_it() {
    let config = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let project = project_key_for(cwd.path());
    let folder = store_dir.path().join(&project);
    std::fs::create_dir_all(&folder).unwrap();
    let row = format!("{}\nnot json\n", entry(1));
    std::fs::write(folder.join(format!("{SESSION}.jsonl")), row).unwrap();
    let fake = fake(Script::new());
    let out = command(&fake, config.path(), "run")
        .arg("--cwd")
        .arg(cwd.path())
        .args(["--store", &file_url(store_dir.path())])
        .args(["--resume", SESSION, "go on"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("corrupt data") && err.contains("line 2"),
        "{err}"
    );
    assert!(fake.cli.recorded_argv().is_none(), "no CLI was started");
}

#[test]
fn a_shutdown_that_waits_for_a_stalled_store_says_so_not_that_it_waits_for_the_cli() {
    use std::io::{BufRead, BufReader};
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    // Another writer holds the session's lock: the store stalls the append.
    let lock = hold_session_lock(store_dir.path(), PROJECT, SESSION);
    let fake = fake(mirroring_turn(config.path()));
    let mut child = command(&fake, config.path(), "run")
        .args(["--store", &file_url(store_dir.path()), "hi"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = Vec::new();
    for line in BufReader::new(child.stderr.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.contains("waiting for") {
            // Said: let the store go on, so the run can finish.
            lock.release();
        }
        said.push(line);
    }
    let status = child.wait().unwrap();
    let waits: Vec<&String> = said.iter().filter(|l| l.contains("waiting for")).collect();
    assert_eq!(waits.len(), 1, "{said:?}");
    assert!(
        waits[0].contains("the CLI exited; waiting for the session store"),
        "{said:?}"
    );
    assert_eq!(status.code(), Some(0), "{said:?}");
    assert!(
        said.iter()
            .any(|l| l.contains("2 transcript entries persisted, 0 not")),
        "{said:?}"
    );
}

#[test]
fn a_store_stalled_through_the_shutdown_shows_mirror_error_counts_and_exits_3() {
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    // Another writer holds the session's lock for the whole run: the
    // append stalls past the flush deadline.
    let lock = hold_session_lock(store_dir.path(), PROJECT, SESSION);
    let fake = fake(mirroring_turn(config.path()));
    let out = command(&fake, config.path(), "run")
        .args(["--json", "--store", &file_url(store_dir.path()), "hi"])
        .output()
        .unwrap();
    lock.release();
    let err = stderr(&out);
    // All three: the exit, the line with counts, the message in the stream.
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("2 transcript entries were not persisted to the session store"),
        "{err}"
    );
    let lines = stdout_lines(&out);
    let errors: Vec<&Value> = lines
        .iter()
        .filter(|l| l["kind"] == "system/mirror_error")
        .collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert_eq!(errors[0]["message"]["key"]["sessionId"], SESSION);
    let shutdown = lines.last().unwrap();
    assert_eq!(shutdown["mirror_unpersisted"], 2, "{shutdown}");
}

#[test]
fn a_resume_id_that_is_not_a_uuid_is_refused_before_anything_starts_or_is_written() {
    let config = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let fake = fake(Script::new());
    let out = command(&fake, config.path(), "run")
        .arg("--cwd")
        .arg(cwd.path())
        .args(["--store", &file_url(store_dir.path())])
        .args(["--resume", "../../../x", "go on"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(EXIT_INVALID), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains(
            r#"resume must be a session UUID when a session store restores it, got "../../../x""#
        ),
        "{err}"
    );
    assert!(fake.cli.recorded_argv().is_none(), "no CLI was started");
    let written = |dir: &Path| std::fs::read_dir(dir).unwrap().count();
    assert_eq!(written(store_dir.path()), 0, "nothing in the store");
    assert_eq!(written(config.path()), 0, "nothing in the config dir");
}

#[test]
fn a_store_that_cannot_append_shows_mirror_error_and_exits_3_unless_loss_is_allowed() {
    let config = tempfile::tempdir().unwrap();
    // Not a folder: every append fails.
    let blocker = tempfile::NamedTempFile::new().unwrap();
    let url = file_url(&blocker.path().join("store"));
    let fake = fake(mirroring_turn(config.path()).emit(state("idle")));
    let out = command(&fake, config.path(), "run")
        .args(["--json", "--store", &url, "hi"])
        .output()
        .unwrap();
    // No silent loss: the run succeeded, the store did not keep it all.
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("2 transcript entries were not persisted to the session store"),
        "{}",
        stderr(&out)
    );
    let lines = stdout_lines(&out);
    let errors: Vec<&Value> = lines
        .iter()
        .filter(|l| l["kind"] == "system/mirror_error")
        .collect();
    assert_eq!(errors.len(), 1, "{lines:?}");
    assert_eq!(errors[0]["message"]["key"]["sessionId"], SESSION);
    let shutdown = lines.last().unwrap();
    assert_eq!(shutdown["kind"], "shutdown");
    assert_eq!(shutdown["mirror_unpersisted"], 2, "{shutdown}");

    let fake = fake_again(config.path());
    let out = command(&fake, config.path(), "run")
        .args(["--store", &url, "--allow-store-loss", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("mirrored batch was dropped"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].contains(SESSION), "{}", said[0]);
    assert!(err.contains("2 not"), "the counts are still said: {err}");
    assert!(!err.contains("exiting 3"), "{err}");
}

fn fake_again(config: &Path) -> Fake {
    fake(mirroring_turn(config).emit(state("idle")))
}

#[test]
fn a_malformed_store_url_is_one_line_and_a_usage_exit() {
    let config = tempfile::tempdir().unwrap();
    let fake = fake(Script::new());
    for sub in ["run", "host"] {
        let mut cmd = command(&fake, config.path(), sub);
        if sub == "host" {
            let jobs = fake.dir.path().join("jobs.ndjson");
            std::fs::write(&jobs, "{\"tenant\": \"a\", \"prompt\": \"x\"}\n").unwrap();
            cmd.arg("--jobs").arg(jobs);
        } else {
            cmd.arg("hi");
        }
        let out = cmd.args(["--store", "ftp://somewhere"]).output().unwrap();
        assert_eq!(out.status.code(), Some(64), "{sub}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{sub}: {err}");
        assert!(err.contains("unknown scheme"), "{sub}: {err}");
        assert!(
            fake.cli.recorded_argv().is_none(),
            "{sub}: no CLI was started"
        );
    }
}

#[test]
fn an_unreachable_store_server_is_one_line_and_exit_two() {
    let config = tempfile::tempdir().unwrap();
    let fake = fake(Script::new());
    let port = refusing_port();
    for url in [
        format!("postgres://postgres:secret@127.0.0.1:{port}/test"),
        format!("redis://:secret@127.0.0.1:{port}"),
    ] {
        let out = command(&fake, config.path(), "run")
            .args(["--store", &url, "hi"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}: {}", stderr(&out));
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{url}: {err}");
        assert!(err.contains("refused"), "{url}: {err}");
        assert!(!err.contains("secret"), "the password leaked: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn host_with_a_store_mirrors_every_job_and_sums_the_counts() {
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let fake = fake(mirroring_turn(config.path()).emit(state("idle")));
    let jobs = fake.dir.path().join("jobs.ndjson");
    std::fs::write(&jobs, "{\"tenant\": \"a\", \"prompt\": \"x\"}\n").unwrap();
    let out = command(&fake, config.path(), "host")
        .arg("--jobs")
        .arg(&jobs)
        .args(["--grace", "0.3", "--term-grace", "0.3", "--json"])
        .args(["--store", &file_url(store_dir.path())])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let summary = stdout_lines(&out).pop().unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(
        summary["mirror"],
        json!({"persisted": 2, "unpersisted": 0}),
        "{summary}"
    );
}

#[test]
fn a_bad_store_overflow_is_a_usage_exit_naming_the_allowed_values() {
    let config = tempfile::tempdir().unwrap();
    let fake = fake(mirroring_turn(config.path()));
    let out = command(&fake, config.path(), "run")
        .args(["--store", "memory:", "--store-overflow", "spill-all", "hi"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(64), "{err}");
    assert!(
        err.contains("drop-oldest, pause, spill, spill=DIR"),
        "{err}"
    );
}

#[test]
fn store_overflow_spill_dir_reaches_the_library_and_is_replayed_once_the_store_returns() {
    use std::time::{Duration, Instant};
    let config = tempfile::tempdir().unwrap();
    let store_dir = tempfile::tempdir().unwrap();
    let spill = tempfile::tempdir().unwrap();
    let lock = hold_session_lock(store_dir.path(), PROJECT, SESSION);
    // Past the mirror's 8 MiB queue while the store is stalled.
    let path = format!(
        "{}/projects/{PROJECT}/{SESSION}.jsonl",
        config.path().display()
    );
    let pad = "x".repeat(8 * 1024);
    let frames = 1_200;
    let mut script = Script::new().expect_initialize().expect("user", None);
    for n in 0..frames {
        let mut e = entry(n);
        e["pad"] = pad.clone().into();
        script =
            script.emit(json!({"type": "transcript_mirror", "filePath": path, "entries": [e]}));
    }
    let fake = fake(script.emit(result("success", "done")));
    let spill_arg = format!("spill={}", spill.path().display());
    let child = command(&fake, config.path(), "run")
        .args([
            "--store",
            &file_url(store_dir.path()),
            "--store-overflow",
            &spill_arg,
            "hi",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let files = || std::fs::read_dir(spill.path()).map_or(0, Iterator::count);
    let start = Instant::now();
    while files() == 0 {
        assert!(
            start.elapsed() < SOON,
            "no spill file in the --store-overflow folder"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    lock.release();
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains(&format!("{frames} transcript entries persisted, 0 not")),
        "{err}"
    );
    assert_eq!(files(), 0, "the replayed spill file is removed");
}
