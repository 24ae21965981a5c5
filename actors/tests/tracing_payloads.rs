//! Traces carry a span per session (id, pid, session id) and per control
//! request (id, subtype, duration, outcome); prompt text and payloads appear
//! only with `log_payloads`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};

use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Runs one turn plus a control request under a capturing subscriber. A
/// current-thread runtime keeps every task on this thread, so the
/// thread-local default subscriber sees them all.
fn run(log_payloads: bool) -> String {
    let capture = Capture::default();
    let writer = capture.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let fx = install(
            Script::new()
                .auto_reply("set_model", json!({}))
                .expect_initialize()
                .loop_turns("the answer"),
        );
        let (session, mut stream) = fx
            .start_with(fx.config().log_payloads(log_payloads))
            .await
            .unwrap();
        session.send(&user("TOP-SECRET-PROMPT")).await.unwrap();
        read_turn(&mut stream).await;
        session
            .request(json!({"subtype":"set_model","model":"SECRET-MODEL"}), None)
            .await
            .unwrap();
        session.shutdown().await;
    });
    capture.text()
}

#[test]
fn payloads_are_not_logged_by_default_but_spans_are() {
    let out = run(false);
    assert!(out.contains("control_request"), "{out}");
    assert!(
        out.contains("subtype=\"set_model\"") || out.contains("subtype=set_model"),
        "{out}"
    );
    assert!(
        out.contains("outcome=\"success\"") || out.contains("outcome=success"),
        "{out}"
    );
    assert!(out.contains("session"), "{out}");
    assert!(!out.contains("TOP-SECRET-PROMPT"), "prompt leaked:\n{out}");
    assert!(!out.contains("SECRET-MODEL"), "payload leaked:\n{out}");
}

#[test]
fn payloads_are_logged_when_asked() {
    let out = run(true);
    assert!(out.contains("TOP-SECRET-PROMPT"), "{out}");
    assert!(out.contains("SECRET-MODEL"), "{out}");
}
