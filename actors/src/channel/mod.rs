//! The replaceable byte channel a session runs over.
//!
//! A session needs three byte streams (the CLI's stdin, stdout and stderr)
//! and a handle on the far end's lifecycle. The default [`Transport`] is a
//! local subprocess ([`SubprocessTransport`]), whose command a [`Spawner`]
//! may rewrite (to run the CLI under `bwrap`, `unshare`, `ssh`); a user can
//! supply another transport (a container exec stream, a socket to a remote
//! runner). [`DuplexTransport`]
//! is a small in-memory example, handy in tests: the test plays the CLI.
//!
//! ```
//! # use claude_agent_actors::channel::{DuplexTransport, Transport};
//! # use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (transport, mut cli) = DuplexTransport::new(4096);
//! let mut conn = Box::new(transport).connect().await?;
//! conn.writer.write_all(b"ping\n").await?;
//! let mut got = [0u8; 5];
//! cli.stdin.read_exact(&mut got).await?;
//! assert_eq!(&got, b"ping\n");
//! assert_eq!(conn.control.pid(), None);
//! # Ok(()) }
//! ```

mod duplex;
#[cfg(test)]
mod duplex_tests;
mod spawner;
mod stdin;
mod subprocess;

use std::fmt;
use std::path::PathBuf;

use futures::future::BoxFuture;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::process::ExitInfo;

pub use duplex::{DuplexFarEnd, DuplexTransport};
pub use spawner::{SharedSpawner, Spawner, SpawnerError};
pub use subprocess::{SubprocessControl, SubprocessTransport};

/// The byte channel a session runs over. The default is a local subprocess;
/// a user can supply another (container exec stream, socket to a remote
/// runner).
pub trait Transport: Send + 'static {
    /// A short name for reports/traces (`"subprocess"`, `"tcp"`, ...).
    fn kind(&self) -> &'static str;
    /// Opens the channel.
    fn connect(self: Box<Self>) -> BoxFuture<'static, Result<Connection, ChannelError>>;
}

/// An open channel, split into its parts.
pub struct Connection {
    /// The CLI's stdout.
    pub reader: Box<dyn AsyncRead + Send + Unpin>,
    /// The CLI's stdin. `shutdown` closes it: the far end reads EOF.
    pub writer: Box<dyn AsyncWrite + Send + Unpin>,
    /// The CLI's stderr, if the channel carries one.
    pub stderr: Option<Box<dyn AsyncRead + Send + Unpin>>,
    /// Lifecycle of the far end.
    pub control: Box<dyn ChannelControl>,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("has_stderr", &self.stderr.is_some())
            .field("pid", &self.control.pid())
            .finish_non_exhaustive()
    }
}

/// Lifecycle of the far end. For a subprocess: signals to the group,
/// reaping. For a remote stream: close/abort.
pub trait ChannelControl: Send + 'static {
    /// The process id; `None` when not a local process.
    fn pid(&self) -> Option<u32>;
    /// The process group id; `None` when not a local process.
    fn pgid(&self) -> Option<u32>;
    /// Whether [`terminate`](Self::terminate) and [`kill`](Self::kill) send
    /// signals (as opposed to closing a stream).
    fn supports_signals(&self) -> bool;
    /// Polite stop: SIGTERM to the group (subprocess) or close (remote).
    fn terminate(&mut self) -> std::io::Result<()>;
    /// Forceful stop: SIGKILL to the group, or abort.
    fn kill(&mut self) -> std::io::Result<()>;
    /// Resolves when the far end has ended (reaped, for a process).
    /// Cancel-safe.
    fn wait(&mut self) -> BoxFuture<'_, std::io::Result<ExitInfo>>;
    /// The far end's exit status if it has ended, without waiting.
    fn try_wait(&mut self) -> std::io::Result<Option<ExitInfo>>;
    /// Whether the session may put off [`wait`](Self::wait) until the far
    /// end's stdout closed or it was sent a signal, calling
    /// [`try_wait`](Self::try_wait) after each `SIGCHLD` meanwhile (at most
    /// once a second). Worth it when `wait` holds a resource: a subprocess's
    /// holds a pidfd on Linux, a fourth file descriptor per idle session.
    /// The default, `false`, waits from the start.
    fn wait_lazily(&self) -> bool {
        false
    }
    /// After the far end ended: kill leftovers (the rest of the process
    /// group). Returns whether anything was left to kill.
    fn cleanup(&mut self) -> std::io::Result<bool>;
}

/// Why a channel could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum ChannelError {
    /// The executable does not exist.
    #[error("CLI executable not found at {path}")]
    NotFound {
        /// The path or name that was looked up.
        path: PathBuf,
    },
    /// The path exists but cannot be executed (a directory, a file without
    /// execute permission).
    #[error("{path} exists but cannot be executed: {reason}")]
    NotExecutable {
        /// The path.
        path: PathBuf,
        /// Why: "it is a directory", "no execute permission", ...
        reason: &'static str,
    },
    /// The working directory does not exist.
    #[error("working directory {path} does not exist")]
    CwdMissing {
        /// The missing directory.
        path: PathBuf,
    },
    /// The OS refused to spawn the process.
    #[error("failed to spawn {}", program.display())]
    Spawn {
        /// The program that failed to start.
        program: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A non-process channel failed to connect.
    #[error("failed to connect: {0}")]
    Connect(String),
    /// The [`Spawner`] refused to prepare the command.
    #[error("the custom spawner refused the CLI command")]
    Spawner(#[source] SpawnerError),
}
