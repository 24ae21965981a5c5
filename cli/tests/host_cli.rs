//! `claude-agent host`: a jobs file through a Host, NDJSON events and the
//! summary line, failures by cause, usage errors, SIGTERM drains.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The library's test helpers (the fake CLI behind a builder), shared.
#[path = "../../tests/common/mod.rs"]
mod common;
mod pty;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Output, Stdio};

use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn host_cmd(fake: &Fake, jobs: &std::path::Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("host")
        .arg("--jobs")
        .arg(jobs)
        .arg("--cli")
        .arg(&fake.cli.program)
        .args(["--grace", "0.3", "--term-grace", "0.3"])
        .args(args);
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    cmd
}

fn write_jobs(fake: &Fake, jobs: &[Value]) -> std::path::PathBuf {
    let path = fake.dir.path().join("jobs.ndjson");
    let text: String = jobs.iter().map(|j| format!("{j}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn jobs_of_two_tenants_run_and_the_summary_is_the_last_line() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let mut jobs: Vec<Value> = (0..6)
        .map(|i| json!({"tenant": "a", "prompt": format!("job {i}"), "id": format!("a{i}")}))
        .collect();
    jobs.push(json!({"tenant": "b", "prompt": "small", "model": "m"}));
    let path = write_jobs(&fake, &jobs);
    let out = host_cmd(
        &fake,
        &path,
        &["--json", "--concurrency", "3", "--per-tenant", "2"],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = lines(&out);
    let summary = lines.last().unwrap();
    assert_eq!(summary["kind"], "summary", "{summary}");
    assert_eq!(summary["jobs"], 7);
    assert_eq!(summary["completed"], 7);
    assert_eq!(summary["failed"], 0);
    assert!(summary["turn_latency_ms"]["p50"].as_f64().unwrap() > 0.0);
    assert!(
        summary["turn_latency_ms"]["p99"].as_f64().unwrap()
            >= summary["turn_latency_ms"]["p50"].as_f64().unwrap()
    );
    assert_eq!(summary["escalations"]["kill"], 0);
    let ended: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "ended").collect();
    assert_eq!(ended.len(), 7);
    // Events carry the job's line and id.
    assert!(
        ended.iter().any(|e| e["line"] == 1 && e["job_id"] == "a0"),
        "{ended:?}"
    );
    // The per-tenant limit held: at most 2 of a's sessions were ever running.
    let mut running = std::collections::HashMap::<String, i32>::new();
    for l in &lines {
        let t = l["tenant"].as_str().unwrap_or_default().to_owned();
        match l["kind"].as_str() {
            Some("admitted") => {
                let n = running.entry(t).or_default();
                *n += 1;
                assert!(*n <= 2, "tenant over its limit at {l}");
            }
            Some("ended") => *running.entry(t).or_default() -= 1,
            _ => {}
        }
    }
}

#[test]
fn failed_jobs_are_counted_by_cause_and_exit_one() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let crash = Script::new()
        .expect_initialize()
        .expect("user", None)
        .crash("SEGV")
        .install(fake.dir.path())
        .unwrap();
    let crash_script = crash
        .env
        .iter()
        .find(|(k, _)| k == "FAKE_CLAUDE_SCRIPT")
        .unwrap()
        .1
        .clone();
    let path = write_jobs(
        &fake,
        &[
            json!({"tenant": "a", "prompt": "fine"}),
            json!({"tenant": "a", "prompt": "boom", "env": {"FAKE_CLAUDE_SCRIPT": crash_script}}),
        ],
    );
    let out = host_cmd(&fake, &path, &["--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let summary = lines(&out).pop().unwrap();
    assert_eq!(summary["completed"], 1, "{summary}");
    assert_eq!(summary["failed"], 1);
    assert_eq!(summary["failed_by_cause"]["crashed"], 1);

    // Readable output by default.
    let out = host_cmd(&fake, &path, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2 jobs in"), "{text}");
    assert!(text.contains("failed, crashed: 1"), "{text}");
}

#[test]
fn a_bad_jobs_file_is_a_usage_error_naming_every_bad_line() {
    let fake = fake(Script::new());
    let path = fake.dir.path().join("jobs.ndjson");
    std::fs::write(
        &path,
        "{\"tenant\": \"a\", \"prompt\": \"ok\"}\n{\"prompt\": \"no tenant\"}\nnot json\n",
    )
    .unwrap();
    let out = host_cmd(&fake, &path, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(64));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("line 2: missing \"tenant\""), "{err}");
    assert!(err.contains("line 3: not a JSON object"), "{err}");
    assert!(out.stdout.is_empty(), "nothing ran");
    let out = host_cmd(&fake, &fake.dir.path().join("missing.ndjson"), &[])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
}

#[test]
fn sigterm_drains_the_host_and_exits_143() {
    let fake = fake(
        Script::new()
            .auto_reply("interrupt", json!({"still_queued": []}))
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("working"))
            .expect_eof(),
    );
    let jobs: Vec<Value> = (0..4)
        .map(|i| json!({"tenant": format!("t{}", i % 2), "prompt": "long"}))
        .collect();
    let path = write_jobs(&fake, &jobs);
    let mut child = host_cmd(
        &fake,
        &path,
        &["--json", "--concurrency", "2", "--drain-deadline", "5"],
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut pids = Vec::new();
    let mut line = String::new();
    while pids.len() < 2 {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "output ended early"
        );
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["kind"] == "started" {
            pids.push(v["pid"].as_u64().unwrap() as u32);
        }
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "128 + SIGTERM: {rest}");
    let summary: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    assert_eq!(summary["kind"], "summary");
    assert_eq!(summary["drained"], true);
    assert_eq!(summary["jobs"], 4);
    assert_eq!(summary["failed_by_cause"]["drained"], 4, "{summary}");
    assert_eq!(summary["drain"]["running"], 2);
    assert_eq!(summary["drain"]["cancelled_queued"], 2);
    assert_eq!(summary["drain"]["killed_at_deadline"], 0);
    for pid in pids {
        assert!(
            claude_agent_testkit::wait_until_gone(pid, SOON),
            "CLI {pid} left running"
        );
    }
}

fn crashing() -> Fake {
    fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .stderr("fatal: heap exhausted")
            .exit(3),
    )
}

/// No Rust `Debug` text (`Some(`, `ExitInfo {`, `CliExited {`) in what the
/// user reads.
fn assert_no_debug(text: &str) {
    for tell in ["Some(", "ExitInfo", "CliExited", " { "] {
        assert!(!text.contains(tell), "Debug formatting in {text}");
    }
}

#[test]
fn a_crash_s_exit_code_and_stderr_tail_reach_the_events_and_the_summary() {
    let fake = crashing();
    let jobs = write_jobs(&fake, &[json!({"tenant": "a", "prompt": "go", "id": "j1"})]);
    let out = host_cmd(&fake, &jobs, &["--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines = lines(&out);
    let ended = lines.iter().find(|l| l["kind"] == "ended").unwrap();
    assert_eq!(ended["failure"], "crashed");
    assert_eq!(ended["exit"]["code"], 3, "{ended}");
    let tail: Vec<&str> = ended["stderr_tail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(tail.contains(&"fatal: heap exhausted"), "{ended}");
    let message = ended["message"].as_str().unwrap();
    assert!(
        message.contains("exit code 3") && message.contains("heap exhausted"),
        "{message}"
    );
    assert_no_debug(message);
    let summary = lines.last().unwrap();
    let failure = &summary["failures"][0];
    assert_eq!(failure["line"], 1);
    assert_eq!(failure["job_id"], "j1");
    assert_eq!(failure["exit"]["code"], 3);
    assert_eq!(failure["stderr_tail"][0], "fatal: heap exhausted");
}

#[test]
fn each_restart_carries_the_crash_s_exit_and_stderr_in_words() {
    let fake = crashing();
    let jobs = write_jobs(&fake, &[json!({"tenant": "a", "prompt": "go"})]);
    let out = host_cmd(&fake, &jobs, &["--json", "--restarts", "2"])
        .output()
        .unwrap();
    let lines = lines(&out);
    let restarts: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "restarting").collect();
    assert_eq!(restarts.len(), 2, "{lines:?}");
    for r in restarts {
        let reason = r["reason"].as_str().unwrap();
        assert!(reason.contains("exit code 3"), "{reason}");
        assert_no_debug(reason);
        assert_eq!(r["exit"]["code"], 3);
        assert_eq!(r["stderr_tail"][0], "fatal: heap exhausted");
    }
    // The human summary names the failure in words.
    let human = host_cmd(&fake, &jobs, &["--restarts", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    assert!(text.contains("line 1: the CLI crashed"), "{text}");
    assert_no_debug(&text);
}

#[test]
fn skipped_lines_are_reported_per_job_and_counted_in_the_summary() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit_raw("not json at all\n")
            .emit_big_line(3_000, None)
            .emit(result("success", "done")),
    );
    let jobs = write_jobs(&fake, &[json!({"tenant": "a", "prompt": "go"})]);
    let out = host_cmd(&fake, &jobs, &["--json", "--max-line-bytes", "1000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = lines(&out);
    let diags: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "diagnostic").collect();
    let reasons: Vec<&str> = diags
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["not_json", "oversized"], "{diags:?}");
    assert!(diags.iter().all(|d| d["line"] == 1));
    assert_eq!(lines.last().unwrap()["skipped_lines"], 2);
}

#[test]
fn warm_spares_serve_jobs_and_still_report_their_skipped_lines() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit_raw("not json at all\n")
            .emit(result("success", "done")),
    );
    let jobs: Vec<Value> = (0..8)
        .map(|i| json!({"tenant": "a", "prompt": format!("job {i}"), "id": format!("j{i}")}))
        .collect();
    let path = write_jobs(&fake, &jobs);
    let out = host_cmd(
        &fake,
        &path,
        &["--json", "--concurrency", "3", "--warm-spares", "2"],
    )
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = lines(&out);
    let summary = lines.last().unwrap();
    assert_eq!(
        (summary["jobs"].as_u64(), summary["completed"].as_u64()),
        (Some(8), Some(8)),
        "{summary}"
    );
    let taken: Vec<&Value> = lines
        .iter()
        .filter(|l| l["kind"] == "spare_taken")
        .collect();
    assert!(!taken.is_empty(), "no job got a spare: {summary}");
    assert_eq!(summary["spares_used"], taken.len(), "{summary}");
    // A job served by a spare still has its skipped line reported under
    // its own line: the spare took over the job's diagnostics observer.
    let mut diag_lines: Vec<u64> = lines
        .iter()
        .filter(|l| l["kind"] == "diagnostic")
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    diag_lines.sort_unstable();
    assert_eq!(diag_lines, (1..=8).collect::<Vec<u64>>(), "{summary}");
    assert_eq!(summary["skipped_lines"], 8);
}

#[test]
fn warm_spares_with_a_store_is_a_usage_error() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let path = write_jobs(&fake, &[json!({"tenant": "a", "prompt": "p"})]);
    let out = host_cmd(&fake, &path, &["--warm-spares", "1", "--store", "memory:"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("--warm-spares cannot serve sessions mirrored to --store"),
        "{stderr}"
    );
}

/// The fake's `FAKE_CLAUDE_SCRIPT` for `script`, installed beside `fake`'s.
fn script_env(fake: &Fake, script: Script) -> String {
    let cli = script.install(fake.dir.path()).unwrap();
    let (_, path) = cli
        .env
        .iter()
        .find(|(k, _)| k == "FAKE_CLAUDE_SCRIPT")
        .unwrap();
    path.clone()
}

#[test]
fn the_human_summary_groups_failures_by_cause_most_frequent_first() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let crash = script_env(
        &fake,
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .exit(7),
    );
    let error = script_env(
        &fake,
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(result("error_max_turns", "")),
    );
    let job =
        |script: &str| json!({"tenant": "a", "prompt": "p", "env": {"FAKE_CLAUDE_SCRIPT": script}});
    let path = write_jobs(
        &fake,
        &[
            job(&error),
            job(&crash),
            json!({"tenant": "a", "prompt": "fine"}),
            job(&crash),
            job(&crash),
        ],
    );
    let out = host_cmd(&fake, &path, &["--concurrency", "5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let failed: Vec<&str> = text.lines().filter(|l| l.contains("failed, ")).collect();
    assert_eq!(failed.len(), 2, "one line per cause: {text}");
    assert!(
        failed[0].starts_with("  failed, crashed: 3, lines 2, 4, 5: the CLI crashed")
            && failed[0].contains("exit code 7"),
        "{text}"
    );
    assert!(
        failed[1].starts_with("  failed, error_result: 1, line 1: the turn ended in error"),
        "{text}"
    );
}

#[test]
fn on_a_terminal_the_progress_bar_shows_elapsed_time_and_an_eta() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let jobs: Vec<Value> = (0..4)
        .map(|i| json!({"tenant": "a", "prompt": format!("job {i}")}))
        .collect();
    let path = write_jobs(&fake, &jobs);
    let out = pty::output_with_tty_stderr(host_cmd(&fake, &path, &["--concurrency", "2"]));
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let screen = String::from_utf8_lossy(&out.stderr);
    assert!(screen.contains("4/4 done"), "{screen:?}");
    assert!(
        screen.contains(" elapsed, ETA "),
        "no elapsed time or ETA: {screen:?}"
    );
    // On a pipe, no bar.
    let out = host_cmd(&fake, &path, &["--concurrency", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("elapsed"), "{err}");
}

#[test]
fn a_cli_that_exits_before_initialize_has_its_exit_in_the_ended_event_and_the_summary() {
    let fake = fake(Script::new().stderr("fatal: no config").exit(5));
    let jobs = write_jobs(&fake, &[json!({"tenant": "a", "prompt": "go"})]);
    let out = host_cmd(&fake, &jobs, &["--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines = lines(&out);
    let ended = lines.iter().find(|l| l["kind"] == "ended").unwrap();
    assert_eq!(ended["failure"], "connect", "{ended}");
    assert!(
        ended["message"].as_str().unwrap().contains("exit code 5"),
        "{ended}"
    );
    assert_eq!(ended["exit"]["code"], 5, "{ended}");
    assert_eq!(ended["stderr_tail"][0], "fatal: no config", "{ended}");
    let others = lines
        .iter()
        .filter(|l| l["kind"] != "ended" && l["kind"] != "summary");
    for other in others {
        assert!(other.get("exit").is_none(), "only the ended event: {other}");
    }
    let failure = &lines.last().unwrap()["failures"][0];
    assert_eq!(failure["exit"]["code"], 5, "{failure}");
    assert_eq!(failure["stderr_tail"][0], "fatal: no config", "{failure}");
}
