//! Errors keep their cause: `source()` of `claude_agent::Error` leads to
//! the underlying error (the OS error of a failed write or file open, the
//! JSON error of a bad config), not to a string copy of it. The failures
//! are real: a pipe whose reader is gone, a directory that does not exist,
//! JSON that does not parse.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::error::Error as _;
use std::io;
use std::time::Duration;

use claude_agent::callbacks::mcp::SdkMcpServer;
use claude_agent::options::{McpServers, OptionsError};
use claude_agent::runtime::channel::DuplexTransport;
use claude_agent::runtime::{Session, SessionConfig};
use claude_agent::{Error, client::ClientBuilder, runtime::SessionError, runtime::StartError};
use claude_agent_testkit::Script;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The `io::Error` at the end of `e`'s source chain, if any.
fn io_source<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a io::Error> {
    let mut cur = e.source();
    while let Some(s) = cur {
        if let Some(io) = s.downcast_ref::<io::Error>() {
            return Some(io);
        }
        cur = s.source();
    }
    None
}

#[tokio::test]
async fn a_failed_write_keeps_the_os_error_as_its_source() {
    let (transport, mut far) = DuplexTransport::new(64 * 1024);
    // Play the CLI just long enough to answer `initialize`.
    let mut stdin = BufReader::new(far.stdin);
    let mut line = String::new();
    let answered = async {
        stdin.read_line(&mut line).await.unwrap();
        let req: Value = serde_json::from_str(&line).unwrap();
        let reply = json!({"type": "control_response", "response": {"subtype": "success",
            "request_id": req["request_id"], "response": {}}});
        far.stdout
            .write_all(format!("{reply}\n").as_bytes())
            .await
            .unwrap();
    };
    let cfg = SessionConfig::new(transport)
        .initialize_timeout(Duration::from_secs(5))
        .grace(Duration::from_millis(100))
        .term_grace(Duration::from_millis(100));
    let (started, ()) = tokio::join!(Session::start(cfg), answered);
    let (session, _frames) = started.unwrap();
    // The CLI stops reading its stdin but stays alive: the next write breaks.
    drop(stdin);
    let err = session
        .send(&json!({"type": "user", "message": {"role": "user", "content": "hi"}}))
        .await
        .unwrap_err();
    let SessionError::Write(os) = &err else {
        panic!("expected a write error, got {err:?}");
    };
    assert_eq!(os.kind(), io::ErrorKind::BrokenPipe);

    let top = Error::from(err);
    let source = io_source(&top).expect("an io::Error in the chain");
    assert_eq!(source.kind(), io::ErrorKind::BrokenPipe);
    session.shutdown().await;
    drop(far.stdout);
}

#[tokio::test]
async fn an_unopenable_recording_keeps_the_os_error_as_its_source() {
    let fake = common::fake(Script::new());
    let missing = fake.dir.path().join("no-such-dir").join("frames.ndjson");
    let err = ClientBuilder::new(fake.options())
        .record_frames(&missing)
        .connect()
        .await
        .expect_err("the recording cannot be created");
    assert!(matches!(err, Error::Recording(_)), "{err:?}");
    assert_eq!(
        io_source(&err).map(io::Error::kind),
        Some(io::ErrorKind::NotFound)
    );
}

#[tokio::test]
async fn bad_mcp_config_json_keeps_the_json_error_as_its_source() {
    let fake = common::fake(Script::new());
    let options = fake
        .options()
        .mcp_servers(McpServers::Json("{not json".into()));
    let err = ClientBuilder::new(options)
        .mcp_server(SdkMcpServer::new("tools", "1.0"))
        .connect()
        .await
        .expect_err("the mcp config does not parse");
    assert!(
        matches!(&err, Error::Options(OptionsError::Json { .. })),
        "{err:?}"
    );
    let options_err = err.source().expect("the options error");
    let json = options_err.source().expect("the json error");
    assert!(
        json.downcast_ref::<serde_json::Error>().is_some(),
        "{json:?}"
    );
}

#[test]
fn encode_and_spawn_errors_chain_to_their_cause() {
    let json_err = serde_json::from_str::<Value>("{").unwrap_err();
    let line = json_err.line();
    let top = Error::Encode(json_err.into());
    let encode = top.source().expect("the encode error");
    let json = encode
        .source()
        .and_then(|s| s.downcast_ref::<serde_json::Error>())
        .expect("serde_json's error under the encode error");
    assert_eq!(json.line(), line);

    let start = Error::from(StartError::Spawn(Box::new(io::Error::other("no threads"))));
    assert_eq!(
        io_source(&start).map(ToString::to_string).as_deref(),
        Some("no threads")
    );
}
