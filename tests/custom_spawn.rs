//! A user's `Spawner` on `ClientBuilder`: the fake CLI runs under a real
//! `/bin/sh` wrapper, for a `Client`, `query()` and a `Host` job. Typed
//! messages, callbacks and the shutdown ladder keep working, whether the
//! wrapper execs the CLI or runs it as its child.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod spawn_common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
use claude_agent::host::{DrainOptions, HostConfig};
use claude_agent::protocol::PermissionRequest;
use claude_agent::runtime::channel::SpawnerError;
use claude_agent::runtime::process::ProcessSpec;
use claude_agent::{
    Error, host::Host, runtime::Escalation, runtime::StartError, runtime::StepReason,
    runtime::channel::ChannelError,
};
use claude_agent_testkit::{Script, child_pids};
use common::*;
use futures::StreamExt;
use serde_json::json;
use spawn_common::*;

/// After the first prompt: a permission prompt, then a reply and a result.
fn asks_then_answers() -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(cli_request(
            "p1",
            json!({"subtype": "can_use_tool", "tool_name": "Bash",
                   "input": {"command": "ls"}, "tool_use_id": "toolu_p1"}),
        ))
        .step(expect_reply("p1"))
        .emit(assistant("from the sandbox"))
        .emit(result("success", "done"))
}

#[tokio::test]
async fn an_exec_wrapper_runs_the_cli_with_messages_callbacks_and_a_clean_ladder() {
    let fake = fake(asks_then_answers());
    let marker = fake.dir.path().join("wrapper.pid");
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let client = fake
        .builder()
        .spawner(exec_wrapper(marker.clone()))
        .can_use_tool(move |_req: PermissionRequest, _ctx: PermissionContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move { Ok::<_, CallbackError>(allow()) }
        })
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    assert_eq!(
        wrapper_pid(&marker),
        Some(pid),
        "the wrapper ran and became the CLI"
    );

    client.send("list files").await.unwrap();
    let mut kinds = Vec::new();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        kinds.push(m.unwrap().kind());
    }
    drop(turn);
    assert_eq!(kinds, ["assistant", "result/success"]);
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let reply = fake
        .reply_to("p1")
        .expect("the callback's answer reached the CLI");
    assert_eq!(reply["response"]["response"]["behavior"], "allow");

    let report = client.shutdown().await;
    assert_eq!(report.escalation, Escalation::None, "{report:?}");
    assert!(report.steps.is_empty(), "{:?}", report.steps);
    assert_eq!(report.exit.and_then(|e| e.code), Some(0));
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn a_wrapper_that_keeps_the_cli_as_its_child_is_still_ended_by_the_ladder() {
    // The CLI ignores SIGTERM and never exits on EOF: the wrapper dies of
    // the group's SIGTERM, and the sweep of the group kills the CLI.
    let fake = fake(
        Script::new()
            .ignore_signal("TERM")
            .expect_initialize()
            .hang(),
    );
    let marker = fake.dir.path().join("wrapper.pid");
    let client = fake
        .builder()
        .spawner(child_wrapper(marker.clone()))
        .connect()
        .await
        .unwrap();
    let wrapper = client.pid().unwrap();
    assert_eq!(wrapper_pid(&marker), Some(wrapper));
    let cli = child_pids(wrapper);
    assert_eq!(cli.len(), 1, "the CLI runs as the wrapper's only child");
    let cli = cli[0];

    let report = client.shutdown().await;
    let steps: Vec<_> = report.steps.iter().map(|s| (s.to, s.why)).collect();
    assert_eq!(
        steps,
        [
            (Escalation::Term, StepReason::GraceElapsed),
            (Escalation::Kill, StepReason::Leftovers)
        ],
        "{report:?}"
    );
    assert_eq!(
        report.exit.and_then(|e| e.signal),
        Some(15),
        "the wrapper died of SIGTERM"
    );
    assert_eq!(report.escalation, Escalation::Term);
    fake.assert_gone(wrapper).await;
    fake.assert_gone(cli).await;
    assert!(
        wrapper_notes(&marker).is_empty(),
        "the wrapper never got to see the CLI exit"
    );
}

#[tokio::test]
async fn a_wrapper_that_keeps_the_cli_as_its_child_exits_cleanly_on_eof() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let marker = fake.dir.path().join("wrapper.pid");
    let client = fake
        .builder()
        .spawner(child_wrapper(marker.clone()))
        .connect()
        .await
        .unwrap();
    let wrapper = client.pid().unwrap();
    let report = client.shutdown().await;
    assert_eq!(report.escalation, Escalation::None, "{report:?}");
    assert_eq!(report.exit.and_then(|e| e.code), Some(0));
    assert_eq!(wrapper_notes(&marker), ["cli exited 0"]);
    fake.assert_gone(wrapper).await;
}

#[tokio::test]
async fn a_query_runs_through_the_spawner() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("hi"))
            .emit(result("success", "hi")),
    );
    let marker = fake.dir.path().join("wrapper.pid");
    let mut q = fake
        .builder()
        .spawner(exec_wrapper(marker.clone()))
        .query("hello");
    let mut kinds = Vec::new();
    while let Some(m) = tokio::time::timeout(SOON, q.next()).await.unwrap() {
        kinds.push(m.unwrap().kind());
    }
    assert_eq!(kinds, ["assistant", "result/success"]);
    let pid = wrapper_pid(&marker).expect("the wrapper ran");
    let report = q.shutdown_report().expect("a report after the end");
    assert_eq!(report.escalation, Escalation::None);
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn a_host_job_runs_through_the_spawner() {
    let fake = fake(Script::new().expect_initialize().loop_turns("done"));
    let marker = fake.dir.path().join("wrapper.pid");
    let host = Host::start(HostConfig::new()).await.unwrap();
    let builder = fake.builder().spawner(exec_wrapper(marker.clone()));
    let job = host.submit("tenant-a", builder, "hi").await.unwrap();
    let out = job.outcome().await;
    assert!(out.is_success(), "{:?}", out.failure);
    assert_eq!(out.result.as_ref().unwrap().result.as_deref(), Some("done"));
    assert_eq!(
        out.report.as_ref().map(|r| r.escalation),
        Some(Escalation::None)
    );
    let pid = wrapper_pid(&marker).expect("the wrapper ran");
    fake.assert_gone(pid).await;
    host.drain(DrainOptions::new(SOON)).await;
}

#[tokio::test]
async fn a_spawner_that_refuses_fails_the_connect_with_its_reason() {
    let fake = fake(Script::new().expect_initialize());
    let err = fake
        .builder()
        .spawner(|_spec: ProcessSpec| -> Result<ProcessSpec, SpawnerError> {
            Err(SpawnerError::new("tenant has no sandbox profile"))
        })
        .connect()
        .await
        .unwrap_err();
    match &err {
        Error::Start(StartError::Channel(ChannelError::Spawner(e))) => {
            assert_eq!(e.to_string(), "tenant has no sandbox profile");
        }
        other => panic!("unexpected error: {other}"),
    }
    assert!(
        format!("{err:?}").contains("tenant has no sandbox profile"),
        "{err}"
    );
}
