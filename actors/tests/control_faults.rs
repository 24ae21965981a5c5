//! Control traffic gone wrong, with the CLI played in-process line by line
//! so each fault lands exactly where the test puts it: a duplicate inbound
//! request id, a handler actor killed mid-callback, a late reply to a
//! request we gave up on, an oversized `control_response`. Each gets the
//! documented reply or diagnostic, the session goes on, and it still shuts
//! down cleanly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use claude_agent_actors::channel::{DuplexFarEnd, DuplexTransport};
use claude_agent_actors::{
    CancellationToken, ControlError, Diagnostic, Escalation, HandlerError, InboundHandler,
    InboundRequest, Session, SessionConfig, SessionEvent, ShutdownCause, ShutdownReport,
    ShutdownTimeouts,
};
use futures::future::BoxFuture;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines};
use tokio::sync::{Notify, broadcast, mpsc};

const SOON: Duration = Duration::from_secs(10);

/// The CLI's side of the channel.
struct Cli {
    far: DuplexFarEnd,
    lines: Lines<BufReader<DuplexStream>>,
}

impl Cli {
    /// The next line the session wrote, or `None` at EOF.
    async fn read(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(SOON, self.lines.next_line())
            .await
            .expect("the session wrote nothing")
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    }

    async fn write(&mut self, line: &str) {
        self.far.stdout.write_all(line.as_bytes()).await.unwrap();
        self.far.stdout.write_all(b"\n").await.unwrap();
    }

    async fn reply(&mut self, id: &Value, response: Value) {
        let line = json!({"type":"control_response","response":{"subtype":"success",
            "request_id": id, "response": response}});
        self.write(&line.to_string()).await;
    }
}

/// Answers `wait` requests once released (telling the test it started),
/// `hang` requests never, and `until_cancelled` requests never either, but
/// tells the test `cancelled:<id>` once their cancellation fires.
struct Waiter {
    started: mpsc::UnboundedSender<String>,
    release: Arc<Notify>,
}

impl InboundHandler for Waiter {
    fn handle(
        &self,
        req: InboundRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let (started, release) = (self.started.clone(), self.release.clone());
        if req.subtype == "until_cancelled" {
            // Told from a task of its own: the handler drops the callback's
            // future as soon as the cancellation fires.
            let (told, id) = (started.clone(), req.request_id.clone());
            tokio::spawn(async move {
                cancel.cancelled().await;
                let _ = told.send(format!("cancelled:{id}"));
            });
        }
        Box::pin(async move {
            let _ = started.send(req.request_id.clone());
            if req.subtype == "hang" || req.subtype == "until_cancelled" {
                futures::future::pending::<()>().await;
            }
            release.notified().await;
            Ok(json!({"answered": req.request_id}))
        })
    }
}

struct Setup {
    session: Session,
    cli: Cli,
    events: broadcast::Receiver<SessionEvent>,
    started: mpsc::UnboundedReceiver<String>,
    release: Arc<Notify>,
}

/// A started session over an in-memory channel, `initialize` answered.
async fn start(max_line_bytes: usize) -> Setup {
    start_with(max_line_bytes, |cfg| cfg).await
}

/// As [`start`], with the config changed by `tweak` first.
async fn start_with(
    max_line_bytes: usize,
    tweak: impl FnOnce(SessionConfig) -> SessionConfig,
) -> Setup {
    let (transport, mut far) = DuplexTransport::new(1 << 20);
    let (started_tx, started) = mpsc::unbounded_channel();
    let release = Arc::new(Notify::new());
    let handler = Arc::new(Waiter {
        started: started_tx,
        release: release.clone(),
    });
    let cfg = SessionConfig::new(transport)
        .grace(SOON)
        .initialize_timeout(SOON)
        .control_timeout(SOON)
        .max_line_bytes(max_line_bytes)
        .inbound(handler);
    let mut cfg = tweak(cfg);
    let events = cfg.subscribe_events();
    let stdin = std::mem::replace(&mut far.stdin, tokio::io::duplex(1).0);
    let mut cli = Cli {
        far,
        lines: BufReader::new(stdin).lines(),
    };
    let starting = tokio::spawn(Session::start(cfg));
    let init = cli.read().await.unwrap();
    assert_eq!(init["request"]["subtype"], "initialize");
    cli.reply(&init["request_id"], json!({})).await;
    let (session, _frames) = tokio::time::timeout(SOON, starting)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    Setup {
        session,
        cli,
        events,
        started,
        release,
    }
}

/// Shuts down; the CLI exits 0 (closing its pipes) when it reads EOF.
/// Nothing needs a signal.
async fn finish(session: &Session, cli: Cli) -> ShutdownReport {
    finish_reading(session, cli).await.0
}

/// As [`finish`], also returning every line the session wrote meanwhile.
async fn finish_reading(session: &Session, mut cli: Cli) -> (ShutdownReport, Vec<Value>) {
    let closing = tokio::spawn({
        let s = session.clone();
        async move { s.shutdown().await }
    });
    let mut written = Vec::new();
    while let Some(line) = cli.read().await {
        written.push(line);
    }
    cli.far.exit(0);
    drop(cli);
    let report = tokio::time::timeout(SOON, closing).await.unwrap().unwrap();
    assert_eq!(report.cause, ShutdownCause::Requested);
    assert_eq!(report.exit.and_then(|e| e.code), Some(0));
    assert_eq!(report.escalation, Escalation::None);
    assert!(report.steps.is_empty());
    (report, written)
}

/// The `control_response` lines among `lines` answering `id`.
fn replies_to<'a>(lines: &'a [Value], id: &str) -> Vec<&'a Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "control_response" && l["response"]["request_id"] == id)
        .collect()
}

async fn diagnostic(
    rx: &mut broadcast::Receiver<SessionEvent>,
    pred: impl Fn(&Diagnostic) -> bool,
) {
    loop {
        match tokio::time::timeout(SOON, rx.recv()).await {
            Ok(Ok(SessionEvent::Diagnostic(d))) if pred(&d) => return,
            Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("expected diagnostic never came: {other:?}"),
        }
    }
}

fn request(id: &str, subtype: &str) -> String {
    json!({"type":"control_request","request_id":id,"request":{"subtype":subtype}}).to_string()
}

/// A request of ours is answered normally: the session went on.
async fn still_answers(s: &mut Setup) {
    let asking = tokio::spawn({
        let s = s.session.clone();
        async move { s.request(json!({"subtype":"ping"}), None).await }
    });
    let req = s.cli.read().await.unwrap();
    assert_eq!(req["request"]["subtype"], "ping");
    s.cli.reply(&req["request_id"], json!({"pong": true})).await;
    let answer = tokio::time::timeout(SOON, asking).await.unwrap().unwrap();
    assert_eq!(answer.unwrap(), json!({"pong": true}));
}

#[tokio::test]
async fn a_duplicate_inbound_request_id_gets_an_error_reply_and_the_first_still_answers() {
    let mut s = start(1 << 20).await;
    s.cli.write(&request("dup", "wait")).await;
    assert_eq!(s.started.recv().await.as_deref(), Some("dup"));
    // Same id while the first is still being answered.
    s.cli.write(&request("dup", "wait")).await;
    let rejected = s.cli.read().await.unwrap();
    assert_eq!(rejected["response"]["request_id"], "dup");
    assert_eq!(rejected["response"]["subtype"], "error");
    let error = rejected["response"]["error"].as_str().unwrap();
    assert!(error.contains("duplicate control request id"), "{error}");

    s.release.notify_one();
    let answered = s.cli.read().await.unwrap();
    assert_eq!(answered["response"]["subtype"], "success");
    assert_eq!(answered["response"]["response"], json!({"answered": "dup"}));
    // Only the first one ran.
    assert!(s.started.try_recv().is_err());
    still_answers(&mut s).await;
    let report = finish(&s.session, s.cli).await;
    assert_eq!(report.handlers_cancelled, 0);
}

#[tokio::test]
async fn a_duplicate_inbound_request_id_gets_exactly_one_error_reply() {
    let mut s = start(1 << 20).await;
    s.cli.write(&request("twice", "wait")).await;
    assert_eq!(s.started.recv().await.as_deref(), Some("twice"));
    s.cli.write(&request("twice", "wait")).await;
    let mut written = vec![s.cli.read().await.unwrap()];
    // The next line the session writes is a request of ours: nothing more
    // was written for the refused duplicate before it.
    still_answers(&mut s).await;
    s.release.notify_one();
    written.push(s.cli.read().await.unwrap());
    let (report, rest) = finish_reading(&s.session, s.cli).await;
    written.extend(rest);

    let replies = replies_to(&written, "twice");
    assert_eq!(replies.len(), 2, "one refusal, one answer: {written:?}");
    let errors: Vec<_> = replies
        .iter()
        .filter(|r| r["response"]["subtype"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{written:?}");
    assert_eq!(
        errors[0]["response"]["error"],
        "duplicate control request id \"twice\""
    );
    assert_eq!(replies[1]["response"]["subtype"], "success");
    // Only the first one ran, and the refusal was never a pending handler.
    assert!(s.started.try_recv().is_err());
    assert_eq!(report.handlers_cancelled, 0);
    assert_eq!(s.session.stats().handlers_pending, 0);
}

#[tokio::test]
async fn a_request_arriving_during_shutdown_gets_exactly_one_error_reply_and_never_runs() {
    // The shutdown of an exited CLI waits `stderr_settle` for its last
    // stderr lines while still reading stdout: a long one, ended by the
    // test closing stderr, holds the sequence after inbound requests are
    // cancelled and before stdin closes.
    let mut s = start_with(1 << 20, |cfg| {
        let mut bounds = ShutdownTimeouts::default();
        bounds.stderr_settle = SOON;
        cfg.shutdown_timeouts(bounds)
    })
    .await;
    s.cli.write(&request("running", "until_cancelled")).await;
    assert_eq!(s.started.recv().await.as_deref(), Some("running"));
    s.cli.far.exit(0);
    // Its cancellation fired: the session's is cancelled, the shutdown began.
    assert_eq!(s.started.recv().await.as_deref(), Some("cancelled:running"));

    s.cli.write(&request("late", "wait")).await;
    let refusal = s.cli.read().await.unwrap();
    assert_eq!(refusal["response"]["request_id"], "late");
    assert_eq!(refusal["response"]["subtype"], "error");
    assert_eq!(refusal["response"]["error"], "the session is shutting down");

    // Let the shutdown go on: stderr ends, stdin closes.
    drop(std::mem::replace(
        &mut s.cli.far.stderr,
        tokio::io::duplex(1).0,
    ));
    let mut rest = Vec::new();
    while let Some(line) = s.cli.read().await {
        rest.push(line);
    }
    assert!(replies_to(&rest, "late").is_empty(), "{rest:?}");
    // The cancelled request owes no reply.
    assert!(replies_to(&rest, "running").is_empty(), "{rest:?}");
    drop(s.cli);
    let report = tokio::time::timeout(SOON, s.session.closed())
        .await
        .unwrap();
    assert!(
        matches!(report.cause, ShutdownCause::CliExited { .. }),
        "{:?}",
        report.cause
    );
    assert_eq!(report.handlers_cancelled, 1);
    // The late request never ran.
    assert!(s.started.try_recv().is_err());
    assert_eq!(s.session.stats().handlers_pending, 0);
}

#[tokio::test]
async fn a_killed_handler_actor_still_leaves_the_cli_an_error_reply() {
    let mut s = start(1 << 20).await;
    s.cli.write(&request("h-1", "hang")).await;
    assert_eq!(s.started.recv().await.as_deref(), Some("h-1"));

    assert_eq!(s.session.fault().kill_handlers(), 1);
    let reply = s.cli.read().await.unwrap();
    assert_eq!(reply["response"]["request_id"], "h-1");
    assert_eq!(reply["response"]["subtype"], "error");
    let error = reply["response"]["error"].as_str().unwrap();
    assert!(error.starts_with("handler failed"), "{error}");
    assert_eq!(s.session.stats().handlers_pending, 0);

    still_answers(&mut s).await;
    let report = finish(&s.session, s.cli).await;
    // It had already been answered: nothing left to cancel.
    assert_eq!(report.handlers_cancelled, 0);
}

#[tokio::test]
async fn a_late_reply_to_a_forgotten_request_is_a_diagnostic_and_the_session_goes_on() {
    let mut s = start(1 << 20).await;
    let asking = tokio::spawn({
        let s = s.session.clone();
        async move {
            s.request(json!({"subtype":"slow"}), Some(Duration::from_millis(50)))
                .await
        }
    });
    let req = s.cli.read().await.unwrap();
    let id = req["request_id"].as_str().unwrap().to_owned();
    // Answer only once the host has given up on it.
    let gave_up = tokio::time::timeout(SOON, asking).await.unwrap().unwrap();
    assert!(
        matches!(gave_up, Err(ControlError::Timeout { .. })),
        "{gave_up:?}"
    );
    s.cli.reply(&req["request_id"], json!({})).await;
    diagnostic(
        &mut s.events,
        |d| matches!(d, Diagnostic::UnknownControlResponse { request_id } if *request_id == id),
    )
    .await;
    assert_eq!(s.session.stats().requests_pending, 0);

    still_answers(&mut s).await;
    let report = finish(&s.session, s.cli).await;
    assert_eq!(report.requests_failed, 0);
}

#[tokio::test]
async fn an_oversized_control_response_fails_the_waiting_request_and_the_session_goes_on() {
    let mut s = start(1024).await;
    let asking = tokio::spawn({
        let s = s.session.clone();
        async move { s.request(json!({"subtype":"big"}), None).await }
    });
    let req = s.cli.read().await.unwrap();
    let id = req["request_id"].as_str().unwrap().to_owned();
    // As the CLI prints it: type and id first, so the kept prefix shows
    // whose reply it is.
    let pad = "x".repeat(8_000);
    s.cli
        .write(&format!(
            r#"{{"type":"control_response","response":{{"subtype":"success","request_id":"{id}","response":{{"pad":"{pad}"}}}}}}"#
        ))
        .await;

    let failed = tokio::time::timeout(SOON, asking).await.unwrap().unwrap();
    match failed {
        Err(ControlError::Remote { message }) => {
            assert!(message.contains("over max_line_bytes"), "{message}")
        }
        other => panic!("expected a Remote error, got {other:?}"),
    }
    diagnostic(
        &mut s.events,
        |d| matches!(d, Diagnostic::OversizedControlResponse { request_id } if *request_id == id),
    )
    .await;

    still_answers(&mut s).await;
    finish(&s.session, s.cli).await;
}
