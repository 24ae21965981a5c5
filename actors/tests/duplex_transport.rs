//! A non-process channel: no signals, so escalation is close, grace, then
//! abort. The test plays the CLI in-process over a `DuplexTransport`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use claude_agent_actors::channel::{DuplexFarEnd, DuplexTransport};
use claude_agent_actors::{Escalation, Session, SessionConfig, ShutdownReport};
use common::{GRACE, next_frame};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Answers control requests; on EOF exits with 0 if `exit_on_eof`, else
/// ignores EOF and waits to be aborted.
async fn play_cli(mut far: DuplexFarEnd, exit_on_eof: bool) {
    let mut lines = BufReader::new(&mut far.stdin).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "control_request" {
            let reply = json!({"type":"control_response","response":{"subtype":"success","request_id":v["request_id"],"response":{"transport":"duplex"}}});
            far.stdout
                .write_all(format!("{reply}\n").as_bytes())
                .await
                .unwrap();
            far.stdout
                .write_all(b"{\"type\":\"assistant\",\"hello\":1}\n")
                .await
                .unwrap();
        }
    }
    drop(lines);
    if exit_on_eof {
        // Like a process: report the exit, and its pipes close with it.
        far.exit(0);
        drop(far);
    }
    futures::future::pending::<()>().await;
}

async fn run(exit_on_eof: bool) -> ShutdownReport {
    let (transport, far) = DuplexTransport::new(64 * 1024);
    let cli = tokio::spawn(play_cli(far, exit_on_eof));
    let cfg = SessionConfig::new(transport)
        .grace(GRACE)
        .term_grace(GRACE)
        .initialize_timeout(Duration::from_secs(5));
    let (session, mut stream) = Session::start(cfg).await.unwrap();
    assert_eq!(session.pid(), None);
    assert_eq!(session.server_info()["transport"], "duplex");
    assert_eq!(
        next_frame(&mut stream).await.unwrap().unwrap().kind,
        "assistant"
    );
    let report = session.shutdown().await;
    cli.abort();
    report
}

#[tokio::test]
async fn far_end_that_exits_on_eof_needs_no_escalation() {
    let report = run(true).await;
    assert_eq!(report.escalation, Escalation::None);
    assert_eq!(report.exit.unwrap().code, Some(0));
    assert!(report.timings.total < GRACE);
}

#[tokio::test]
async fn far_end_ignoring_eof_is_aborted_after_grace_without_a_term_step() {
    let report = run(false).await;
    assert_eq!(report.escalation, Escalation::Kill);
    assert_eq!(report.timings.term_sent, None, "no signals on this channel");
    let kill = report.timings.kill_sent.unwrap();
    assert!(
        kill >= GRACE && kill < GRACE + Duration::from_secs(1),
        "{kill:?}"
    );
}
