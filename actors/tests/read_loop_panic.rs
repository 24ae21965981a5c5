//! The stdout read loop itself panicking (not a user callback it calls):
//! the CLI's stdout is read through a reader that panics when the CLI
//! prints a marker. The session ends through the ordered shutdown with a
//! `Fatal` cause, the open turn ends with `ClosedBeforeResult`, and the
//! real CLI process is gone afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::pin::Pin;
use std::task::{Context, Poll};

use claude_agent_actors::channel::{ChannelError, Connection, SubprocessTransport, Transport};
use claude_agent_actors::{
    Diagnostic, Escalation, SessionConfig, SessionError, SessionEvent, ShutdownCause, StepReason,
};
use claude_agent_testkit::Script;
use common::*;
use futures::future::BoxFuture;
use serde_json::json;
use tokio::io::{AsyncRead, ReadBuf};

const MARKER: &[u8] = b"explode-the-reader";

/// Reads the CLI's stdout and panics inside `poll_read` once the marker
/// shows up in what was read.
struct PanickingReader(Box<dyn AsyncRead + Send + Unpin>);

impl AsyncRead for PanickingReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.0).poll_read(cx, buf);
        if buf.filled()[before..]
            .windows(MARKER.len())
            .any(|w| w == MARKER)
        {
            panic!("the stdout reader exploded");
        }
        r
    }
}

/// A subprocess transport whose stdout reader is a [`PanickingReader`].
struct PanickingTransport(SubprocessTransport);

impl Transport for PanickingTransport {
    fn kind(&self) -> &'static str {
        "panicking-subprocess"
    }

    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>> {
        let inner = Box::new(self.0).connect();
        Box::pin(async move {
            let mut conn = inner.await?;
            conn.reader = Box::new(PanickingReader(conn.reader));
            Ok(conn)
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reader_that_panics_ends_the_session_through_the_ordered_shutdown() {
    let fx = install(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(json!({"type":"assistant","marker":"first"}))
            .expect("user", None)
            .emit(json!({"type":"assistant","marker":"explode-the-reader"}))
            .hang(),
    );
    let mut cfg = SessionConfig::new(PanickingTransport(SubprocessTransport::new(fx.spec())))
        .grace(GRACE)
        .term_grace(TERM_GRACE)
        .initialize_timeout(SOON);
    let mut events = cfg.subscribe_events();
    let (session, mut stream) = fx.start_with(cfg).await.unwrap();
    let pid = session.pid().unwrap();

    // The loop works until the marker arrives.
    session.send(&user("one")).await.unwrap();
    let f = next_frame(&mut stream).await.unwrap().unwrap();
    assert_eq!(f.to_value().unwrap()["marker"], "first");
    session.send(&user("two")).await.unwrap();

    let report = tokio::time::timeout(SOON, session.closed()).await.unwrap();
    assert_eq!(
        report.cause,
        ShutdownCause::Fatal {
            reason: "reading the CLI's stdout failed: the stdout read loop panicked".into()
        }
    );
    // The CLI ignores EOF: the ladder's SIGTERM after grace ends it.
    let steps: Vec<_> = report.steps.iter().map(|s| (s.to, s.why)).collect();
    assert_eq!(steps, [(Escalation::Term, StepReason::GraceElapsed)]);
    assert_eq!(report.exit.unwrap().signal, Some(15));
    assert_eq!(report.escalation, Escalation::Term);
    match next_frame(&mut stream).await {
        Some(Err(SessionError::ClosedBeforeResult { .. })) => {}
        other => panic!("expected ClosedBeforeResult, got {other:?}"),
    }
    assert!(next_frame(&mut stream).await.is_none());
    wait_event(&mut events, |e| {
        matches!(e, SessionEvent::Diagnostic(Diagnostic::ReadError { message, .. })
            if message == "the stdout read loop panicked")
    })
    .await;
    assert_gone(pid);
}
