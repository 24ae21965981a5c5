//! Bad stdout lines become diagnostics and the session goes on: non-JSON,
//! malformed, over the length limit (skipped without buffering it; an
//! oversized control request is still answered), truncated at EOF.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_actors::{Diagnostic, SessionEvent, SkipReason};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

fn skipped(e: &SessionEvent) -> Option<(SkipReason, String)> {
    match e {
        SessionEvent::Diagnostic(Diagnostic::LineSkipped { reason, prefix }) => {
            Some((reason.clone(), prefix.clone()))
        }
        _ => None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_json_and_malformed_lines_are_diagnostics_and_the_session_continues() {
    let fx = install(
        Script::new()
            .auto_reply("interrupt", json!({"still_queued": []}))
            .expect_initialize()
            .emit_raw("Warning: some tool printed this\n")
            .emit_raw("{\"type\":\"assistant\", oops\n")
            .emit(json!({"type":"assistant","marker":"after"})),
    );
    let mut cfg = fx.config();
    let mut events = cfg.subscribe_events();
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "after");
    let e1 = wait_event(&mut events, |e| skipped(e).is_some()).await;
    assert_eq!(
        skipped(&e1).unwrap(),
        (
            SkipReason::NotJson,
            "Warning: some tool printed this".into()
        )
    );
    let e2 = wait_event(&mut events, |e| skipped(e).is_some()).await;
    assert_eq!(skipped(&e2).unwrap().0, SkipReason::Malformed);
    assert!(
        skipped(&e2)
            .unwrap()
            .1
            .starts_with("{\"type\":\"assistant\", oops")
    );
    // One diagnostic per bad line, nothing else.
    assert_eq!(session.stats().diagnostics, 2);
    // Still alive and answering.
    session
        .request(json!({"subtype":"interrupt"}), None)
        .await
        .unwrap();
    session.shutdown().await;
    assert_gone(fx.pid());
}

fn vm_rss_kib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_line_is_skipped_without_buffering_and_its_request_answered() {
    const BIG: u64 = 64 * 1024 * 1024;
    const LIMIT: usize = 1024 * 1024;
    // Not buffering the line: the limit, one read buffer (framing's 64 KiB)
    // and the allowance `line_memory_bound.rs` measures for the runtime.
    const BOUND_KIB: u64 = (LIMIT as u64 + 64 * 1024 + 4 * 1024 * 1024) / 1024;
    let fx = install(
        Script::new()
            .expect_initialize()
            .emit_big_line(BIG, None)
            .emit(json!({"type":"assistant","marker":"after-big"}))
            .emit_big_line(2 * 1024 * 1024, Some("cli-req-7"))
            .step(json!({"op":"expect","type":"control_response","request_id":"cli-req-7"}))
            .emit(json!({"type":"assistant","marker":"after-answer"})),
    );
    let mut cfg = fx.config().max_line_bytes(LIMIT);
    let mut events = cfg.subscribe_events();
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let rss_before = vm_rss_kib();
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "after-big");
    let grew_kib = vm_rss_kib().saturating_sub(rss_before);
    assert!(
        grew_kib <= BOUND_KIB,
        "a 64 MiB line grew RSS by {grew_kib} KiB, over {BOUND_KIB} KiB"
    );
    let e = wait_event(&mut events, |e| skipped(e).is_some()).await;
    let (reason, prefix) = skipped(&e).unwrap();
    assert_eq!(
        reason,
        SkipReason::Oversized { len: BIG - 1 },
        "N bytes with the newline"
    );
    assert!(prefix.len() <= 200 && prefix.starts_with("{\"type\":\"assistant\""));

    // The oversized control request was answered with an error, so the
    // fake went on to the next step.
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "after-answer");
    wait_event(&mut events, |e| {
        matches!(e, SessionEvent::Diagnostic(Diagnostic::OversizedControlRequestAnswered { request_id }) if request_id == "cli-req-7")
    })
    .await;
    let reply = fx
        .wait_recorded(|v| {
            v["type"] == "control_response" && v["response"]["request_id"] == "cli-req-7"
        })
        .await;
    assert_eq!(reply["response"]["subtype"], "error");
    session.shutdown().await;
    assert_gone(fx.pid());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn truncated_last_line_is_a_diagnostic() {
    let fx = install(
        Script::new()
            .expect_initialize()
            .emit(json!({"type":"assistant","marker":"whole"}))
            .emit_raw("{\"type\":\"assistant\",\"cut")
            .exit(0),
    );
    let mut cfg = fx.config();
    let mut events = cfg.subscribe_events();
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "whole");
    assert!(next_frame(&mut stream).await.is_none());
    let e = wait_event(&mut events, |e| skipped(e).is_some()).await;
    assert_eq!(
        skipped(&e).unwrap(),
        (
            SkipReason::TruncatedAtEof,
            "{\"type\":\"assistant\",\"cut".into()
        )
    );
    session.closed().await;
    assert_gone(fx.pid());
}
