//! Extensions: what a connect does besides starting the CLI, as hooks
//! around the session's life.
//!
//! [`ClientBuilder::connect`](crate::client::ClientBuilder::connect) starts a
//! session in phases, and each [`Extension`] may act in any of them:
//!
//! 1. [`pre_start`](Extension::pre_start): before the CLI command is
//!    computed. Adjust the [`Options`](crate::options::Options) or the
//!    [`CommandContext`](crate::options::CommandContext), or fail the
//!    connect.
//! 2. [`configure`](Extension::configure): the runtime's
//!    [`SessionConfig`] is built, the CLI not
//!    yet spawned. Wrap the inbound handler, add a frame divert, subscribe
//!    to events.
//! 3. [`post_start`](Extension::post_start): the CLI replied to
//!    `initialize`. Check the reply; an error fails the connect and shuts
//!    the session down.
//! 4. [`post_stop`](Extension::post_stop): the session ended (every
//!    [`Client::shutdown`](crate::client::Client::shutdown), the end of a
//!    [`query`](crate::client::query())). See the runtime's report and add your part
//!    to the SDK's [`SessionReport`].
//!
//! [`connect_failed`](Extension::connect_failed) tells every extension
//! why a connect failed.
//!
//! Extensions nest like layers: the built-in ones are innermost, the user's
//! wrap them in the order added (the first added is the outermost).
//! `pre_start` runs from the outside in, so each extension sees the options
//! the outer ones set; the other hooks run from the inside out, so each one
//! wraps, checks or reports over what the inner ones did (a user's
//! `post_stop` sees the mirror's counts, a user's `post_start` runs once the
//! built-in checks passed).
//!
//! The built-in extensions, each in its own module here, from the outermost:
//! the fail-closed hook check, the MCP delivery check and the
//! `verbatim_prompts` version warning (`post_start`), telemetry, the
//! transcript, the diagnostics observer, the raw-frame recording, the
//! session-store mirror, the run-as user and the session-store restore.
//!
//! ```
//! use claude_agent::extensions::{Extension, Started, Stopped};
//! use claude_agent::{client::ClientBuilder, options::Options};
//!
//! /// Logs each session's id and how it ended.
//! struct LogSessions;
//!
//! impl Extension for LogSessions {
//!     fn name(&self) -> &str {
//!         "log_sessions"
//!     }
//!
//!     async fn post_start(&self, started: &Started<'_>) -> claude_agent::Result<()> {
//!         println!("connected: pid {:?}", started.session().pid());
//!         Ok(())
//!     }
//!
//!     async fn post_stop(&self, stopped: &mut Stopped<'_>) {
//!         let exit = stopped.runtime().exit.as_ref().map(|e| e.to_string());
//!         stopped.report(serde_json::json!({ "exit": exit }));
//!     }
//! }
//!
//! let builder = ClientBuilder::new(Options::new()).extension(LogSessions);
//! # let _ = builder;
//! ```

mod context;
mod list;
mod report;

pub(crate) mod diagnostics;
#[cfg(feature = "hooks")]
pub(crate) mod hook_check;
pub(crate) mod mcp_check;
#[cfg(feature = "store")]
pub(crate) mod mirror;
#[cfg(feature = "transcript")]
pub(crate) mod record_frames;
pub(crate) mod run_as;
#[cfg(feature = "store")]
pub(crate) mod store_restore;
#[cfg(feature = "telemetry")]
pub(crate) mod telemetry;
#[cfg(feature = "transcript")]
pub(crate) mod transcript;
#[cfg(not(feature = "transcript"))]
#[path = "transcript_off.rs"]
pub(crate) mod transcript;
pub(crate) mod version_warning;

use std::future::Future;

use futures::FutureExt;
use futures::future::BoxFuture;

use crate::runtime::SessionConfig;
use crate::{Error, Result};

pub(crate) use context::decode_server_info;
pub use context::{PreStart, Started, Stopped};
pub(crate) use list::ExtensionList;
pub use report::SessionReport;

/// Hooks around a session's life; every hook has a default that does
/// nothing. See the [module docs](self) for the phases and their order.
///
/// An extension given to [`ClientBuilder::extension`](crate::client::ClientBuilder::extension)
/// is shared by every session the builder connects (a
/// `Host` connects again on restart): keep per-session
/// state keyed by session, or none.
pub trait Extension: Send + Sync + 'static {
    /// A short name: the key of this extension's part of the
    /// [`SessionReport`], and what an [`Error::Extension`] names.
    fn name(&self) -> &str;

    /// Before the CLI command is computed: adjust the options or the
    /// command context; an error fails the connect.
    fn pre_start(&self, start: &mut PreStart<'_>) -> impl Future<Output = Result<()>> + Send {
        let _ = start;
        async { Ok(()) }
    }

    /// The runtime's session config, before the CLI is spawned; an error
    /// fails the connect.
    fn configure(&self, config: SessionConfig) -> Result<SessionConfig> {
        Ok(config)
    }

    /// The CLI replied to `initialize`; an error fails the connect, and the
    /// session is shut down (every extension's `post_stop` runs).
    fn post_start(&self, started: &Started<'_>) -> impl Future<Output = Result<()>> + Send {
        let _ = started;
        async { Ok(()) }
    }

    /// The connect failed with `error`, in any phase. Called on every
    /// extension, from the outermost, before the session (if it started)
    /// is shut down.
    fn connect_failed(&self, error: &Error) {
        let _ = error;
    }

    /// The session ended: read the runtime's report and add this
    /// extension's part with [`Stopped::report`].
    fn post_stop(&self, stopped: &mut Stopped<'_>) -> impl Future<Output = ()> + Send {
        let _ = stopped;
        async {}
    }
}

/// [`Extension`] with boxed futures, so extensions can be kept in a list.
pub(crate) trait DynExtension: Send + Sync + 'static {
    fn name(&self) -> &str;
    fn pre_start<'a>(&'a self, start: &'a mut PreStart<'_>) -> BoxFuture<'a, Result<()>>;
    fn configure(&self, config: SessionConfig) -> Result<SessionConfig>;
    fn post_start<'a>(&'a self, started: &'a Started<'_>) -> BoxFuture<'a, Result<()>>;
    fn connect_failed(&self, error: &Error);
    fn post_stop<'a>(&'a self, stopped: &'a mut Stopped<'_>) -> BoxFuture<'a, ()>;
}

impl<E: Extension> DynExtension for E {
    fn name(&self) -> &str {
        Extension::name(self)
    }

    fn pre_start<'a>(&'a self, start: &'a mut PreStart<'_>) -> BoxFuture<'a, Result<()>> {
        Extension::pre_start(self, start).boxed()
    }

    fn configure(&self, config: SessionConfig) -> Result<SessionConfig> {
        Extension::configure(self, config)
    }

    fn post_start<'a>(&'a self, started: &'a Started<'_>) -> BoxFuture<'a, Result<()>> {
        Extension::post_start(self, started).boxed()
    }

    fn connect_failed(&self, error: &Error) {
        Extension::connect_failed(self, error);
    }

    fn post_stop<'a>(&'a self, stopped: &'a mut Stopped<'_>) -> BoxFuture<'a, ()> {
        Extension::post_stop(self, stopped).boxed()
    }
}

/// The lock, whatever a panicking holder left: a slot stays valid.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
