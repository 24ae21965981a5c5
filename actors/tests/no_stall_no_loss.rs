//! A panic in a user's wire tap is contained (the read loop goes on and
//! no frame is lost; a panic of the read loop itself is in
//! `read_loop_panic.rs`); frames printed just before the CLI exits reach a
//! slow consumer even past the byte cap; turns are counted, not flagged; a
//! turn's last frame reaches the consumer however the read loop's bursts
//! fall, though the CLI writes nothing after it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use claude_agent_actors::channel::{DuplexFarEnd, DuplexTransport};
use claude_agent_actors::{Session, SessionConfig, SessionError, WireDirection};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

const SOON: Duration = Duration::from_secs(10);

/// Plays the CLI in-process: answers `initialize`, then writes whatever
/// the test sends; `None` ends the far side (exit 0, pipes closed).
async fn play(mut far: DuplexFarEnd, mut script: mpsc::UnboundedReceiver<Option<String>>) {
    let stdin = std::mem::replace(&mut far.stdin, tokio::io::duplex(1).0);
    let mut lines = BufReader::new(stdin).lines();
    let line = lines.next_line().await.unwrap().unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    let reply = json!({"type": "control_response", "response": {"subtype": "success",
        "request_id": v["request_id"], "response": {}}});
    far.stdout
        .write_all(format!("{reply}\n").as_bytes())
        .await
        .unwrap();
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    while let Some(cmd) = script.recv().await {
        match cmd {
            Some(l) => far.stdout.write_all(l.as_bytes()).await.unwrap(),
            None => {
                far.exit(0);
                return;
            }
        }
    }
}

/// A transport whose far end [`play`]s the CLI: send it lines to write,
/// `None` to end it.
fn duplex_cli() -> (
    DuplexTransport,
    mpsc::UnboundedSender<Option<String>>,
    tokio::task::JoinHandle<()>,
) {
    let (transport, far) = DuplexTransport::new(1 << 20);
    let (tx, rx) = mpsc::unbounded_channel();
    (transport, tx, tokio::spawn(play(far, rx)))
}

fn config(transport: DuplexTransport) -> SessionConfig {
    SessionConfig::new(transport)
        .grace(Duration::from_millis(200))
        .term_grace(Duration::from_millis(200))
        .initialize_timeout(SOON)
}

#[tokio::test]
async fn a_panic_in_the_wire_tap_is_contained_and_the_session_goes_on() {
    let (transport, tx, cli) = duplex_cli();
    let tap: claude_agent_actors::WireTap = Arc::new(|dir, line: &[u8]| {
        if dir == WireDirection::In && line.windows(4).any(|w| w == b"boom") {
            panic!("tap exploded");
        }
    });
    let (session, mut frames) = Session::start(config(transport).wire_tap(tap))
        .await
        .unwrap();
    tx.send(Some("{\"type\":\"assistant\",\"n\":\"boom\"}\n".into()))
        .unwrap();
    tx.send(Some("{\"type\":\"assistant\",\"n\":2}\n".into()))
        .unwrap();
    // The tap's panic is contained: both frames still arrive.
    for n in [json!("boom"), json!(2)] {
        let f = tokio::time::timeout(SOON, frames.recv())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(f.to_value().unwrap()["n"], n);
    }
    tx.send(None).unwrap();
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert!(report.exit.is_some());
    cli.abort();
}

#[tokio::test]
async fn frames_printed_before_exit_reach_a_slow_consumer_past_the_cap() {
    let (transport, tx, cli) = duplex_cli();
    let (session, mut frames) = Session::start(config(transport).max_buffered_bytes(2_000))
        .await
        .unwrap();
    session
        .send(&json!({"type": "user", "message": {"role": "user", "content": "go"}}))
        .await
        .unwrap();
    let pad = "x".repeat(180);
    for i in 0..50 {
        tx.send(Some(format!(
            "{{\"type\":\"assistant\",\"i\":{i},\"pad\":\"{pad}\"}}\n"
        )))
        .unwrap();
    }
    tx.send(Some(
        "{\"type\":\"result\",\"subtype\":\"success\"}\n".into(),
    ))
    .unwrap();
    tx.send(None).unwrap();
    // The consumer reads nothing until the session has fully closed.
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)));
    let mut kinds = Vec::new();
    while let Some(item) = tokio::time::timeout(SOON, frames.recv()).await.unwrap() {
        kinds.push(item.unwrap().kind);
    }
    assert_eq!(kinds.len(), 51, "{kinds:?}");
    assert_eq!(kinds.last().map(String::as_str), Some("result"));
    cli.abort();
}

#[tokio::test]
async fn a_crash_in_a_second_queued_turn_is_still_closed_before_result() {
    let (transport, tx, cli) = duplex_cli();
    let (session, mut frames) = Session::start(config(transport)).await.unwrap();
    let user = json!({"type": "user", "message": {"role": "user", "content": "go"}});
    session.send(&user).await.unwrap();
    session.send(&user).await.unwrap();
    tx.send(Some(
        "{\"type\":\"result\",\"subtype\":\"success\"}\n".into(),
    ))
    .unwrap();
    tx.send(None).unwrap();
    let first = tokio::time::timeout(SOON, frames.recv())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(first.kind, "result");
    let last = tokio::time::timeout(SOON, frames.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(
        matches!(last, Err(SessionError::ClosedBeforeResult { .. })),
        "the second turn never got its result: {last:?}"
    );
    cli.abort();
}

/// Found by a fake CLI that wrote a whole turn with one `sendfile`: about
/// one run in 150 hung with every byte read. The read loop hands the
/// consumer its frames once per burst of lines read without waiting (or
/// every 256 lines); when a turn's last line was exactly the 256th of a
/// burst it waited for more input with that line still held back, and the
/// CLI, its turn over, wrote nothing more.
#[tokio::test]
async fn a_turns_last_frame_is_delivered_wherever_it_falls_in_a_read_burst() {
    let (transport, tx, cli) = duplex_cli();
    let (session, mut frames) = Session::start(config(transport)).await.unwrap();
    // Each turn arrives in one write, so the loop reads it in one burst:
    // lines that carry no frame (skipped as not JSON), then the result as
    // line `n` of the burst.
    for n in [1, 2, 127, 128, 129, 255, 256, 257, 511, 512, 513] {
        let mut turn = "x\n".repeat(n - 1);
        turn.push_str(&format!(
            "{}\n",
            json!({"type": "result", "subtype": "success", "n": n})
        ));
        tx.send(Some(turn)).unwrap();
        let f = tokio::time::timeout(SOON, frames.recv())
            .await
            .unwrap_or_else(|_| panic!("the result at line {n} of a burst never came"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (f.kind.as_str(), f.to_value().unwrap()["n"].clone()),
            ("result", json!(n))
        );
    }
    tx.send(None).unwrap();
    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert!(report.exit.is_some());
    cli.abort();
}
