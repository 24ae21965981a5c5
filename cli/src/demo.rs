//! `claude-agent demo`: a short narrated session, with no setup.
//!
//! With the real Claude Code CLI installed, the story runs through it
//! against a scripted Messages API on 127.0.0.1 (no network, no account);
//! without it, through the built-in fake CLI (`claude-agent __fake-cli`)
//! playing the CLI's side of the same story. The client side is the same
//! code either way ([`story`]).
//!
//! Exit codes: 0 the story ran to its end; 2 it did not (one line on
//! stderr says why); 64 usage error.

mod cli;
mod fake_script;
mod scratch;
mod story;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use claude_agent::options::Options;
use claude_agent_testkit::model::{ModelScript, ModelServer, Reply};
use serde_json::json;

use cli::Found;
use scratch::Scratch;

/// Arguments of `claude-agent demo`.
#[derive(Debug, clap::Args)]
pub(crate) struct DemoArgs {
    /// Use the built-in fake CLI even when the real one is installed.
    #[arg(long)]
    fake: bool,
}

/// Why the demo could not tell its story.
#[derive(Debug, thiserror::Error)]
pub(crate) enum DemoError {
    /// The tokio runtime did not start.
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// The private HOME / working directory could not be made.
    #[error("cannot create a scratch directory under {}", dir.display())]
    Scratch {
        /// Where it was attempted.
        dir: std::path::PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The scripted model server did not start.
    #[error("cannot start the scripted model server")]
    ModelServer(#[source] std::io::Error),
    /// The fake CLI's launcher could not be written.
    #[error("cannot prepare the built-in fake CLI")]
    FakeCli(#[source] std::io::Error),
    /// The session went wrong.
    #[error(transparent)]
    Story(#[from] story::StoryError),
}

/// Writes one line to stdout; a closed stdout must not abort the session.
pub(crate) fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

/// Runs the demo and maps its outcome to the exit code.
pub(crate) fn run(args: &DemoArgs) -> ExitCode {
    let outcome = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(DemoError::Runtime)
        .and_then(|rt| rt.block_on(demo(args)));
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("claude-agent demo: {}", crate::store::with_causes(&e));
            ExitCode::from(2)
        }
    }
}

async fn demo(args: &DemoArgs) -> Result<(), DemoError> {
    let scratch = Scratch::new()?;
    let real = if args.fake {
        None
    } else {
        cli::find_real().await
    };
    let options = Options::new()
        .cwd(scratch.cwd())
        .env("HOME", scratch.home())
        .allowed_tools([story::MCP_TOOL]);
    // Kept alive until the story ends: dropping it stops the server.
    let _server;
    let options = match real {
        Some(Found { path, version }) => {
            let server = ModelServer::start(model_script())
                .await
                .map_err(DemoError::ModelServer)?;
            say(&format!(
                "using the real Claude Code CLI {version} at {} against a scripted model on {}",
                path.display(),
                server.addr()
            ));
            let mut options = options.cli_path(path);
            for (k, v) in server.env() {
                options = options.env(k, v);
            }
            _server = Some(server);
            options
        }
        None => {
            say(if args.fake {
                "using the built-in fake CLI (--fake)"
            } else {
                "no Claude Code CLI found; using the built-in fake CLI \
                 (install the real one with: npm install -g @anthropic-ai/claude-code)"
            });
            _server = None;
            let launcher = cli::fake_launcher(scratch.root()).map_err(DemoError::FakeCli)?;
            // A script file, not `FAKE_CLAUDE_SCRIPT_JSON`: the file variable
            // wins, so an inherited one cannot replace the story.
            let script = scratch.root().join("fake-script.json");
            std::fs::write(&script, fake_script::script(scratch.cwd()).to_string())
                .map_err(DemoError::FakeCli)?;
            options
                .cli_path(launcher)
                .env(claude_agent_testkit::ENV_SCRIPT, script)
        }
    };
    let bound = Duration::from_secs(120);
    match tokio::time::timeout(bound, story::tell(options, scratch.cwd())).await {
        Ok(result) => result?,
        Err(_) => return Err(story::StoryError::TimedOut(bound).into()),
    }
    Ok(())
}

/// The model's side of the story, for the real CLI.
fn model_script() -> ModelScript {
    ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_demo_1",
            "Bash",
            json!({"command": story::BASH_COMMAND, "description": "Create demo.txt"}),
        ))
        .reply(Reply::text(story::TURN1_TEXT))
        .reply(Reply::tool_use(
            "toolu_demo_2",
            story::MCP_TOOL,
            json!({"a": 2, "b": 3}),
        ))
        .reply(Reply::text(story::TURN2_TEXT))
}
