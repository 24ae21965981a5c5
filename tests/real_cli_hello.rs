//! Against the real Claude Code CLI, offline: a scripted Messages API on
//! 127.0.0.1 stands in for the model.
//!
//! Needs the real CLI named by `CLAUDE_AGENT_CLI`, so `#[ignore]`d: run
//! with `--include-ignored` (`scripts/test.sh` does when the CLI is
//! installed). `CLAUDE_AGENT_REQUIRE_REAL_CLI=1` makes a missing CLI fail.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use claude_agent::protocol::Message;
use claude_agent::{client::ClientBuilder, options::Options};
use claude_agent_testkit::model::{ModelScript, ModelServer, Reply};
use futures::StreamExt;

mod real_cli;
use real_cli::real_cli;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_hello_turn_through_the_real_cli() {
    let Some(cli) = real_cli() else { return };
    let server =
        ModelServer::start(ModelScript::new().reply(Reply::text("Hello from the script.")))
            .await
            .unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let mut options = Options::new()
        .cli_path(cli)
        .cwd(cwd.path())
        .env("HOME", home.path());
    for (k, v) in server.env() {
        options = options.env(k, v);
    }
    let mut q = ClientBuilder::new(options)
        .initialize_timeout(Duration::from_secs(30))
        .query("say hello");
    let mut result = None;
    while let Some(m) = tokio::time::timeout(Duration::from_secs(60), q.next())
        .await
        .unwrap()
    {
        if let Message::Result(r) = m.unwrap() {
            result = Some(r);
        }
    }
    let r = result.expect("a result");
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(r.result.as_deref(), Some("Hello from the script."));
    let first = server
        .main_requests()
        .into_iter()
        .next()
        .expect("a model request");
    let sent = first.body["messages"].to_string();
    assert!(
        sent.contains("say hello"),
        "the prompt reached the model: {sent:.300}"
    );
    let report = q.shutdown_report().unwrap();
    assert_eq!(format!("{:?}", report.escalation), "None");
}
