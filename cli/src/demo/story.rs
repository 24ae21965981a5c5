//! The client's side of the demo, the same against the real CLI and the
//! fake: two turns, a permission decision, an in-process MCP tool, then an
//! ordered shutdown, narrated as they happen.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};
use claude_agent::callbacks::{CallbackError, Decision, PermissionContext, allow, deny};
use claude_agent::protocol::{Message, PermissionRequest, ResultMessage, StdoutFrame};
use claude_agent::{client::Client, options::Options};
use claude_agent_actors::{Escalation, ShutdownReport};
use futures::StreamExt;

use super::say;
use crate::render::Renderer;

/// The one command the permission policy allows.
pub(crate) const BASH_COMMAND: &str = "touch demo.txt";
/// The in-process MCP server.
pub(crate) const MCP_SERVER: &str = "calc";
/// Its tool as the model names it.
pub(crate) const MCP_TOOL: &str = "mcp__calc__add";
/// What the model says after creating the file.
pub(crate) const TURN1_TEXT: &str = "Created demo.txt.";
/// What the model says after adding.
pub(crate) const TURN2_TEXT: &str = "2 + 3 = 5";

const TURNS: [&str; 2] = ["create a file named demo.txt", "add 2 and 3"];

/// How long `initialize` and each control reply may take (the real CLI
/// starts Node and loads its tools first).
const STARTUP: Duration = Duration::from_secs(60);

/// Where the story went wrong.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoryError {
    /// The session could not start or a message could not be sent.
    #[error("the session failed")]
    Session(#[from] claude_agent::Error),
    /// A turn ended without a result.
    #[error("turn {turn} ended without a result (the CLI's stderr: {})", stderr.join(" | "))]
    NoResult {
        /// 1 or 2.
        turn: usize,
        /// The last lines of the CLI's stderr.
        stderr: Vec<String>,
    },
    /// A turn's result was an error.
    #[error("turn {turn} ended with an error result: {subtype}")]
    ErrorResult {
        /// 1 or 2.
        turn: usize,
        /// The result's subtype.
        subtype: String,
    },
    /// A step of the story did not happen.
    #[error("the story went wrong: {0}")]
    Missing(&'static str),
    /// The whole demo took too long.
    #[error("the demo did not finish within {} s", .0.as_secs_f64())]
    TimedOut(Duration),
}

/// What happened, as seen by the callbacks.
#[derive(Debug, Default)]
struct Seen {
    allowed_bash: AtomicBool,
    mcp_calls: AtomicUsize,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

/// Runs the two turns through the CLI `options` names, narrating, then
/// shuts down and checks `cwd/demo.txt` exists.
pub(crate) async fn tell(options: Options, cwd: &Path) -> Result<(), StoryError> {
    let seen = Arc::new(Seen::default());
    let (on_perm, on_tool) = (Arc::clone(&seen), Arc::clone(&seen));
    let add = Tool::typed::<Add>("add", "Add two integers", move |args, _ctx| {
        on_tool.mcp_calls.fetch_add(1, Ordering::SeqCst);
        let sum = args.a.checked_add(args.b);
        async move {
            match sum {
                Some(sum) => {
                    say(&format!(
                        "[mcp] {MCP_SERVER}.add({}, {}) = {sum}",
                        args.a, args.b
                    ));
                    Ok(ToolResult::text(sum.to_string()))
                }
                None => Ok(ToolResult::error("the sum overflows")),
            }
        }
    });
    let client = Client::builder(options)
        .can_use_tool(move |req: PermissionRequest, _ctx: PermissionContext| {
            let tool = req.tool_name.clone().unwrap_or_default();
            let command = req.input.as_ref().and_then(|i| i["command"].as_str());
            let ok = tool == "Bash" && command == Some(BASH_COMMAND);
            if ok {
                on_perm.allowed_bash.store(true, Ordering::SeqCst);
                say(&format!("[permission] allow {tool}: `{BASH_COMMAND}`"));
            } else {
                say(&format!("[permission] deny {tool}: not part of the demo"));
            }
            async move {
                Ok::<_, CallbackError>(if ok {
                    allow()
                } else {
                    deny(format!("the demo allows only Bash `{BASH_COMMAND}`"))
                })
            }
        })
        .mcp_server(SdkMcpServer::new(MCP_SERVER, "1.0.0").tool(add))
        .on_decision(Arc::new(|d: &Decision| {
            if let Decision::McpCall { tool, is_error, .. } = d {
                say(&format!("[mcp] answered {tool} (error: {is_error})"));
            }
        }))
        .initialize_timeout(STARTUP)
        .control_timeout(STARTUP)
        .connect()
        .await?;
    let turns = run_turns(&client).await;
    let report = client.shutdown().await;
    say(&shutdown_line(&report));
    turns?;
    if !seen.allowed_bash.load(Ordering::SeqCst) {
        return Err(StoryError::Missing("the CLI never asked to run Bash"));
    }
    if seen.mcp_calls.load(Ordering::SeqCst) == 0 {
        return Err(StoryError::Missing("the CLI never called the MCP tool"));
    }
    if !cwd.join("demo.txt").is_file() {
        return Err(StoryError::Missing("demo.txt was not created"));
    }
    say(&format!("[check] demo.txt exists in {}", cwd.display()));
    say("demo finished: a permission decision, a tool call and an in-process MCP tool");
    Ok(())
}

async fn run_turns(client: &Client) -> Result<(), StoryError> {
    for (i, prompt) in TURNS.into_iter().enumerate() {
        let turn = i + 1;
        say(&format!("[you] {prompt}"));
        client.send(prompt).await?;
        let mut stream = client.receive_response();
        let mut result = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(Message::Result(r)) => {
                    say(&result_line(&r));
                    result = Some(r);
                }
                Ok(m @ (Message::Assistant(_) | Message::User(_))) => narrate(m),
                Ok(_) => {}
                // A malformed line is skipped by the stream; say so and go on.
                Err(claude_agent::Error::Parse(e)) => say(&format!("[note] skipped: {e}")),
                Err(e) => return Err(e.into()),
            }
        }
        let r = result.ok_or_else(|| StoryError::NoResult {
            turn,
            stderr: client.stderr_tail(),
        })?;
        if r.is_error() {
            return Err(StoryError::ErrorResult {
                turn,
                subtype: r.subtype.to_string(),
            });
        }
    }
    Ok(())
}

fn narrate(m: Message) {
    let mut buf = Vec::new();
    if Renderer.frame(&mut buf, &StdoutFrame::Message(m)).is_ok() {
        say(String::from_utf8_lossy(&buf).trim_end());
    }
}

fn result_line(r: &ResultMessage) -> String {
    let cost = r
        .total_cost_usd
        .as_ref()
        .and_then(|n| n.as_f64())
        .map_or_else(|| "?".to_owned(), |c| format!("${c:.4}"));
    let turns = r
        .num_turns
        .map_or_else(|| "?".to_owned(), |n| n.to_string());
    format!("[result] {} after {turns} turn(s), cost {cost}", r.subtype)
}

fn shutdown_line(report: &ShutdownReport) -> String {
    let escalation = match report.escalation {
        Escalation::None => "none",
        Escalation::Term => "SIGTERM",
        Escalation::Kill => "SIGKILL",
    };
    let exit = match &report.exit {
        Some(e) => match (e.code, e.signal) {
            (Some(code), _) => format!("exit code {code}"),
            (None, Some(sig)) => format!("killed by signal {sig}"),
            (None, None) => "unknown".to_owned(),
        },
        None => "unknown".to_owned(),
    };
    format!("[shutdown] escalation: {escalation}, CLI {exit}")
}
