//! Every metric, read back from the in-memory exporter: active sessions by
//! tenant, frames and bytes by direction (equal to the session's own
//! counters), control round trips, escalations from a CLI that ignores EOF
//! and SIGTERM, parse diagnostics from a garbage line and from a message
//! that does not parse, the host's restart / admission / queue hooks, and
//! nothing at all when telemetry is disabled.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod telemetry_common;

use std::time::Duration;

use claude_agent::runtime::Escalation;
use claude_agent::telemetry::{
    ADMISSION_WAIT, BYTES, CONTROL_DURATION, ESCALATIONS, FRAMES, PARSE_DIAGNOSTICS, QUEUE_DEPTH,
    RESTARTS, SESSIONS_ACTIVE, Telemetry,
};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::json;
use telemetry_common::*;

#[tokio::test]
async fn a_session_records_activity_traffic_controls_and_parse_diagnostics() {
    let mem = in_memory();
    let fake = fake(
        Script::new()
            .expect_initialize()
            .auto_reply("set_model", json!({}))
            .emit_raw("this is not json\n")
            .turn("hello"),
    );
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .tenant("acme")
        .connect()
        .await
        .unwrap();
    let tenant = [("tenant", "acme")];
    assert_eq!(sum(&mem, SESSIONS_ACTIVE, &tenant), Some(1));

    client.send("hi").await.unwrap();
    finish_turn(&client).await;
    // Turn end: the counters so far are recorded without waiting for the end.
    let frames_in = sum(&mem, FRAMES, &[("tenant", "acme"), ("direction", "in")]).unwrap();
    assert!(
        frames_in >= 4,
        "initialize reply, init, assistant, result: {frames_in}"
    );

    client.set_model(Some("m")).await.unwrap();
    let garbage_counted = eventually(SOON, || {
        sum(
            &mem,
            PARSE_DIAGNOSTICS,
            &[("tenant", "acme"), ("kind", "not_json")],
        ) == Some(1)
    })
    .await;
    assert!(garbage_counted, "the garbage line was not counted");
    client.shutdown().await;
    let stats = client.stats();

    assert_eq!(sum(&mem, SESSIONS_ACTIVE, &tenant), Some(0));
    for (direction, frames, bytes) in [
        ("in", stats.frames_in, stats.bytes_in),
        ("out", stats.frames_out, stats.bytes_out),
    ] {
        let attrs = [("tenant", "acme"), ("direction", direction)];
        assert_eq!(
            sum(&mem, FRAMES, &attrs),
            Some(frames as i64),
            "{direction}"
        );
        assert_eq!(sum(&mem, BYTES, &attrs), Some(bytes as i64), "{direction}");
    }
    let rtt = [
        ("tenant", "acme"),
        ("subtype", "set_model"),
        ("direction", "out"),
    ];
    let (count, seconds) = histogram(&mem, CONTROL_DURATION, &rtt).unwrap();
    assert_eq!(count, 1);
    assert!(seconds > 0.0 && seconds < SOON.as_secs_f64());
    assert_eq!(unit(&mem, CONTROL_DURATION).as_deref(), Some("s"));
    assert_eq!(unit(&mem, BYTES).as_deref(), Some("By"));
    // A clean exit escalates nothing.
    assert_eq!(
        sum(&mem, ESCALATIONS, &[("tenant", "acme"), ("level", "kill")]),
        None
    );
    mem.shutdown();
}

#[tokio::test]
async fn a_cli_ignoring_eof_and_sigterm_counts_a_kill_escalation() {
    let mem = in_memory();
    let fake = fake(
        Script::new()
            .expect_initialize()
            .ignore_signal("TERM")
            .hang(),
    );
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .grace(Duration::from_millis(100))
        .term_grace(Duration::from_millis(100))
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    let report = client.shutdown().await;
    assert_eq!(report.escalation, Escalation::Kill);
    fake.assert_gone(pid).await;

    assert_eq!(sum(&mem, ESCALATIONS, &[("level", "kill")]), Some(1));
    assert_eq!(sum(&mem, ESCALATIONS, &[("level", "term")]), None);
    let spans = mem.finished_spans();
    let session = &named(&spans, claude_agent::telemetry::SESSION_SPAN)[0];
    assert_eq!(
        attr_str(session, "claude_agent.shutdown.escalation").as_deref(),
        Some("kill")
    );
    mem.shutdown();
}

#[tokio::test]
async fn a_message_that_does_not_parse_is_a_diagnostic_and_ends_its_turn_in_error() {
    let mem = in_memory();
    // A `result` frame without its required `subtype`.
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type": "result", "is_error": false, "session_id": "s-1"})),
    );
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .connect()
        .await
        .unwrap();
    client.send("hi").await.unwrap();
    let mut turn = client.receive_response();
    let item = tokio::time::timeout(SOON, turn.next()).await.unwrap();
    assert!(item.unwrap().is_err(), "the bad result parsed");
    drop(turn);
    client.shutdown().await;

    assert_eq!(
        sum(&mem, PARSE_DIAGNOSTICS, &[("kind", "message")]),
        Some(1)
    );
    let spans = mem.finished_spans();
    let turns = named(&spans, claude_agent::telemetry::TURN_SPAN);
    assert_eq!(turns.len(), 1);
    assert!(matches!(
        turns[0].status,
        opentelemetry::trace::Status::Error { .. }
    ));
    mem.shutdown();
}

#[tokio::test]
async fn host_hooks_record_restarts_admission_waits_and_queue_depth() {
    let mem = in_memory();
    let t = mem.telemetry();
    t.record_restart("acme");
    t.record_restart("acme");
    t.record_restart("zeta");
    t.record_admission_wait("acme", Duration::from_millis(250));
    t.record_queue_depth("acme", 7);

    assert_eq!(sum(&mem, RESTARTS, &[("tenant", "acme")]), Some(2));
    assert_eq!(sum(&mem, RESTARTS, &[("tenant", "zeta")]), Some(1));
    let (count, seconds) = histogram(&mem, ADMISSION_WAIT, &[("tenant", "acme")]).unwrap();
    assert_eq!(count, 1);
    assert!((seconds - 0.25).abs() < 1e-9);
    assert_eq!(unit(&mem, QUEUE_DEPTH).as_deref(), Some("{session}"));
    mem.shutdown();
}

#[tokio::test]
async fn disabled_telemetry_records_nothing_and_sets_no_traceparent() {
    let mem = in_memory();
    let fake = fake(
        Script::new()
            .expect_initialize()
            .auto_reply("set_model", json!({}))
            .emit_raw("garbage\n")
            .turn("hello"),
    );
    let disabled = Telemetry::disabled();
    assert!(!disabled.is_enabled());
    disabled.record_restart("acme");
    let client = fake.builder().telemetry(disabled).connect().await.unwrap();
    client.send("hi").await.unwrap();
    finish_turn(&client).await;
    client.set_model(None).await.unwrap();
    client.shutdown().await;

    assert!(mem.finished_spans().is_empty());
    let metrics = mem.metrics();
    let points: usize = metrics
        .iter()
        .flat_map(|rm| rm.scope_metrics())
        .map(|s| s.metrics().count())
        .sum();
    assert_eq!(points, 0, "{metrics:#?}");
    let env = fake.cli.recorded_env().unwrap();
    assert!(!env.contains_key("TRACEPARENT"));
    mem.shutdown();
}
