//! `claude-agent run --fault SPEC`: the fault named in the JSON shutdown
//! report, the exit code, no process left; a bad spec is a usage error.
//! `host --fault SPEC`: each session's faults in a `faults` line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "../../tests/real_cli/mod.rs"]
mod real_cli;

use std::process::Command;
use std::time::Duration;

use claude_agent::fault::FaultReport;
use claude_agent_testkit::model::{ModelScript, Reply};
use serde_json::{Value, json};

#[test]
fn a_bad_fault_spec_is_a_usage_error_naming_the_part_and_listing_the_syntax() {
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["run", "hi", "--fault", "explode@assistant:1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("'explode' is not an action"), "{stderr}");
    assert!(stderr.contains("points: "), "{stderr}");
    assert!(stderr.contains("actions: kill[:SIG]"), "{stderr}");
}

// Multi-threaded: the model server answers while the tool runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn kill_at_the_first_control_request_exits_2_names_the_fault_and_leaves_no_process() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "t1",
            "Bash",
            json!({"command": "touch made-by-tool"}),
        ))
        .reply(Reply::text("done"));
    let Some(rig) = real_cli::Rig::start(script).await else {
        return;
    };
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("run")
        .arg("run echo hi")
        .arg("--cli")
        .arg(&rig.cli)
        .arg("--cwd")
        .arg(rig.cwd.path())
        .args([
            "--json",
            "--allow",
            "Bash",
            "--grace",
            "2",
            "--term-grace",
            "2",
        ])
        .args(["--timeout", "30", "--fault", "kill@control_request:1"])
        .env("HOME", rig.home.path());
    for (k, v) in rig.server.env() {
        cmd.env(k, v);
    }
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap())
        .await
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let shutdown: Value = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["kind"] == "shutdown")
        .unwrap_or_else(|| panic!("no shutdown line in {stdout}"));
    let faults = FaultReport::from_json(&shutdown).expect("extensions.faults");
    let kill = faults.fired("kill").next().expect("the kill fired");
    assert_eq!(kill.fault, "kill@control_request:1");
    assert!(kill.applied, "{kill:?}");
    assert_eq!(shutdown["exit"]["signal"], libc::SIGKILL);
    let pid = faults.pid.unwrap();
    let gone = tokio::task::spawn_blocking(move || {
        claude_agent_testkit::wait_until_gone(pid, Duration::from_secs(10))
    })
    .await
    .unwrap();
    assert!(gone, "pid {pid} still running");
    faults
        .no_process_left(Duration::from_secs(10))
        .await
        .unwrap();
}

#[test]
fn host_fault_applies_to_every_job_and_prints_each_session_s_faults() {
    let fake = common::fake(
        claude_agent_testkit::Script::new()
            .expect_initialize()
            .loop_turns("done"),
    );
    let jobs = fake.dir.path().join("jobs.ndjson");
    let text: String = (0..2)
        .map(|i| format!("{}\n", json!({"tenant": "a", "prompt": format!("job {i}")})))
        .collect();
    std::fs::write(&jobs, text).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_claude-agent"));
    cmd.arg("host")
        .arg("--jobs")
        .arg(&jobs)
        .arg("--cli")
        .arg(&fake.cli.program)
        .args(["--json", "--grace", "0.3", "--term-grace", "0.3"])
        .args(["--fault", "corrupt@assistant:1"]);
    for (k, v) in &fake.cli.env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let faults: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "faults").collect();
    assert_eq!(faults.len(), 2, "{lines:?}");
    for line in faults {
        let injected = &line["faults"]["injected"];
        assert_eq!(injected[0]["fault"], "corrupt@assistant:1", "{line}");
        assert_eq!(injected.as_array().map(Vec::len), Some(1), "{line}");
    }
}
