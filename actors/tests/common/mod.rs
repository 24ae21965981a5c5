//! Shared helpers for the fault-table tests: run the fake CLI under a
//! session with short grace values, and check nothing is left running.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use claude_agent_actors::process::ProcessSpec;
use claude_agent_actors::{Frame, FrameStream, Session, SessionConfig, SessionEvent, StartError};
use claude_agent_testkit::{
    FakeCli, ProcState, Script, group_members, process_state, wait_until_gone,
};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::broadcast;

pub const GRACE: Duration = Duration::from_millis(300);
pub const TERM_GRACE: Duration = Duration::from_millis(300);
/// Generous bound for anything that should be quick (CI machines are slow).
pub const SOON: Duration = Duration::from_secs(10);

pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub cli: FakeCli,
}

pub fn install(script: Script) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let cli = script.install(dir.path()).unwrap();
    Fixture { dir, cli }
}

impl Fixture {
    pub fn spec(&self) -> ProcessSpec {
        let mut spec = ProcessSpec::new(&self.cli.program);
        spec.args = [
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json",
        ]
        .iter()
        .map(Into::into)
        .collect();
        spec.env = self
            .cli
            .env
            .iter()
            .map(|(k, v)| (k.into(), v.into()))
            .collect();
        spec
    }

    /// A config with short grace values.
    pub fn config(&self) -> SessionConfig {
        SessionConfig::subprocess(self.spec())
            .grace(GRACE)
            .term_grace(TERM_GRACE)
            .initialize_timeout(SOON)
            .control_timeout(SOON)
    }

    pub async fn start(&self) -> (Session, FrameStream) {
        self.start_with(self.config()).await.unwrap()
    }

    pub async fn start_with(
        &self,
        cfg: SessionConfig,
    ) -> Result<(Session, FrameStream), StartError> {
        tokio::time::timeout(Duration::from_secs(30), Session::start(cfg))
            .await
            .expect("start hung")
    }

    /// The pid the fake CLI wrote at start.
    pub fn pid(&self) -> u32 {
        let deadline = Instant::now() + SOON;
        loop {
            if let Some(pid) = self.cli.pid() {
                return pid;
            }
            assert!(Instant::now() < deadline, "fake CLI never wrote its pid");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn recorded(&self) -> Vec<Value> {
        self.cli.recorded_lines()
    }

    /// Waits until the fake CLI has recorded a line matching `pred`.
    pub async fn wait_recorded(&self, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + SOON;
        loop {
            if let Some(v) = self.recorded().into_iter().find(|v| pred(v)) {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "expected line never recorded: {:?}",
                self.recorded()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// The process and its whole group are gone (exited and reaped).
pub fn assert_gone(pid: u32) {
    assert!(
        wait_until_gone(pid, SOON),
        "pid {pid} still {:?}",
        process_state(pid)
    );
    let deadline = Instant::now() + SOON;
    while !group_members(pid).is_empty() {
        assert!(
            Instant::now() < deadline,
            "group {pid} still has {:?}",
            group_members(pid)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

pub fn assert_running(pid: u32) {
    assert_eq!(process_state(pid), ProcState::Running, "pid {pid}");
}

pub fn user(text: &str) -> Value {
    json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":"default"})
}

/// Next frame, with a deadline.
pub async fn next_frame(
    stream: &mut FrameStream,
) -> Option<Result<Frame, claude_agent_actors::SessionError>> {
    tokio::time::timeout(SOON, stream.next())
        .await
        .expect("no frame in time")
}

/// Frames up to and including the next `result`.
pub async fn read_turn(stream: &mut FrameStream) -> Vec<Frame> {
    let mut out = vec![];
    loop {
        let f = next_frame(stream)
            .await
            .expect("stream ended")
            .expect("frame error");
        let done = f.kind == "result";
        out.push(f);
        if done {
            return out;
        }
    }
}

/// Waits for an event matching `pred`, with a deadline.
pub async fn wait_event(
    rx: &mut broadcast::Receiver<SessionEvent>,
    pred: impl Fn(&SessionEvent) -> bool,
) -> SessionEvent {
    let deadline = tokio::time::Instant::now() + SOON;
    loop {
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Ok(e)) if pred(&e) => return e,
            Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            Ok(Err(e)) => panic!("event channel closed: {e}"),
            Err(_) => panic!("expected event never came"),
        }
    }
}

/// Live tokio tasks of the current runtime.
pub fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

/// Waits until the runtime is back to `baseline` tasks.
pub async fn assert_tasks_back_to(baseline: usize) {
    let deadline = Instant::now() + SOON;
    loop {
        let n = alive_tasks();
        if n <= baseline {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{n} tasks alive, expected {baseline}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Starts `session.shutdown()` on a task and returns once the shutdown has
/// begun (its `ShutdownStarted` event), with the task and the events
/// receiver (subscribed before the start, so nothing after it is missed).
pub async fn begin_shutdown(
    session: &Session,
) -> (
    tokio::task::JoinHandle<claude_agent_actors::ShutdownReport>,
    broadcast::Receiver<SessionEvent>,
) {
    let mut events = session.subscribe_events();
    let closing = tokio::spawn({
        let s = session.clone();
        async move { s.shutdown().await }
    });
    wait_event(&mut events, |e| {
        matches!(
            e,
            SessionEvent::Lifecycle(claude_agent_actors::LifecycleEvent::ShutdownStarted { .. })
        )
    })
    .await;
    (closing, events)
}

/// An error and its causes, `: `-joined: what a report prints (each level
/// says only its own part, so the detail may be in a cause).
pub fn report(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
