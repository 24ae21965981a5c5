//! Shared rig for the `real_cli_*` tests: the real Claude Code CLI against a
//! scripted Messages API on 127.0.0.1, each test with its own HOME and cwd.
//!
//! Every test using it is `#[ignore]`d, so a plain `cargo test` lists it as
//! ignored; `scripts/test.sh` adds `--include-ignored` when the CLI is
//! installed. Run without `CLAUDE_AGENT_CLI` naming the real CLI, a test
//! says so and returns, unless `CLAUDE_AGENT_REQUIRE_REAL_CLI=1`, which turns
//! a missing CLI into a failure.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use claude_agent::protocol::{ContentBlock, Message, ResultMessage};
use claude_agent::{client::Client, client::ClientBuilder, options::Options};
use claude_agent_testkit::model::{ModelScript, ModelServer};
use futures::StreamExt;
use tempfile::TempDir;

/// Bound on one turn of the real CLI against the local server.
pub const TURN: Duration = Duration::from_secs(60);

/// The real CLI, or `None` (after saying so) when this run may skip it.
pub fn real_cli() -> Option<PathBuf> {
    let required = std::env::var("CLAUDE_AGENT_REQUIRE_REAL_CLI").is_ok_and(|v| v == "1");
    match std::env::var_os("CLAUDE_AGENT_CLI").map(PathBuf::from) {
        Some(p) if p.is_file() && !is_fake(&p) => Some(p),
        other => {
            assert!(
                !required,
                "CLAUDE_AGENT_REQUIRE_REAL_CLI=1 but no real CLI at {other:?}"
            );
            eprintln!("SKIPPED: real-CLI test (set CLAUDE_AGENT_CLI to the real claude)");
            None
        }
    }
}

/// Whether `path` is the test kit's fake CLI (it answers `--version` like
/// the real one, so the name is what tells them apart).
fn is_fake(path: &std::path::Path) -> bool {
    let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let named_fake = real.file_name().is_some_and(|n| n == "fake-claude");
    let env_fake = std::env::var_os("CLAUDE_AGENT_FAKE_CLI")
        .and_then(|f| std::fs::canonicalize(f).ok())
        .is_some_and(|f| f == real);
    named_fake || env_fake
}

/// One test's world: the scripted model, a private HOME and a cwd.
pub struct Rig {
    /// The scripted Messages API.
    pub server: ModelServer,
    /// `HOME` of the CLI.
    pub home: TempDir,
    /// The CLI's working directory.
    pub cwd: TempDir,
    /// The real CLI.
    pub cli: PathBuf,
}

impl Rig {
    /// Starts the server with `script`; `None` when the real CLI is absent.
    pub async fn start(script: ModelScript) -> Option<Rig> {
        Self::start_with(|_| script).await
    }

    /// Like [`Rig::start`], with a script that may name paths in the cwd.
    pub async fn start_with(script: impl FnOnce(&Path) -> ModelScript) -> Option<Rig> {
        let cli = real_cli()?;
        let cwd = tempfile::tempdir().unwrap();
        let server = ModelServer::start(script(cwd.path())).await.unwrap();
        Some(Rig {
            server,
            home: tempfile::tempdir().unwrap(),
            cwd,
            cli,
        })
    }

    /// Options pointing the CLI at the server, HOME and cwd.
    pub fn options(&self) -> Options {
        self.options_without_cwd().cwd(self.cwd.path())
    }

    /// Options pointing the CLI at the server and HOME, with no working
    /// directory (a prewarmed spare parks until its claim names one).
    pub fn options_without_cwd(&self) -> Options {
        let mut options = Options::new()
            .cli_path(&self.cli)
            .env("HOME", self.home.path());
        for (k, v) in self.server.env() {
            options = options.env(k, v);
        }
        options
    }

    /// A builder with bounded start-up and short shutdown graces.
    pub fn builder(&self, options: Options) -> ClientBuilder {
        ClientBuilder::new(options)
            .initialize_timeout(Duration::from_secs(30))
            .control_timeout(Duration::from_secs(20))
            .grace(Duration::from_secs(2))
            .term_grace(Duration::from_secs(2))
    }

    /// Connects with `options` and the default builder settings.
    pub async fn connect(&self, options: Options) -> Client {
        tokio::time::timeout(TURN, self.builder(options).connect())
            .await
            .unwrap()
            .unwrap()
    }

    /// Whether `name` exists in the cwd.
    pub fn cwd_has(&self, name: &str) -> bool {
        self.cwd.path().join(name).exists()
    }
}

/// Reads one turn (bounded); returns its messages and its result.
pub async fn turn(client: &Client) -> (Vec<Message>, ResultMessage) {
    let mut stream = client.receive_response();
    let mut messages = Vec::new();
    let read = async {
        while let Some(m) = stream.next().await {
            messages.push(m.unwrap());
        }
    };
    tokio::time::timeout(TURN, read).await.unwrap();
    let result = messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::Result(r) => Some((**r).clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("a result in {:?}", kinds(&messages)));
    (messages, result)
}

/// The kinds of `messages`, for failure output.
pub fn kinds(messages: &[Message]) -> Vec<String> {
    messages.iter().map(Message::kind).collect()
}

/// The text blocks of every assistant message, concatenated.
pub fn assistant_text(messages: &[Message]) -> String {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => Some(a.message.blocks()),
            _ => None,
        })
        .flatten()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => t.text.as_deref(),
            _ => None,
        })
        .collect()
}

/// Ordered shutdown, then checks the CLI process is gone.
pub async fn shutdown(client: &Client) {
    let pid = client.pid().unwrap();
    let report = tokio::time::timeout(TURN, client.shutdown()).await.unwrap();
    assert!(report.exit.is_some(), "{report:?}");
    assert_gone(pid).await;
}

/// Waits (off the runtime's workers) until `pid` is gone.
pub async fn assert_gone(pid: u32) {
    let gone = tokio::task::spawn_blocking(move || {
        claude_agent_testkit::wait_until_gone(pid, Duration::from_secs(10))
    })
    .await
    .unwrap();
    assert!(gone, "pid {pid} still running");
}
