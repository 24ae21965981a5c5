//! Lifecycle and diagnostic events, and the per-session counters.
//!
//! Events are observable by the host through a `tokio::sync::broadcast`
//! channel ([`crate::Session::subscribe_events`]); they are never mixed into
//! the wire messages of the consumer's [`crate::FrameStream`]. A receiver that
//! falls behind by more than [`EVENT_CAPACITY`] events gets
//! `RecvError::Lagged` and skips the oldest ones; the counters in
//! [`SessionStats`] are exact regardless.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use crate::process::ExitInfo;
use crate::supervisor::shutdown::ladder::{Escalation, ShutdownCause};

/// Capacity of each session's event broadcast channel (kept small: every
/// slot is preallocated and idle sessions should stay cheap).
pub const EVENT_CAPACITY: usize = 32;

/// Something that happened to a session, outside the wire protocol.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SessionEvent {
    /// A step of the session's life.
    Lifecycle(LifecycleEvent),
    /// Something went wrong but the session continues.
    Diagnostic(Diagnostic),
}

/// A step of a session's life, in the order they normally happen.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum LifecycleEvent {
    /// The channel is open; `pid` is the CLI's pid for a local subprocess.
    Spawned {
        /// The CLI's pid, when the channel is a local process.
        pid: Option<u32>,
    },
    /// The CLI answered `initialize`.
    Initialized,
    /// EOF was sent on the CLI's stdin.
    StdinClosed,
    /// The far end ended (`exit` is `None` when its status is unknown).
    Exited {
        /// How the process ended, when known.
        exit: Option<ExitInfo>,
    },
    /// Shutdown escalated: `Term` = SIGTERM to the group, `Kill` = SIGKILL or abort.
    Escalated {
        /// The level reached.
        to: Escalation,
    },
    /// Reserved for a host that restarts a session (never sent by this crate).
    Restarted,
    /// The ordered shutdown began.
    ShutdownStarted {
        /// Why.
        cause: ShutdownCause,
    },
    /// The ordered shutdown finished; the report is available.
    ShutdownComplete,
}

/// A problem the session survived.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Diagnostic {
    /// A stdout line was not delivered.
    LineSkipped {
        /// Why it was skipped.
        reason: SkipReason,
        /// Its first 200 bytes (lossy UTF-8).
        prefix: String,
    },
    /// An oversized line looked like a control request; it was answered with an error.
    OversizedControlRequestAnswered {
        /// The id found in the line's prefix.
        request_id: String,
    },
    /// An oversized control response failed the waiting request.
    OversizedControlResponse {
        /// The id found in the line's prefix.
        request_id: String,
    },
    /// An inbound handler exceeded `handler_timeout`; an error reply was sent.
    HandlerTimedOut {
        /// The CLI's request id.
        request_id: String,
        /// The request's subtype.
        subtype: String,
    },
    /// An inbound handler panicked; an error reply was sent.
    HandlerPanicked {
        /// The CLI's request id.
        request_id: String,
        /// The request's subtype.
        subtype: String,
        /// The panic message.
        message: String,
    },
    /// A `control_response` matched no pending request (late, or never sent).
    UnknownControlResponse {
        /// The id it carried.
        request_id: String,
    },
    /// A control request from the CLI was cancelled; no reply was sent.
    HandlerCancelled {
        /// The CLI's request id.
        request_id: String,
    },
    /// The idle watchdog fired: a turn is open and nothing arrived.
    IdleTimeout {
        /// How long the session had been silent.
        idle: Duration,
    },
    /// Reading stdout failed (the session then shuts down).
    ReadError {
        /// The I/O error.
        message: String,
    },
}

/// Why a stdout line was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkipReason {
    /// Not JSON at all (e.g. noise printed by a tool).
    NotJson,
    /// Looked like JSON but did not parse, or had no string `type`.
    Malformed,
    /// Longer than `max_line_bytes`; skipped without buffering it.
    Oversized {
        /// The full length of the line.
        len: u64,
    },
    /// The stream ended in the middle of a line.
    TruncatedAtEof,
}

/// A snapshot of a session's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionStats {
    /// Lines read from stdout (every kind, including control traffic).
    pub frames_in: u64,
    /// Bytes read from stdout.
    pub bytes_in: u64,
    /// Lines written to stdin.
    pub frames_out: u64,
    /// Bytes written to stdin.
    pub bytes_out: u64,
    /// Frames delivered to the consumer's queue.
    pub frames_to_consumer: u64,
    /// Frames discarded because the consumer dropped its stream.
    pub frames_discarded: u64,
    /// Diagnostic events emitted.
    pub diagnostics: u64,
    /// Bytes waiting in the consumer's queue.
    pub buffered_bytes: u64,
    /// Inbound handlers running.
    pub handlers_pending: u64,
    /// Our control requests awaiting a reply.
    pub requests_pending: u64,
    /// Bytes queued for the CLI's stdin and not yet written (both lanes).
    pub stdin_queued_bytes: u64,
}

/// The live counters behind [`SessionStats`]. Each has one kind of writer
/// and only grows, except `requests_pending`, the gauge dispatch (its one
/// writer) publishes: the read loop counts lines in and frames delivered
/// and requests admitted, whoever queues a line counts it out, every reply
/// token counts its request settled, `emit` counts diagnostics. Readers
/// take differences; nobody decrements another's count.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) frames_in: AtomicU64,
    pub(crate) bytes_in: AtomicU64,
    pub(crate) frames_out: AtomicU64,
    pub(crate) bytes_out: AtomicU64,
    pub(crate) frames_to_consumer: AtomicU64,
    pub(crate) frames_discarded: AtomicU64,
    pub(crate) diagnostics: AtomicU64,
    /// Inbound requests admitted (the read loop, as it makes their tokens).
    /// With `inbound_settled`, 32 bits each wrapping, in the 8 bytes one
    /// pending count took: the difference is exact while fewer than 2^32
    /// requests are pending.
    pub(crate) inbound_admitted: AtomicU32,
    /// Inbound requests whose token's duty is over (each token, once).
    pub(crate) inbound_settled: AtomicU32,
    pub(crate) requests_pending: AtomicU64,
}

impl Counters {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn set(counter: &AtomicU64, n: u64) {
        counter.store(n, Ordering::Relaxed);
    }

    /// Inbound requests admitted and not yet settled. `settled` is read
    /// first: it never passes `admitted`, so the difference never wraps
    /// below zero.
    pub(crate) fn handlers_pending(&self) -> u64 {
        let settled = self.inbound_settled.load(Ordering::SeqCst);
        let admitted = self.inbound_admitted.load(Ordering::SeqCst);
        u64::from(admitted.wrapping_sub(settled))
    }

    pub(crate) fn snapshot(&self, buffered_bytes: u64, stdin_queued_bytes: u64) -> SessionStats {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        SessionStats {
            frames_in: get(&self.frames_in),
            bytes_in: get(&self.bytes_in),
            frames_out: get(&self.frames_out),
            bytes_out: get(&self.bytes_out),
            frames_to_consumer: get(&self.frames_to_consumer),
            frames_discarded: get(&self.frames_discarded),
            diagnostics: get(&self.diagnostics),
            buffered_bytes,
            handlers_pending: self.handlers_pending(),
            requests_pending: get(&self.requests_pending),
            stdin_queued_bytes,
        }
    }
}

/// First `n` bytes of a line as lossy UTF-8 (for diagnostics).
pub(crate) fn prefix_of(line: &[u8], n: usize) -> String {
    String::from_utf8_lossy(&line[..line.len().min(n)]).into_owned()
}
