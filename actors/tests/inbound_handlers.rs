//! Control requests from the CLI: one handler per request id, running
//! concurrently; a panicking callback gets an error reply, a hanging one a
//! timeout error reply, a cancelled one no reply; an unknown subtype an
//! error reply. The session continues after each.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use claude_agent_actors::{
    CancellationToken, Diagnostic, HandlerError, InboundHandler, InboundRequest, SessionEvent,
};
use claude_agent_testkit::Script;
use common::*;
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::sync::Barrier;

struct TestHandler {
    barrier: Arc<Barrier>,
}

impl InboundHandler for TestHandler {
    fn handle(
        &self,
        req: InboundRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let barrier = self.barrier.clone();
        Box::pin(async move {
            match req.subtype.as_str() {
                "can_use_tool" => {
                    Ok(json!({"behavior":"allow","updatedInput":req.request["input"].clone()}))
                }
                "panic_please" => panic!("callback exploded"),
                "hang" => futures::future::pending().await,
                "wait_cancel" => {
                    cancel.cancelled().await;
                    Err(HandlerError::new("cancelled"))
                }
                // Both must be in flight at once to get past the barrier.
                "meet" => {
                    barrier.wait().await;
                    Ok(json!({"met": req.request_id}))
                }
                other => Err(HandlerError::new(format!("unsupported {other}"))),
            }
        })
    }
}

fn req(id: &str, subtype: &str) -> Value {
    json!({"type":"control_request","request_id":id,"request":{"subtype":subtype,"input":{"x":1}}})
}

fn expect_reply(id: &str) -> Value {
    json!({"op":"expect","type":"control_response","request_id":id})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_callback_outcome_gets_the_right_reply_and_the_session_continues() {
    let fx = install(
        Script::new()
            .auto_reply("interrupt", json!({}))
            .expect_initialize()
            .emit(req("ok-1", "can_use_tool"))
            .step(expect_reply("ok-1"))
            .emit(req("panic-1", "panic_please"))
            .step(expect_reply("panic-1"))
            .emit(req("hang-1", "hang"))
            .step(expect_reply("hang-1"))
            .emit(req("cancel-1", "wait_cancel"))
            .sleep_ms(50)
            .emit(json!({"type":"control_cancel_request","request_id":"cancel-1"}))
            .emit(req("unknown-1", "brand_new_subtype"))
            .step(expect_reply("unknown-1"))
            .emit(req("meet-a", "meet"))
            .emit(req("meet-b", "meet"))
            .emit(json!({"type":"assistant","marker":"done"})),
    );
    let handler = Arc::new(TestHandler {
        barrier: Arc::new(Barrier::new(2)),
    });
    let mut cfg = fx
        .config()
        .inbound(handler)
        .handler_timeout(Some(Duration::from_millis(500)));
    let mut events = cfg.subscribe_events();
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();

    let f = tokio::time::timeout(SOON, futures::StreamExt::next(&mut stream)).await;
    let f = f
        .unwrap_or_else(|_| panic!("stuck; recorded: {:#?}", fx.recorded()))
        .unwrap()
        .unwrap();
    assert_eq!(
        f.to_value().unwrap()["marker"],
        "done",
        "every expected reply was written"
    );

    // The two concurrent handlers answer in either order.
    for id in ["meet-a", "meet-b"] {
        fx.wait_recorded(|v| v["response"]["request_id"] == id)
            .await;
    }
    let replies: Vec<Value> = fx
        .recorded()
        .into_iter()
        .filter(|v| v["type"] == "control_response")
        .map(|v| v["response"].clone())
        .collect();
    let reply = |id: &str| replies.iter().find(|r| r["request_id"] == id).cloned();
    assert_eq!(
        reply("ok-1").unwrap()["response"],
        json!({"behavior":"allow","updatedInput":{"x":1}})
    );
    let p = reply("panic-1").unwrap();
    assert_eq!(p["subtype"], "error");
    assert!(
        p["error"].as_str().unwrap().contains("callback exploded"),
        "{p}"
    );
    let h = reply("hang-1").unwrap();
    assert_eq!(h["subtype"], "error");
    assert!(h["error"].as_str().unwrap().contains("timed out"), "{h}");
    let u = reply("unknown-1").unwrap();
    assert_eq!(u["subtype"], "error");
    assert!(u["error"].as_str().unwrap().contains("brand_new_subtype"));
    assert_eq!(reply("meet-a").unwrap()["response"]["met"], "meet-a");
    assert_eq!(reply("meet-b").unwrap()["response"]["met"], "meet-b");
    for id in ["ok-1", "panic-1", "hang-1", "unknown-1", "meet-a", "meet-b"] {
        assert_eq!(
            replies.iter().filter(|r| r["request_id"] == id).count(),
            1,
            "exactly one reply to {id}"
        );
    }

    // Events come in order: the panic happened before the cancel.
    wait_event(&mut events, |e| {
        matches!(
            e,
            SessionEvent::Diagnostic(Diagnostic::HandlerPanicked { .. })
        )
    })
    .await;
    wait_event(&mut events, |e| {
        matches!(e, SessionEvent::Diagnostic(Diagnostic::HandlerCancelled { request_id }) if request_id == "cancel-1")
    })
    .await;
    // Still usable.
    session
        .request(json!({"subtype":"interrupt"}), None)
        .await
        .unwrap();
    let report = session.shutdown().await;
    assert_eq!(
        report.handlers_cancelled, 0,
        "nothing left running at shutdown"
    );
    assert!(
        fx.recorded()
            .iter()
            .all(|v| v["response"]["request_id"] != "cancel-1"),
        "a cancelled request gets no reply"
    );
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_cancels_running_handlers() {
    let fx = install(
        Script::new()
            .expect_initialize()
            .emit(req("w-1", "wait_cancel"))
            .expect_eof(),
    );
    let handler = Arc::new(TestHandler {
        barrier: Arc::new(Barrier::new(2)),
    });
    let mut cfg = fx.config().inbound(handler);
    let mut events = cfg.subscribe_events();
    let (session, _stream) = fx.start_with(cfg).await.unwrap();
    // Wait until the handler is running.
    let deadline = std::time::Instant::now() + SOON;
    while session.stats().handlers_pending == 0 {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let report = session.shutdown().await;
    assert_eq!(report.handlers_cancelled, 1);
    wait_event(&mut events, |e| {
        matches!(
            e,
            SessionEvent::Diagnostic(Diagnostic::HandlerCancelled { .. })
        )
    })
    .await;
    assert_eq!(session.stats().handlers_pending, 0);
    assert_gone(fx.pid());
}
