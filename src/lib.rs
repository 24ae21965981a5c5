//! Embed the Claude Code CLI in long-running Rust programs.
//!
//! This crate knows what frames *mean*: the typed stream-json protocol
//! ([`protocol`]), the mapping from [`options`] to the CLI's argv and
//! environment, and CLI [`discovery`]. How frames *move* (processes, pipes,
//! actors, shutdown) lives in the `claude-agent-actors` crate.

pub mod callbacks;
pub mod client;
pub mod discovery;
pub mod error;
pub mod host;
pub mod options;
pub mod protocol;
pub mod telemetry;
pub mod transcript;

pub use client::{Client, ClientBuilder, Prompt, Query, QueryPrompt, query};
pub use error::{Error, Result};
pub use host::Host;
pub use options::Options;

/// The runtime's types a host meets through the SDK: shutdown reports,
/// lifecycle and diagnostic events, the idle watchdog.
pub use claude_agent_actors::{
    Diagnostic, Escalation, EscalationStep, LifecycleEvent, SessionEvent, SessionStats,
    ShutdownCause, ShutdownReport, StepReason, Watchdog, WatchdogAction, process::ExitInfo,
};

/// The README's examples, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
