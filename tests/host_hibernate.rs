//! Host hibernation: an idle interactive session's CLI is shut down (really
//! gone) while its handle stays valid; the next send starts the CLI again
//! with `--resume` of the same session id, through admission. A turn or a
//! callback in flight holds hibernation off; a revival that cannot start is
//! a typed error; a drain ends hibernated sessions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent::host::{
    DrainOptions, Failure, HostConfig, HostError, HostEvent, SessionHandle, SessionStatus,
};
use claude_agent::protocol::{Message, PermissionRequest};
use claude_agent::{client::Client, host::Host};
use claude_agent_testkit::{Script, wait_until_gone};
use common::{SOON, cli_request, expect_reply, fake, resuming_cli};
use futures::StreamExt;
use serde_json::json;
use tokio::sync::broadcast;

const SESSION: &str = "sess-hibernate";
const AFTER: Duration = Duration::from_millis(150);

/// One turn answered with `text`, reporting `SESSION` as its session id.
fn turn(text: &str) -> serde_json::Value {
    json!({"op": "turn", "text": text, "session_id": SESSION})
}

/// Reads one turn to its result and returns the result text.
async fn answer(client: &Client) -> String {
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        if let Message::Result(r) = m.unwrap() {
            return r.result.clone().unwrap_or_default();
        }
    }
    panic!("the turn ended without a result");
}

/// The next event `pick` accepts, within `SOON`.
async fn next_event<T>(
    events: &mut broadcast::Receiver<HostEvent>,
    pick: impl Fn(&HostEvent) -> Option<T>,
) -> T {
    tokio::time::timeout(SOON, async {
        loop {
            let ev = events.recv().await.unwrap();
            if let Some(t) = pick(&ev) {
                return t;
            }
        }
    })
    .await
    .expect("the event within the deadline")
}

fn hibernated(ev: &HostEvent) -> Option<(Option<u32>, Option<String>)> {
    match ev {
        HostEvent::Hibernated {
            pid, session_id, ..
        } => Some((*pid, session_id.clone())),
        _ => None,
    }
}

async fn assert_gone(pid: u32) {
    let gone = tokio::task::spawn_blocking(move || wait_until_gone(pid, SOON))
        .await
        .unwrap();
    assert!(gone, "CLI {pid} still running");
}

#[tokio::test]
async fn an_idle_session_hibernates_and_the_next_send_revives_it_with_resume() {
    let dir = tempfile::tempdir().unwrap();
    let (options, first, resumed) = resuming_cli(
        dir.path(),
        &Script::new().expect_initialize().step(turn("first answer")),
        &Script::new()
            .expect_initialize()
            .step(turn("after the revival")),
    );
    // One slot: the hibernated session must give it up for another.
    let host = Host::start(HostConfig::new().max_sessions(1).hibernate_after(AFTER))
        .await
        .unwrap();
    let mut events = host.events();
    let builder = quick_builder(options);
    let h = host.spawn("t", builder).await.unwrap();
    let client = h.send("one").await.unwrap();
    assert_eq!(answer(&client).await, "first answer");
    let pid = client.pid().unwrap();
    drop(client);

    let (hib_pid, sid) = next_event(&mut events, hibernated).await;
    assert_eq!((hib_pid, sid.as_deref()), (Some(pid), Some(SESSION)));
    assert_gone(pid).await;
    assert!(
        matches!(h.status(), SessionStatus::Hibernated { ref session_id, hibernations: 1 }
            if session_id.as_deref() == Some(SESSION)),
        "{:?}",
        h.status()
    );
    let m = host.metrics().await.unwrap();
    assert_eq!(
        (m.logical, m.live, m.running, m.hibernated, m.hibernations),
        (1, 0, 0, 1, 1),
        "{m:?}"
    );
    // The freed slot admits another session while the first sleeps.
    let other_cli = fake(Script::new().expect_initialize().loop_turns("x"));
    let other = host.spawn("t", other_cli.builder()).await.unwrap();
    other.client().await.unwrap();
    other.cancel();
    other.outcome().await;

    let client = h.send("two").await.unwrap();
    assert_eq!(answer(&client).await, "after the revival");
    assert_eq!(client.session_id().as_deref(), Some(SESSION));
    assert_ne!(client.pid(), Some(pid));
    let argv = resumed.recorded_argv().expect("the CLI was started again");
    assert!(
        argv.iter().any(|a| *a == format!("--resume={SESSION}")),
        "{argv:?}"
    );
    assert!(
        !first
            .recorded_argv()
            .unwrap()
            .iter()
            .any(|a| a.starts_with("--resume")),
    );
    let (revived_pid, revived_sid) = next_event(&mut events, |ev| match ev {
        HostEvent::Revived {
            pid, session_id, ..
        } => Some((*pid, session_id.clone())),
        _ => None,
    })
    .await;
    assert_eq!(revived_pid, client.pid());
    assert_eq!(revived_sid.as_deref(), Some(SESSION));
    let m = host.metrics().await.unwrap();
    assert_eq!((m.revivals, m.hibernated, m.live), (1, 0, 1), "{m:?}");
    let new_pid = client.pid().unwrap();
    drop(client);
    host.drain(DrainOptions::new(SOON)).await;
    assert_gone(new_pid).await;
}

#[tokio::test]
async fn a_running_turn_or_a_pending_callback_holds_hibernation_off() {
    // The turn takes several `AFTER`s; then, with no turn open, the CLI asks
    // a permission question the callback holds until released.
    let cli = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(
                json!({"type": "system", "subtype": "init", "session_id": SESSION,
                "cwd": "/", "tools": [], "model": "fake", "permissionMode": "default",
                "apiKeySource": "none", "uuid": "u-init"}),
            )
            .sleep_ms(4 * AFTER.as_millis() as u64)
            .emit(common::result("success", "slow answer"))
            .emit(cli_request(
                "p1",
                json!({"subtype": "can_use_tool", "tool_name": "Bash", "input": {}}),
            ))
            .step(expect_reply("p1")),
    );
    let (entered_tx, mut entered) = tokio::sync::mpsc::channel(1);
    let release = std::sync::Arc::new(tokio::sync::Notify::new());
    let gate = release.clone();
    let builder = cli
        .builder()
        .can_use_tool(move |_req: PermissionRequest, _ctx| {
            let (entered, gate) = (entered_tx.clone(), gate.clone());
            async move {
                let _ = entered.send(()).await;
                gate.notified().await;
                Ok(claude_agent::callbacks::allow())
            }
        });
    let host = Host::start(HostConfig::new().hibernate_after(AFTER))
        .await
        .unwrap();
    let mut events = host.events();
    let h = host.spawn("t", builder).await.unwrap();
    let client = h.send("slow").await.unwrap();
    assert_eq!(answer(&client).await, "slow answer");
    tokio::time::timeout(SOON, entered.recv()).await.unwrap();
    // The callback is in flight: no hibernation within many `AFTER`s.
    let early = tokio::time::timeout(8 * AFTER, next_event(&mut events, hibernated)).await;
    assert!(early.is_err(), "hibernated under a pending callback");
    assert!(matches!(h.status(), SessionStatus::Running { .. }));
    release.notify_one();
    // Answered: now it hibernates, and the turn before it had not.
    next_event(&mut events, hibernated).await;
    assert!(cli.reply_to("p1").is_some());
    let m = host.metrics().await.unwrap();
    assert_eq!(m.hibernations, 1, "{m:?}");
    host.drain(DrainOptions::new(SOON)).await;
}

#[tokio::test]
async fn a_revival_that_cannot_start_fails_with_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    // The resumed CLI no longer finds its session and exits at once.
    let (options, _first, _resumed) = resuming_cli(
        dir.path(),
        &Script::new().expect_initialize().step(turn("first")),
        &Script::new()
            .stderr("No conversation found with session ID")
            .exit(1),
    );
    let host = Host::start(HostConfig::new().hibernate_after(AFTER))
        .await
        .unwrap();
    let mut events = host.events();
    let builder = quick_builder(options);
    let h = host.spawn("t", builder).await.unwrap();
    let client = h.send("one").await.unwrap();
    assert_eq!(answer(&client).await, "first");
    drop(client);
    next_event(&mut events, hibernated).await;

    let err = h.send("two").await.unwrap_err();
    match &err {
        HostError::Ended {
            failure: Some(f @ Failure::Revive { session_id, .. }),
            ..
        } => {
            assert_eq!(session_id.as_deref(), Some(SESSION));
            // The start's own error stays reachable.
            assert!(std::error::Error::source(f).is_some());
        }
        other => panic!("expected a revive failure, got {other:?}"),
    }
    let out = h.outcome().await;
    assert_eq!(
        out.failure.as_ref().map(Failure::cause_name),
        Some("revive")
    );
    let m = host.metrics().await.unwrap();
    assert_eq!((m.logical, m.live, m.hibernated), (0, 0, 0), "{m:?}");
    assert_eq!(m.failed_by_cause["revive"], 1, "{m:?}");
}

async fn hibernate_one(h: &SessionHandle, events: &mut broadcast::Receiver<HostEvent>) -> u32 {
    let client = h.send("one").await.unwrap();
    answer(&client).await;
    let pid = client.pid().unwrap();
    drop(client);
    next_event(events, hibernated).await;
    pid
}

#[tokio::test]
async fn drain_ends_hibernated_sessions_with_nothing_to_kill() {
    let sleeper = fake(Script::new().expect_initialize().step(turn("zz")));
    // Never reports a session id: it could not be resumed, so it stays live.
    let awake = fake(Script::new().expect_initialize().hang());
    let host = Host::start(HostConfig::new().hibernate_after(AFTER))
        .await
        .unwrap();
    let mut events = host.events();
    let a = host.spawn("t", sleeper.builder()).await.unwrap();
    let pid = hibernate_one(&a, &mut events).await;
    assert_gone(pid).await;
    let b = host.spawn("t", awake.builder()).await.unwrap();
    let b_pid = b.client().await.unwrap().pid().unwrap();

    let report = host.drain(DrainOptions::new(SOON)).await;
    assert_eq!((report.running, report.hibernated), (2, 1), "{report:?}");
    assert_eq!(report.by_cause.get("drained"), Some(&2), "{report:?}");
    assert_eq!(report.unresolved, 0);
    assert_eq!(
        a.outcome().await.failure.as_ref().map(Failure::cause_name),
        Some("drained")
    );
    assert!(matches!(a.status(), SessionStatus::Ended(_)));
    assert_gone(b_pid).await;
    let m = host.metrics().await.unwrap();
    assert_eq!((m.logical, m.live, m.hibernated), (0, 0, 0), "{m:?}");
    // A hibernated session's handle reports the end, it does not revive.
    assert!(matches!(
        a.send("again").await,
        Err(HostError::Ended { .. })
    ));
}

/// A builder with short shutdown graces, for sessions that hibernate.
fn quick_builder(options: claude_agent::options::Options) -> claude_agent::client::ClientBuilder {
    claude_agent::client::ClientBuilder::new(options)
        .grace(Duration::from_millis(300))
        .term_grace(Duration::from_millis(300))
        .initialize_timeout(SOON)
}
