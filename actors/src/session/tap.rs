//! The wire tap: who may see every line crossing the wire.

use std::sync::Arc;

/// Which way a line crossed the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WireDirection {
    /// Read from the CLI's stdout.
    In,
    /// Written to the CLI's stdin.
    Out,
}

/// Sees every complete line read from stdout and written to stdin, without
/// its newline, on the session's own tasks (or, for a line written at once,
/// the task that sent it): keep it quick and never block (hand the bytes
/// to a channel or a buffered file).
pub type WireTap = Arc<dyn Fn(WireDirection, &[u8]) + Send + Sync>;
