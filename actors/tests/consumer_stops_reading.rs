//! A consumer that stops reading: control requests are still answered
//! until the consumer's queue reaches its byte cap; then the reader pauses
//! (nothing dropped, memory bounded) and resumes when the consumer reads.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

const CAP: usize = 64 * 1024;
const FLOOD: u64 = 2_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_traffic_flows_until_the_byte_cap_then_the_reader_waits() {
    let frame =
        json!({"type":"assistant","message":{"content":[{"type":"text","text":"x".repeat(150)}]}});
    let line_len = serde_json::to_string(&frame).unwrap().len();
    let fx = install(
        Script::new()
            .expect_initialize()
            .emit(json!({"type":"assistant","marker":"first"}))
            .emit(json!({"type":"control_request","request_id":"early","request":{"subtype":"hook_callback"}}))
            .step(json!({"op":"expect","type":"control_response","request_id":"early"}))
            .step(json!({"op":"flood","stream":"stdout","frame":frame,"count":FLOOD}))
            .emit(json!({"type":"control_request","request_id":"late","request":{"subtype":"hook_callback"}}))
            .step(json!({"op":"expect","type":"control_response","request_id":"late"}))
            .emit(json!({"type":"assistant","marker":"last"})),
    );
    let (session, mut stream) = fx
        .start_with(fx.config().max_buffered_bytes(CAP))
        .await
        .unwrap();

    // Not reading: the early request is still answered.
    fx.wait_recorded(|v| v["response"]["request_id"] == "early")
        .await;
    // The queue fills to the cap and stops there.
    let deadline = std::time::Instant::now() + SOON;
    while session.stats().buffered_bytes + line_len as u64 <= CAP as u64 {
        assert!(
            std::time::Instant::now() < deadline,
            "queue never filled: {:?}",
            session.stats()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let stats = session.stats();
    assert!(
        stats.buffered_bytes <= CAP as u64,
        "over the cap: {stats:?}"
    );
    assert!(stats.frames_to_consumer < FLOOD, "reader paused: {stats:?}");
    assert!(
        fx.recorded()
            .iter()
            .all(|v| v["response"]["request_id"] != "late"),
        "behind the cap, the late request waits"
    );

    // Read everything: nothing was dropped, the late request gets answered.
    let first = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(first.to_value().unwrap()["marker"], "first");
    for _ in 0..FLOOD {
        let f = next_frame(&mut stream).await.unwrap().unwrap();
        assert_eq!(f.line.len(), line_len);
    }
    let last = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(last.to_value().unwrap()["marker"], "last");
    fx.wait_recorded(|v| v["response"]["request_id"] == "late")
        .await;
    assert_eq!(session.stats().frames_discarded, 0);
    session.shutdown().await;
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_discards_frames_but_control_continues() {
    let fx = install(
        Script::new()
            .auto_reply("interrupt", json!({}))
            .expect_initialize()
            .flood(claude_agent_testkit::Stream::Stdout, "{\"type\":\"assistant\"}", 10_000)
            .emit(json!({"type":"control_request","request_id":"after","request":{"subtype":"hook_callback"}}))
            .step(json!({"op":"expect","type":"control_response","request_id":"after"})),
    );
    let (session, stream) = fx
        .start_with(fx.config().max_buffered_bytes(1024))
        .await
        .unwrap();
    drop(stream);
    fx.wait_recorded(|v| v["response"]["request_id"] == "after")
        .await;
    session
        .request(json!({"subtype":"interrupt"}), None)
        .await
        .unwrap();
    assert!(session.stats().frames_discarded > 0);
    session.shutdown().await;
    assert_gone(fx.pid());
}
