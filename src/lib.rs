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
pub mod extensions;
#[cfg(feature = "nats")]
pub mod fleet;
pub mod host;
pub mod options;
pub mod protocol;
pub mod sessions;
pub mod store;
pub mod telemetry;
pub mod transcript;

pub use client::{
    Client, ClientBuilder, ContextDetail, LiveMcpServer, Prompt, Query, QueryPrompt, SettingsFile,
    TransportFactory, query,
};
pub use error::{Error, Result};
pub use extensions::{Extension, SessionReport};
#[cfg(feature = "nats")]
pub use fleet::{Fleet, JobOutcome, JobSpec, StreamLayout};
pub use host::Host;
pub use options::Options;

pub mod runtime {
    //! The session runtime (the `claude-agent-actors` crate), re-exported
    //! whole so nothing a user must name needs a direct dependency on it:
    //! [`Session`] and [`SessionConfig`] for driving the CLI without the SDK
    //! layer, the [`channel`] seam, [`process`] specs, framing, and every
    //! error, event and report type.
    pub use claude_agent_actors::*;
}

/// The runtime's types a user meets through the SDK: the errors inside
/// [`Error`], shutdown reports, lifecycle and diagnostic events, the idle
/// watchdog. Everything else of the runtime is in [`runtime`].
pub use runtime::{
    ControlError, ControlStatus, Diagnostic, Escalation, EscalationStep, LifecycleEvent,
    SessionError, SessionEvent, SessionStats, ShutdownCause, ShutdownReport, ShutdownTimings,
    StartError, StepReason, Watchdog, WatchdogAction, channel::ChannelError, channel::Spawner,
    channel::SpawnerError, process::ExitInfo, process::ProcessSpec,
};

/// The README's examples, compiled as doctests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
