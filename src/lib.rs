//! Run Claude Code from Rust, in programs that stay up.
//!
//! `claude-agent` embeds the Claude Code CLI (`claude`) in Rust programs:
//! it spawns the CLI, speaks its stream-json protocol, and gives you typed
//! [`Message`](protocol::Message)s, callbacks (permissions, and with
//! features hooks and in-process MCP tools) and a lifecycle you can trust: every session shuts
//! down in order, escalating from EOF to SIGTERM to SIGKILL, and leaves no
//! process behind.
//!
//! ```sh
//! cargo add claude-agent
//! cargo add tokio --features macros,rt-multi-thread
//! npm install -g @anthropic-ai/claude-code   # the CLI it drives
//! ```
//!
//! Ask once and print the answer:
//!
//! ```no_run
//! use claude_agent::prelude::*;
//!
//! #[tokio::main]
//! async fn main() -> claude_agent::Result<()> {
//!     let answer = query("What is 2 + 2?", Options::new()).text().await?;
//!     println!("{answer}");
//!     Ok(())
//! }
//! ```
//!
//! A conversation that answers the CLI's permission prompts:
//!
//! ```no_run
//! use claude_agent::callbacks::{PermissionContext, allow, deny};
//! use claude_agent::prelude::*;
//! use claude_agent::protocol::PermissionRequest;
//!
//! #[tokio::main]
//! async fn main() -> claude_agent::Result<()> {
//!     let client = Client::builder(Options::new())
//!         .can_use_tool(|req: PermissionRequest, _: PermissionContext| async move {
//!             match req.tool_name.as_deref() {
//!                 Some("Read" | "Glob") => Ok(allow()),
//!                 _ => Ok(deny("read-only session")),
//!             }
//!         })
//!         .connect()
//!         .await?;
//!     client.send("Summarise README.md").await?;
//!     let mut replies = client.receive_response();
//!     while let Some(message) = replies.next().await {
//!         if let Some(text) = message?.text() {
//!             println!("{text}");
//!         }
//!     }
//!     let report = client.shutdown().await;
//!     println!("the CLI exited: {}", report.exit.map_or("?".into(), |e| e.to_string()));
//!     Ok(())
//! }
//! ```
//!
//! Every frame the CLI writes parses into a typed value, and unknown kinds
//! are kept, never dropped:
//!
//! ```
//! use claude_agent::protocol::{Message, parse_message};
//!
//! let line = br#"{"type":"assistant","message":{"content":[{"type":"text","text":"4"}]}}"#;
//! assert_eq!(parse_message(line)?.text().as_deref(), Some("4"));
//! let newer = parse_message(br#"{"type":"hologram","x":1}"#)?;
//! assert!(matches!(newer, Message::Unknown { ref kind, .. } if kind == "hologram"));
//! assert_eq!(newer.to_json()?, r#"{"type":"hologram","x":1}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **Which CLI runs.** [`Options::cli_path`](options::Options::cli_path), else the `CLAUDE_AGENT_CLI`
//! environment variable, else `PATH`, `node_modules/.bin` in the working
//! directory and its parents, and the usual install locations
//! ([`discovery`]). **Tests** need no real CLI: the `claude-agent-testkit`
//! crate's `fake-claude` answers, crashes, hangs or floods on cue; point
//! `CLAUDE_AGENT_CLI` or [`Options::cli_path`](options::Options::cli_path) at it.
//!
//! **Where to go next.** [`Client`](client::Client) for long-lived
//! sessions, [`query`](client::query) for one-shot runs, [`callbacks`] for
//! permission prompts: these are the default build. The rest is behind
//! features, so a program compiles only what it uses: hooks (feature
//! `hooks`), in-process MCP servers (feature `mcp`), `Host` (feature `host`) for many
//! sessions with quotas and drain, `store` (feature `store`) and `sessions`
//! (feature `sessions`) for transcripts that outlive a machine,
//! `transcript` (feature `transcript`) for a correlated record of a run or
//! its raw frames, `telemetry` (feature `telemetry`) for OpenTelemetry,
//! `settings` (feature `settings`) for the settings a session would see,
//! resolved without starting one.
//! How frames *move* (processes, pipes, actors, shutdown) is the
//! `claude-agent-actors` crate, re-exported as [`runtime`].
//!
//! **Paths.** Every type has one path: the SDK's in their modules
//! ([`client`], [`options`], [`protocol`], ...), the runtime's in
//! [`runtime`], and [`Error`] and [`Result`] here; [`prelude`] gathers what
//! a first program names.

// One boxed future type per crate for spawned tasks (`task.rs`).
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

pub mod callbacks;
pub mod client;
pub mod discovery;
mod error;
#[cfg(test)]
mod error_chains;
pub mod extensions;
#[cfg(feature = "fault-injection")]
pub mod fault;
#[cfg(feature = "host")]
pub mod fleet;
#[cfg(feature = "host")]
pub mod host;
pub mod options;
pub mod prelude;
pub mod protocol;
mod random;
mod session_id;
#[cfg(feature = "sessions")]
pub mod sessions;
#[cfg(feature = "settings")]
pub mod settings;
#[cfg(feature = "store")]
pub mod store;
mod task;
#[cfg(feature = "telemetry")]
pub mod telemetry;
#[cfg(not(feature = "telemetry"))]
#[path = "telemetry_off.rs"]
pub(crate) mod telemetry;
#[cfg(feature = "transcript")]
pub mod transcript;
#[cfg(not(feature = "transcript"))]
#[path = "transcript_off.rs"]
pub(crate) mod transcript;

pub use error::{Error, Result};

pub mod runtime {
    //! The session runtime (the `claude-agent-actors` crate), re-exported
    //! whole so nothing a user must name needs a direct dependency on it:
    //! [`Session`] and [`SessionConfig`] for driving the CLI without the SDK
    //! layer, the [`channel`] seam, [`process`] specs, framing, and every
    //! error, event and report type the SDK hands out (shutdown reports,
    //! lifecycle and diagnostic events, the idle watchdog).
    pub use claude_agent_actors::*;
}

/// The README's examples, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
