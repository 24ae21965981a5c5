//! Host crash isolation and restarts: one session's crash or panic never
//! touches another; a crashed session restarts with `--resume` of its
//! session id, within the policy's budget.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent::host::{Backoff, Failure, HostConfig, HostEvent, RestartPolicy};
use claude_agent::protocol::PermissionRequest;
use claude_agent::{client::ClientBuilder, host::Host};
use claude_agent_testkit::Script;
use common::{SOON, fake, quick_builder, result, resuming_cli};
use serde_json::json;

fn crash_mid_turn(session_id: &str) -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(
            json!({"type": "system", "subtype": "init", "session_id": session_id,
                     "cwd": "/", "tools": [], "model": "fake", "permissionMode": "default",
                     "apiKeySource": "none", "uuid": "u-init"}),
        )
        .crash("SEGV")
}

#[tokio::test]
async fn a_crash_and_a_panicking_callback_leave_the_other_sessions_alone() {
    let crasher = fake(crash_mid_turn("sess-crash"));
    let panicker = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type": "control_request", "request_id": "p1",
                "request": {"subtype": "can_use_tool", "tool_name": "Bash",
                            "input": {"command": "ls"}}}))
            .expect("control_response", None)
            .emit(result("success", "after the panic")),
    );
    let healthy = fake(Script::new().expect_initialize().loop_turns("fine"));
    let host = Host::start(HostConfig::new()).await.unwrap();
    let panicky = panicker
        .builder()
        .can_use_tool(|_req: PermissionRequest, _ctx| async move {
            panic!("a callback bug");
            #[allow(unreachable_code)]
            Ok(claude_agent::callbacks::allow())
        });
    let a = host.submit("t1", crasher.builder(), "go").await.unwrap();
    let b = host.submit("t2", panicky, "go").await.unwrap();
    let c: Vec<_> =
        futures::future::join_all((0..5).map(|_| host.submit("t3", healthy.builder(), "go")))
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();

    let out = a.outcome().await;
    match &out.failure {
        Some(Failure::Crashed { exit, .. }) => {
            assert_eq!(exit.unwrap().signal, Some(libc::SIGSEGV));
        }
        other => panic!("expected a crash, got {other:?}"),
    }
    assert_eq!(out.restarts, 0);
    // The panicking callback answered the CLI with an error; the turn went on.
    let out = b.outcome().await;
    assert!(out.is_success(), "{:?}", out.failure);
    let reply = panicker.reply_to("p1").expect("the CLI got an answer");
    assert_eq!(reply["response"]["subtype"], "error", "{reply}");
    for h in &c {
        let out = h.outcome().await;
        assert!(out.is_success(), "{:?}", out.failure);
        assert_eq!(out.result.as_ref().unwrap().result.as_deref(), Some("fine"));
    }
    let m = host.metrics().await.unwrap();
    assert_eq!((m.completed, m.failed), (6, 1), "{m:?}");
    assert_eq!(m.failed_by_cause["crashed"], 1);
}

#[tokio::test]
async fn a_crashed_job_restarts_with_resume_and_completes() {
    let dir = tempfile::tempdir().unwrap();
    let (options, first, resumed) = resuming_cli(
        dir.path(),
        &crash_mid_turn("sess-A"),
        &Script::new().expect_initialize().turn("resumed fine"),
    );
    let host = Host::start(
        HostConfig::new().restart(
            RestartPolicy::on_crash(3, Duration::from_secs(60))
                .with_backoff(Backoff::fixed(Duration::from_millis(20))),
        ),
    )
    .await
    .unwrap();
    let mut events = host.events();
    let builder = quick_builder(options);
    let job = host.submit("t", builder, "do it").await.unwrap();
    let out = tokio::time::timeout(SOON, job.outcome()).await.unwrap();
    assert!(out.is_success(), "{:?}", out.failure);
    assert_eq!(out.restarts, 1);
    assert_eq!(
        out.result.as_ref().unwrap().result.as_deref(),
        Some("resumed fine")
    );
    // The first CLI got the prompt and crashed; the second was started
    // with --resume of the crashed session's id and got the prompt again.
    assert!(first.recorded_lines().iter().any(|l| l["type"] == "user"));
    let argv = resumed.recorded_argv().unwrap();
    let at = argv.iter().position(|a| a.starts_with("--resume")).unwrap();
    assert!(
        argv[at].ends_with("sess-A") || argv.get(at + 1).map(String::as_str) == Some("sess-A"),
        "{argv:?}"
    );
    assert!(resumed.recorded_lines().iter().any(|l| l["type"] == "user"));
    let mut seen = Vec::new();
    while let Ok(ev) = events.try_recv() {
        seen.push(ev);
    }
    let restarting = seen
        .iter()
        .find_map(|e| match e {
            HostEvent::Restarting {
                attempt,
                after,
                resume,
                ..
            } => Some((*attempt, *after, resume.clone())),
            _ => None,
        })
        .expect("a Restarting event");
    assert_eq!(
        restarting,
        (1, Duration::from_millis(20), Some("sess-A".to_owned()))
    );
    let starts = seen
        .iter()
        .filter(|e| matches!(e, HostEvent::Started { .. }))
        .count();
    assert_eq!(starts, 2);
    assert_eq!(host.metrics().await.unwrap().restarts, 1);
}

#[tokio::test]
async fn restarts_stop_at_the_policy_budget() {
    let always = fake(crash_mid_turn("sess-B"));
    let host = Host::start(
        HostConfig::new().restart(
            RestartPolicy::on_crash(2, Duration::from_secs(60))
                .with_backoff(Backoff::fixed(Duration::from_millis(5))),
        ),
    )
    .await
    .unwrap();
    let job = host.submit("t", always.builder(), "go").await.unwrap();
    let out = tokio::time::timeout(SOON, job.outcome()).await.unwrap();
    assert!(
        matches!(out.failure, Some(Failure::Crashed { .. })),
        "{:?}",
        out.failure
    );
    assert_eq!(out.restarts, 2);
    let m = host.metrics().await.unwrap();
    assert_eq!(m.restarts, 2);
    assert_eq!(m.by_tenant["t"].restarts, 2);
    // Three CLIs ran, each got the prompt.
    let prompts = always
        .received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .count();
    assert_eq!(prompts, 3);
}

#[tokio::test]
async fn an_interactive_session_restarts_and_hands_out_the_new_client() {
    let dir = tempfile::tempdir().unwrap();
    let first = Script::new()
        .expect_initialize()
        .emit(
            json!({"type": "system", "subtype": "init", "session_id": "sess-C",
                     "cwd": "/", "tools": [], "model": "fake", "permissionMode": "default",
                     "apiKeySource": "none", "uuid": "u-init"}),
        )
        .expect("user", None)
        .exit(3);
    let (options, _a, resumed) = resuming_cli(
        dir.path(),
        &first,
        &Script::new().expect_initialize().loop_turns("again"),
    );
    let host = Host::start(
        HostConfig::new().restart(
            RestartPolicy::on_crash(1, Duration::from_secs(60))
                .with_backoff(Backoff::fixed(Duration::from_millis(1))),
        ),
    )
    .await
    .unwrap();
    let h = host
        .spawn("t", ClientBuilder::new(options).initialize_timeout(SOON))
        .await
        .unwrap();
    let mut events = host.events();
    let c1 = h.client().await.unwrap();
    c1.send("hello").await.unwrap();
    // The CLI exits 3: a new one comes up, resumed, and the handle hands it out.
    tokio::time::timeout(SOON, async {
        loop {
            if let HostEvent::Started { attempt: 1, .. } = events.recv().await.unwrap() {
                return;
            }
        }
    })
    .await
    .expect("restarted");
    let c2 = h.client().await.unwrap();
    assert_ne!(c2.pid(), c1.pid());
    c2.send("again?").await.unwrap();
    assert!(
        resumed
            .recorded_argv()
            .unwrap()
            .iter()
            .any(|a| a.contains("sess-C"))
    );
    c2.shutdown().await;
    let out = h.outcome().await;
    assert!(out.is_success(), "{:?}", out.failure);
    assert_eq!(out.restarts, 1);
}
