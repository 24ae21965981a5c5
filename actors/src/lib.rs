//! How frames move: one supervised ractor tree per Claude Code session.
//!
//! ```text
//! SessionSupervisor            ordered start and stop; every shutdown path
//!  |- TransportActor           the channel's writer + ChannelControl (signals, reaping)
//!  |- ControlDispatch          our requests by id; supervises the handlers
//!  |   `- Handler(req_id) ...   one per CLI request, spawned by the reader
//!  |- ReaderActor              the ONE stdout read loop; framing; routing
//!  `- (stderr drain task)      a bounded ring of the last stderr lines
//! ```
//!
//! Start a session with [`Session::start`]; read the CLI's messages from the
//! [`FrameStream`]; end it with [`Session::shutdown`], which returns a
//! [`ShutdownReport`]. The ordering and shutdown contract is written down in
//! `docs/semantics.md`.
//!
//! ```no_run
//! use claude_agent_actors::{Session, SessionConfig, process::ProcessSpec};
//! use futures::StreamExt;
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let (session, mut frames) = Session::start(SessionConfig::subprocess(ProcessSpec::new("claude"))).await?;
//! session.send(&serde_json::json!({"type": "user", "message": {"role": "user", "content": "hi"}})).await?;
//! while let Some(frame) = frames.next().await {
//!     if frame?.kind == "result" { break; }
//! }
//! let report = session.shutdown().await;
//! assert!(report.exit.is_some());
//! # Ok(()) }
//! ```

// One boxed future type per crate for spawned tasks (`task.rs`).
#![cfg_attr(not(test), deny(clippy::disallowed_methods))]

pub mod channel;
pub mod process;
pub mod stderr;

mod dispatch;
mod error;
#[cfg(test)]
mod error_chains;
mod events;
#[cfg(feature = "fault-injection")]
mod fault;
mod reader;
mod session;
mod supervisor;
mod task;
mod transport;

pub use reader::framing;

pub use dispatch::handler::{InboundHandler, RejectAll};
pub use dispatch::inbound::{InboundRequest, RawRequest};
pub use dispatch::outcome::ControlStatus;
#[doc(hidden)]
pub use error::panic_message;
pub use error::{ControlError, HandlerError, SessionError, StartError};
pub use events::{
    Diagnostic, EVENT_CAPACITY, LifecycleEvent, SessionEvent, SessionStats, SkipReason,
};
#[cfg(feature = "fault-injection")]
pub use fault::FaultInjector;
pub use session::backpressure::DEFAULT_MAX_BUFFERED_BYTES;
pub use session::config::{
    DEFAULT_CONTROL_TIMEOUT, DEFAULT_GRACE, DivertRoom, FrameDivert, STREAM_CLOSE_TIMEOUT_ENV,
    SessionConfig, Watchdog, WatchdogAction,
};
pub use session::frame::Frame;
pub use session::handle::Session;
pub use session::live_sessions::{SessionInfo, live_sessions};
pub use session::start::StartFuture;
pub use session::stream::FrameStream;
pub use session::tap::{WireDirection, WireTap};
pub use supervisor::shutdown::ladder::{
    Escalation, EscalationStep, ShutdownCause, ShutdownReport, ShutdownTimings, StepReason,
};
pub use supervisor::shutdown::timeouts::ShutdownTimeouts;
pub use tokio_util::sync::CancellationToken;
pub use transport::stdin_queue::DEFAULT_MAX_STDIN_BYTES;
