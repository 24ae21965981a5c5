//! Embed the Claude Code CLI in long-running Rust programs.
//!
//! This crate knows what frames *mean*: the typed stream-json protocol
//! ([`protocol`]), the mapping from [`options`] to the CLI's argv and
//! environment, and CLI [`discovery`]. How frames *move* (processes, pipes,
//! actors, shutdown) lives in the `claude-agent-actors` crate.

pub mod discovery;
pub mod error;
pub mod options;
pub mod protocol;
