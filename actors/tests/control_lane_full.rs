//! Callbacks that answer at once, while the CLI is not reading stdin: the
//! replies that fit go into the control lane, the rest wait in their
//! handlers (still pending, nothing dropped) and every request gets exactly
//! one reply once the CLI reads again.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent_actors::{CancellationToken, HandlerError, InboundHandler, InboundRequest};
use claude_agent_testkit::Script;
use common::*;
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

/// Per lane: room for a few dozen replies.
const CAP: usize = 4 * 1024;
/// Enough replies to fill the pipe (64 KiB) and the control lane many times over.
const REQUESTS: usize = 1_500;

/// Allows at once: its future is ready at the first poll.
struct AllowNow;

impl InboundHandler for AllowNow {
    fn handle(
        &self,
        _req: InboundRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        futures::future::ready(Ok(json!({"behavior": "allow", "updatedInput": {}}))).boxed()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replies_answered_at_once_while_the_control_lane_is_full_all_arrive_once() {
    let dir = tempfile::tempdir().unwrap();
    let go = dir.path().join("go");
    let mut script = Script::new().expect_initialize();
    for i in 0..REQUESTS {
        script = script.emit(
            json!({"type":"control_request","request_id":format!("perm-{i}"),
            "request":{"subtype":"can_use_tool","tool_name":"Bash","input":{"n": i}}}),
        );
    }
    let fx = install(
        script
            .step(json!({"op":"wait_file","path":go,"timeout_ms":30_000}))
            .step(json!({"op":"expect_eof","timeout_ms":30_000})),
    );
    let cfg = fx.config().max_stdin_bytes(CAP).inbound(Arc::new(AllowNow));
    let (session, _stream) = fx.start_with(cfg).await.unwrap();
    let pid = fx.pid();

    // Every request read, the pipe and the lane full: the replies that did
    // not fit are held by their handlers, which stay pending.
    let deadline = Instant::now() + SOON;
    loop {
        let s = session.stats();
        if s.frames_in > REQUESTS as u64 && s.handlers_pending > 0 {
            assert!(s.stdin_queued_bytes <= CAP as u64, "{s:?}");
            break;
        }
        assert!(Instant::now() < deadline, "lane never filled: {s:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // The CLI reads again: every request is answered, exactly once.
    std::fs::write(&go, b"").unwrap();
    let deadline = Instant::now() + SOON;
    let replies = loop {
        let replies: Vec<Value> = fx
            .recorded()
            .into_iter()
            .filter(|v| v["type"] == "control_response")
            .collect();
        if replies.len() >= REQUESTS {
            break replies;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {REQUESTS} replies arrived",
            replies.len()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in &replies {
        assert_eq!(r["response"]["subtype"], "success", "{r}");
        assert_eq!(r["response"]["response"]["behavior"], "allow", "{r}");
        let id = r["response"]["request_id"].as_str().unwrap().to_owned();
        *seen.entry(id).or_default() += 1;
    }
    assert_eq!(seen.len(), REQUESTS);
    assert!(seen.values().all(|&n| n == 1), "a request answered twice");
    assert_eq!(session.stats().handlers_pending, 0);

    let report = session.shutdown().await;
    assert!(report.exit.is_some(), "{report:?}");
    assert_gone(pid);
}
