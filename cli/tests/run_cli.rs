//! `claude-agent run`: exit codes for each class of outcome, the JSON
//! stream's shape, permission decisions, interrupt and escalation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The library's test helpers (the fake CLI behind a builder), shared.
#[path = "../../tests/common/mod.rs"]
mod common;
mod run_common;

use std::process::{Command, Output};

use claude_agent_testkit::Script;
use common::*;
use run_common::run;
use serde_json::{Value, json};

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// An error line's `message` and its `causes`, `: `-joined: everything it
/// says (the message says what failed, the causes why).
fn said(error: &Value) -> String {
    let mut text = error["message"].as_str().unwrap().to_owned();
    for cause in error["causes"].as_array().unwrap() {
        text.push_str(": ");
        text.push_str(cause.as_str().unwrap());
    }
    text
}

fn turn(reply: Value) -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(assistant("hello"))
        .emit(reply)
}

#[test]
fn a_success_result_exits_zero_and_the_json_stream_ends_with_the_shutdown() {
    let fake = fake(turn(result("success", "hello")).emit(state("idle")));
    let out = run(&fake, &["--json", "say hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = lines(&out);
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "assistant",
            "result/success",
            "system/session_state_changed",
            "shutdown"
        ],
        "a frame trailing the result is printed too"
    );
    assert_eq!(
        lines[0]["message"]["message"]["content"][0]["text"],
        "hello"
    );
    let shutdown = &lines[3];
    assert_eq!(shutdown["escalation"], "none");
    assert_eq!(shutdown["exit"]["code"], 0);
    assert!(shutdown["timings"]["total_ms"].is_number());
    let prompt = fake
        .received()
        .into_iter()
        .find(|l| l["type"] == "user")
        .unwrap();
    assert_eq!(prompt["message"]["content"], "say hi");
}

#[test]
fn an_error_result_exits_one() {
    let fake = fake(turn(result("error_max_turns", "")));
    let out = run(&fake, &["--max-turns", "1", "go"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("[result] error_max_turns"), "{text}");
    let argv = fake.cli.recorded_argv().unwrap();
    assert!(
        argv.windows(2).any(|w| w == ["--max-turns", "1"]),
        "{argv:?}"
    );
}

#[test]
fn a_missing_cli_exits_two_with_one_clear_line() {
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "--cli", "/nonexistent/claude", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("/nonexistent/claude") && err.contains("not found"),
        "{err}"
    );
}

#[test]
fn a_cli_path_that_exists_but_cannot_run_gets_its_own_message() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("claude");
    std::fs::write(&plain, "not a program\n").unwrap();
    for (path, reason) in [
        (plain.as_path(), "no execute permission"),
        (dir.path(), "it is a directory"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
            .args(["run", "--cli"])
            .arg(path)
            .arg("hi")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.contains("cannot be executed") && err.contains(reason),
            "{err}"
        );
        assert!(!err.contains("not found"), "{err}");
    }
}

#[test]
fn with_json_a_failed_start_still_prints_one_json_object() {
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "--json", "--cli", "/nonexistent/claude", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let lines = lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["kind"], "error");
    assert_eq!(lines[0]["error"], "cli_not_found");
    assert!(
        said(&lines[0]).contains("/nonexistent/claude"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_crash_before_the_result_exits_two_with_status_and_stderr_tail() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("partial"))
            .stderr("panic: the model server went away")
            .exit(7),
    );
    let out = run(&fake, &["go"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exit code 7"), "{err}");
    assert!(err.contains("model server went away"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("partial"));
}

#[test]
fn usage_errors_exit_64() {
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "--permission-mode", "yolo", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "--grace", "-1", "hi"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
}

#[test]
fn allow_deny_and_unlisted_tools_get_the_documented_decisions() {
    let ask = |id: &str, tool: &str| {
        cli_request(
            id,
            json!({"subtype": "can_use_tool", "tool_name": tool,
            "input": {"x": 1}, "tool_use_id": format!("t-{id}")}),
        )
    };
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(ask("p1", "Read"))
            .step(expect_reply("p1"))
            .emit(ask("p2", "Bash"))
            .step(expect_reply("p2"))
            .emit(ask("p3", "Write"))
            .step(expect_reply("p3"))
            .emit(result("success", "ok")),
    );
    let out = run(
        &fake,
        &[
            "--json", "--allow", "Read", "--allow", "Bash", "--deny", "Bash", "go",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let r1 = fake.reply_to("p1").unwrap();
    assert_eq!(
        r1["response"]["response"],
        json!({"behavior": "allow", "updatedInput": {"x": 1}, "toolUseID": "t-p1"})
    );
    let r2 = fake.reply_to("p2").unwrap();
    assert_eq!(
        r2["response"]["response"]["behavior"], "deny",
        "deny wins over allow"
    );
    let r3 = fake.reply_to("p3").unwrap();
    let msg = r3["response"]["response"]["message"].as_str().unwrap();
    assert!(msg.contains("neither allowed nor denied"), "{msg}");
    let decisions: Vec<Value> = lines(&out)
        .into_iter()
        .filter(|l| l["kind"] == "permission")
        .collect();
    assert_eq!(decisions.len(), 3);
    assert_eq!(decisions[0]["behavior"], "allow");
    assert_eq!(decisions[2]["tool_name"], "Write");
    let argv = fake.cli.recorded_argv().unwrap();
    assert!(
        argv.windows(2)
            .any(|w| w == ["--permission-prompt-tool", "stdio"]),
        "{argv:?}"
    );
}

#[test]
fn interrupt_after_sends_an_interrupt_and_the_error_result_exits_one() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("thinking..."))
            .expect_control("interrupt", json!({"still_queued": []}))
            .emit(result("error_during_execution", "")),
    );
    let out = run(&fake, &["--interrupt-after", "0.05", "--json", "go"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let kinds: Vec<String> = lines(&out)
        .iter()
        .map(|l| l["kind"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        kinds.contains(&"result/error_during_execution".to_owned()),
        "{kinds:?}"
    );
    assert!(
        fake.received()
            .iter()
            .any(|l| l["request"]["subtype"] == "interrupt"),
        "an interrupt was sent"
    );
}

#[test]
fn a_cli_that_ignores_eof_and_sigterm_is_killed_and_the_report_says_so() {
    let fake = fake(
        Script::new()
            .ignore_signal("TERM")
            .expect_initialize()
            .expect("user", None)
            .emit(result("success", "done"))
            .hang(),
    );
    let out = run(
        &fake,
        &["--json", "--grace", "0.2", "--term-grace", "0.2", "go"],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let last = lines(&out).pop().unwrap();
    assert_eq!(last["kind"], "shutdown");
    assert_eq!(last["escalation"], "kill");
    assert!(last["timings"]["term_sent_ms"].as_f64().unwrap() >= 200.0);
    assert!(last["timings"]["kill_sent_ms"].as_f64().unwrap() >= 400.0);
}

#[test]
fn a_cli_that_never_answers_initialize_times_out_with_exit_two() {
    let fake = fake(
        Script::new().step(json!({"op": "expect", "type": "control_request",
        "subtype": "initialize", "no_reply": true})),
    );
    let out = run(
        &fake,
        &[
            "--timeout",
            "0.3",
            "--grace",
            "0.1",
            "--term-grace",
            "0.1",
            "hi",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("initialize got no reply within 300ms"),
        "{err}"
    );
}

#[test]
fn an_artifact_holds_the_transcript_of_the_run() {
    let fake = fake(turn(result("success", "hello")));
    let artifact = fake.dir.path().join("run.json");
    let out = run(&fake, &["--artifact", artifact.to_str().unwrap(), "hi"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let t: Value = serde_json::from_slice(&std::fs::read(&artifact).unwrap()).unwrap();
    assert_eq!(t["session_id"], "s-1");
    assert_eq!(t["incomplete"], false);
    assert_eq!(t["results"].as_array().unwrap().len(), 1);
    assert_eq!(t["close"]["escalation"], "none");
    assert_eq!(t["run"]["entry_point"], "client");
}

#[test]
fn sigterm_during_a_turn_shuts_the_session_down_in_order_and_exits_143() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("working on it")),
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.args(["run", "--json", "--cli"])
        .arg(&fake.cli.program)
        .arg("go");
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the turn is visibly running: the first message is out.
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    std::io::BufRead::read_line(&mut stdout, &mut first).unwrap();
    assert!(first.contains("\"assistant\""), "{first}");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    )
    .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143), "128 + SIGTERM");
    let last: Value = serde_json::from_str(rest.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "shutdown");
    assert_eq!(last["escalation"], "none", "the fake exits on EOF: {last}");
    if let Some(pid) = fake.cli.pid() {
        assert!(claude_agent_testkit::wait_until_gone(pid, SOON));
    }
}

/// A CLI that prints a non-JSON line, a malformed line and a line over the
/// limit before its result.
fn noisy() -> Fake {
    fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit_raw("npm WARN something is not JSON\n")
            .emit_raw("{\"type\": \"assistant\", oops\n")
            .emit_big_line(5_000, None)
            .emit(result("success", "done"))
            .emit(state("idle")),
    )
}

#[test]
fn skipped_lines_are_reported_as_json_diagnostics_and_counted() {
    let fake = noisy();
    let dir = tempfile::tempdir().unwrap();
    let artifact = dir.path().join("t.json");
    let out = run(
        &fake,
        &[
            "--json",
            "--max-line-bytes",
            "1000",
            "--artifact",
            artifact.to_str().unwrap(),
            "go",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = lines(&out);
    let diags: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "diagnostic").collect();
    let reasons: Vec<&str> = diags
        .iter()
        .map(|d| d["reason"].as_str().unwrap())
        .collect();
    assert_eq!(reasons, ["not_json", "malformed", "oversized"], "{diags:?}");
    assert_eq!(diags[2]["len"], 4_999, "the line without its newline");
    assert!(diags[0]["prefix"].as_str().unwrap().starts_with("npm WARN"));
    let last = lines.last().unwrap();
    assert_eq!(last["kind"], "shutdown");
    assert_eq!(last["skipped_lines"], 3, "{last}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&artifact).unwrap()).unwrap();
    assert_eq!(t["skipped_lines"].as_array().unwrap().len(), 3, "{t}");
}

#[test]
fn skipped_lines_get_one_stderr_line_each_in_human_mode() {
    let fake = noisy();
    let out = run(&fake, &["--max-line-bytes", "1000", "go"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches("skipped a stdout line").count(), 3, "{err}");
    assert!(err.contains("oversized, 4999 bytes"), "{err}");
    assert!(err.contains("3 stdout line(s) skipped"), "{err}");
}

#[test]
fn with_json_a_cli_that_exits_before_initialize_has_its_exit_code_in_the_error() {
    let fake = fake(Script::new().stderr("fatal: no config").exit(5));
    let out = run(&fake, &["--json", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let lines = lines(&out);
    let error = lines.iter().find(|l| l["kind"] == "error").unwrap();
    assert!(said(error).contains("exit code 5"), "{error}");
    assert_eq!(error["exit"]["code"], 5, "{error}");
    assert_eq!(error["exit"]["signal"], Value::Null, "{error}");
}

#[test]
fn a_cli_script_whose_interpreter_is_missing_says_so_naming_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("claude");
    std::fs::write(&script, "#!/nonexistent/node --flag\nconsole.log(1)\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "--cli"])
        .arg(&script)
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("interpreter /nonexistent/node") && err.contains("does not exist"),
        "{err}"
    );
    assert!(!err.contains("not found"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "--json", "--cli"])
        .arg(&script)
        .arg("hi")
        .output()
        .unwrap();
    let error = &lines(&out)[0];
    assert_eq!(error["error"], "interpreter_not_found", "{error}");
    assert_eq!(error["interpreter"], "/nonexistent/node", "{error}");
}
