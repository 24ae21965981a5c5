//! A spawner that wraps the CLI in `unshare` (util-linux): the CLI runs in
//! its own user namespace (and, for the fake, its own network namespace)
//! while the SDK keeps typed messages and the ladder. Each test skips,
//! saying why, where `unshare` is missing or may not create namespaces,
//! except under CI (`CI` set, or `CLAUDE_AGENT_REQUIRE_NAMESPACES=1`, which
//! the project's `.ci/run` exports), where that fails the test.
//!
//! The real-CLI test needs the real Claude Code CLI named by
//! `CLAUDE_AGENT_CLI`, so it is `#[ignore]`d: run with `--include-ignored`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod real_cli;

use std::ffi::OsString;
use std::time::Duration;

use claude_agent::protocol::Message;
use claude_agent::{
    client::ClientBuilder, options::Options, runtime::Escalation, runtime::channel::SpawnerError,
    runtime::process::ProcessSpec,
};
use claude_agent_testkit::Script;
use claude_agent_testkit::model::{ModelScript, ModelServer, Reply};
use common::*;
use futures::StreamExt;
use real_cli::real_cli;

/// Wraps the CLI in `unshare FLAGS -- <cli> <args>`; `unshare` execs it.
fn unshare(
    flags: &'static [&'static str],
) -> impl Fn(ProcessSpec) -> Result<ProcessSpec, SpawnerError> + Send + Sync + 'static {
    move |cli: ProcessSpec| {
        let mut wrapped = cli.clone();
        wrapped.program = "unshare".into();
        wrapped.args = flags.iter().map(OsString::from).collect();
        wrapped.args.push("--".into());
        wrapped.args.push(cli.program.into_os_string());
        wrapped.args.extend(cli.args);
        Ok(wrapped)
    }
}

/// Whether `unshare FLAGS -- true` works here; says why not when it does
/// not. Under CI a machine that cannot run the test fails it: a
/// skip there would hide that the isolation was never exercised.
async fn unshare_permitted(flags: &[&str]) -> bool {
    let probe = tokio::process::Command::new("unshare")
        .args(flags)
        .args(["--", "true"])
        .stdin(std::process::Stdio::null())
        .output()
        .await;
    let why = match probe {
        Ok(out) if out.status.success() => return true,
        Ok(out) => format!(
            "unshare may not create namespaces here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => format!("unshare cannot run here: {e}"),
    };
    assert!(
        !under_ci(),
        "{why} (under CI this is a failure, not a skip)"
    );
    eprintln!("skipped: {why}");
    false
}

/// True under CI: `CI` set (to anything but `false` or empty), as CI
/// services do, or `CLAUDE_AGENT_REQUIRE_NAMESPACES=1`, as `.ci/run` does.
fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false")
        || std::env::var("CLAUDE_AGENT_REQUIRE_NAMESPACES").is_ok_and(|v| v == "1")
}

/// The namespace `kind` (`user`, `net`) of process `pid`.
fn namespace(pid: &str, kind: &str) -> String {
    std::fs::read_link(format!("/proc/{pid}/ns/{kind}"))
        .unwrap()
        .display()
        .to_string()
}

const ISOLATED: &[&str] = &["--user", "--map-root-user", "--net"];

#[tokio::test]
async fn the_fake_cli_runs_in_its_own_user_and_network_namespace() {
    if !unshare_permitted(ISOLATED).await {
        return;
    }
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("isolated"))
            .emit(result("success", "isolated")),
    );
    let client = fake
        .builder()
        .spawner(unshare(ISOLATED))
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    for kind in ["user", "net"] {
        assert_ne!(
            namespace(&pid.to_string(), kind),
            namespace("self", kind),
            "the CLI is in a {kind} namespace of its own"
        );
    }
    client.send("hi").await.unwrap();
    let mut kinds = Vec::new();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        kinds.push(m.unwrap().kind());
    }
    drop(turn);
    assert_eq!(kinds, ["assistant", "result/success"]);
    let report = client.shutdown().await;
    assert_eq!(report.escalation, Escalation::None, "{report:?}");
    fake.assert_gone(pid).await;
}

/// The scripted model listens on 127.0.0.1, so the network stays shared.
const USER_NS: &[&str] = &["--user", "--map-root-user", "--ipc", "--uts"];

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_real_cli_answers_from_its_own_user_namespace() {
    let Some(cli) = real_cli() else { return };
    if !unshare_permitted(USER_NS).await {
        return;
    }
    let server = ModelServer::start(ModelScript::new().reply(Reply::text("Hello, sandbox.")))
        .await
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut options = Options::new()
        .cli_path(cli)
        .cwd(cwd.path())
        .env("HOME", home.path());
    for (k, v) in server.env() {
        options = options.env(k, v);
    }
    let client = ClientBuilder::new(options)
        .spawner(unshare(USER_NS))
        .initialize_timeout(Duration::from_secs(30))
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    assert_ne!(
        namespace(&pid.to_string(), "user"),
        namespace("self", "user")
    );
    client.send("say hello").await.unwrap();
    let mut result = None;
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(Duration::from_secs(60), turn.next())
        .await
        .unwrap()
    {
        if let Message::Result(r) = m.unwrap() {
            result = Some(r);
        }
    }
    drop(turn);
    let r = result.expect("a result");
    assert_eq!(r.result.as_deref(), Some("Hello, sandbox."), "{r:?}");
    let report = client.shutdown().await;
    assert_eq!(report.escalation, Escalation::None, "{report:?}");
    let gone =
        tokio::task::spawn_blocking(move || claude_agent_testkit::wait_until_gone(pid, SOON))
            .await
            .unwrap();
    assert!(gone, "the CLI {pid} still runs");
}
