//! Faults before the session is up: typed errors, no timeout waits where
//! the cause is known, and nothing left running.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use claude_agent_actors::channel::ChannelError;
use claude_agent_actors::{SessionConfig, StartError, live_sessions};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

#[tokio::test]
async fn missing_cli_is_a_typed_error_before_spawn() {
    let spec = claude_agent_actors::process::ProcessSpec::new("/nonexistent/bin/claude");
    let err = start_err(SessionConfig::subprocess(spec)).await;
    match err {
        StartError::Channel(ChannelError::NotFound { path }) => {
            assert!(path.ends_with("claude"));
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn missing_cwd_is_a_typed_error_before_spawn() {
    let fx = install(Script::new().expect_initialize());
    let mut spec = fx.spec();
    let missing = fx.dir.path().join("no-such-dir");
    spec.cwd = Some(missing.clone());
    let err = start_err(SessionConfig::subprocess(spec)).await;
    assert!(
        matches!(&err, StartError::Channel(ChannelError::CwdMissing { path }) if *path == missing),
        "{err:?}"
    );
    assert!(report(&err).contains("no-such-dir"), "{}", report(&err));
    assert_eq!(fx.cli.pid(), None, "nothing was spawned");
}

async fn start_err(cfg: SessionConfig) -> StartError {
    claude_agent_actors::Session::start(cfg)
        .await
        .expect_err("start must fail")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exit_before_initialize_reply_is_reported_at_once_with_code_and_stderr() {
    let fx = install(Script::new().stderr("fatal: config is broken").exit(3));
    let cfg = fx.config().initialize_timeout(Duration::from_secs(60));
    let t0 = Instant::now();
    let err = fx.start_with(cfg).await.err().unwrap();
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "no timeout wait: {:?}",
        t0.elapsed()
    );
    match &err {
        StartError::ExitedBeforeInitialize { exit, stderr_tail } => {
            assert_eq!(exit.unwrap().code, Some(3));
            assert!(
                stderr_tail.contains("fatal: config is broken"),
                "{stderr_tail:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("exit code 3"), "{err}");
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_before_initialize_reply_reports_the_signal() {
    let fx = install(Script::new().stderr("about to crash").crash("SEGV"));
    let err = fx
        .start_with(fx.config())
        .await
        .err()
        .unwrap_or_else(|| panic!("must fail"));
    match err {
        StartError::ExitedBeforeInitialize { exit, stderr_tail } => {
            assert_eq!(exit.unwrap().signal, Some(libc_sigsegv()));
            assert!(stderr_tail.contains("about to crash"));
        }
        other => panic!("{other:?}"),
    }
    assert_gone(fx.pid());
}

fn libc_sigsegv() -> i32 {
    11
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn never_answering_initialize_times_out_and_the_cli_is_killed() {
    let fx = install(
        Script::new()
            .step(json!({"op":"expect","type":"control_request","subtype":"initialize","no_reply":true}))
            .stderr("thinking about it")
            .hang(),
    );
    let timeout = Duration::from_millis(500);
    let t0 = Instant::now();
    let err = fx
        .start_with(fx.config().initialize_timeout(timeout))
        .await
        .err()
        .unwrap();
    let took = t0.elapsed();
    match &err {
        StartError::InitializeTimeout { after, stderr_tail } => {
            assert_eq!(*after, timeout);
            assert!(stderr_tail.contains("thinking about it"), "{stderr_tail:?}");
        }
        other => panic!("{other:?}"),
    }
    // timeout + grace (it ignores EOF while hanging) + SIGTERM ends it.
    assert!(
        took >= timeout && took < timeout + GRACE + TERM_GRACE + Duration::from_secs(2),
        "{took:?}"
    );
    let pid = fx.pid();
    assert_gone(pid);
    assert!(live_sessions().iter().all(|s| s.pid != Some(pid)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_error_reply_is_typed() {
    let fx = install(Script::new().step(
        json!({"op":"expect","type":"control_request","subtype":"initialize","reply_error":"unsupported hooks"}),
    ));
    let err = fx
        .start_with(fx.config())
        .await
        .err()
        .unwrap_or_else(|| panic!("must fail"));
    assert!(
        matches!(&err, StartError::InitializeRejected { message } if message == "unsupported hooks"),
        "{err:?}"
    );
    assert_gone(fx.pid());
}

#[tokio::test]
async fn initialize_timeout_honours_the_session_env() {
    let fx = install(Script::new().expect_initialize());
    let mut spec = fx.spec();
    spec.env
        .push(("CLAUDE_CODE_STREAM_CLOSE_TIMEOUT".into(), "90000".into()));
    let cfg = SessionConfig::subprocess(spec).initialize_timeout(Duration::from_secs(1));
    assert_eq!(
        cfg.session_stream_close_timeout,
        Some(Duration::from_secs(90))
    );
}
