//! A CLI that stops reading its stdin: the host holds at most the stdin
//! queue's cap, `send` fails with a typed error, a control reply is still
//! queued (its own lane) and is written before the user frames queued ahead
//! of it, and the session shuts down in order with no process left.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent_actors::{
    CancellationToken, HandlerError, InboundHandler, InboundRequest, SessionError,
};
use claude_agent_testkit::Script;
use common::*;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// Per lane.
const CAP: usize = 64 * 1024;
const FRAME_TEXT: usize = 16 * 1024;

/// Allows once the test says so.
struct Gate(Mutex<Option<oneshot::Receiver<()>>>);

impl InboundHandler for Gate {
    fn handle(
        &self,
        _req: InboundRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let open = self.0.lock().unwrap().take();
        async move {
            if let Some(open) = open {
                let _ = open.await;
            }
            Ok(json!({"behavior": "allow", "updatedInput": {}}))
        }
        .boxed()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cli_not_reading_stdin_bounds_the_host_and_fails_send_typed() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let fx = install(
        Script::new()
            .expect_initialize()
            .emit(json!({"type":"control_request","request_id":"perm-1",
                "request":{"subtype":"can_use_tool","tool_name":"Bash","input":{}}}))
            .step(json!({"op":"wait_file","path":go,"timeout_ms":30_000}))
            .step(
                json!({"op":"expect","type":"control_response","request_id":"perm-1",
                "timeout_ms":10_000}),
            ),
    );
    let (open, gate) = oneshot::channel();
    let cfg = fx
        .config()
        .max_stdin_bytes(CAP)
        .send_timeout(Duration::from_millis(300))
        .inbound(Arc::new(Gate(Mutex::new(Some(gate)))));
    let (session, _stream) = fx.start_with(cfg).await.unwrap();
    let pid = fx.pid();

    // Send until the host refuses: the pipe fills, then the user lane.
    let frame = user(&"x".repeat(FRAME_TEXT));
    let (mut written, mut queued, mut refused) = (0, 0, 0);
    for _ in 0..64 {
        match session.send(&frame).await {
            Ok(()) => written += 1,
            Err(SessionError::StdinStalled { queued: true, .. }) => queued += 1,
            Err(SessionError::StdinStalled { queued: false, .. }) => {
                refused += 1;
                if refused == 3 {
                    break;
                }
            }
            Err(e) => panic!("unexpected error: {e}"),
        }
    }
    assert_eq!(refused, 3, "sends never refused: {:?}", session.stats());
    assert!(queued > 0, "nothing was left queued");
    let held = session.stats().stdin_queued_bytes;
    assert!(
        held > 0 && held <= CAP as u64,
        "held {held} bytes, cap {CAP}"
    );

    // More sends change nothing: the host does not grow.
    for _ in 0..5 {
        let r = session.send(&frame).await;
        assert!(
            matches!(r, Err(SessionError::StdinStalled { queued: false, .. })),
            "{r:?}"
        );
    }
    assert_eq!(session.stats().stdin_queued_bytes, held);

    // The control reply still gets in: its lane has its own room.
    open.send(()).unwrap();
    let deadline = std::time::Instant::now() + SOON;
    while session.stats().stdin_queued_bytes <= held {
        assert!(std::time::Instant::now() < deadline, "reply never queued");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // The CLI reads again: the reply is written before the user frames that
    // were waiting in the host.
    std::fs::write(&go, b"").unwrap();
    let reply = fx
        .wait_recorded(|v| v["response"]["request_id"] == "perm-1")
        .await;
    assert_eq!(reply["response"]["response"]["behavior"], "allow");
    let report = session.shutdown().await;
    assert!(report.exit.is_some(), "{report:?}");
    assert_gone(pid);
    let lines = fx.recorded();
    let at = lines
        .iter()
        .position(|v| v["response"]["request_id"] == "perm-1")
        .unwrap();
    let users_before = lines[..at].iter().filter(|v| v["type"] == "user").count();
    let users_after = lines[at..].iter().filter(|v| v["type"] == "user").count();
    assert!(
        users_before <= written + 1,
        "{users_before} user frames before the reply, {written} were written before it was queued"
    );
    assert!(users_after >= 1, "no user frame was overtaken");
    assert_eq!(users_before + users_after, written + queued);
}
