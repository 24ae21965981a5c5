//! A session's identity and what is observed about it: the one object
//! several of its actors and its handle hold.
//!
//! Nothing here is another actor's state. What remains is immutable (ids,
//! label, pid, span, the wire tap), written once (the CLI's session id, the
//! `initialize` reply), or atomic observations that any holder may update
//! and read without deciding anything for another actor (counters, open
//! turns, last activity), plus the event sender (an output, like the span).
//! The inbound requests belong to the reader and their handlers, the
//! outbound ones to dispatch, stdin to the transport's queue, the
//! lifecycle and its report to the supervisor.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use serde_json::Value;
use tokio::sync::broadcast;
use tracing::Span;

use crate::events::{Counters, Diagnostic, EVENT_CAPACITY, LifecycleEvent, SessionEvent};
use crate::session::tap::{WireDirection, WireTap};

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

#[derive(Debug)]
pub(crate) struct Shared {
    /// Process-unique id of this session (for the registry).
    pub(crate) id: u64,
    pub(crate) label: Option<String>,
    pub(crate) started_at: SystemTime,
    pub(crate) started: Instant,
    pub(crate) pid: Option<u32>,
    /// From the first `system/init` frame.
    pub(crate) session_id: OnceLock<String>,
    /// The `initialize` reply.
    pub(crate) server_info: OnceLock<Value>,
    pub(crate) span: Span,
    pub(crate) counters: Counters,
    pub(crate) log_payloads: bool,
    /// Sees every complete line read and written (recording, debugging).
    wire_tap: Option<Tap>,
    /// Made on the first subscription (a broadcast channel allocates all
    /// its slots up front; most sessions of a large host have no
    /// subscriber). Events sent before then had no receiver to reach anyway.
    events: OnceLock<broadcast::Sender<SessionEvent>>,
    /// User frames sent whose `result` has not been read yet.
    turns_open: AtomicU64,
    /// Milliseconds since `started` of the last stdout line or `user` frame.
    last_activity_ms: AtomicU64,
}

/// The wire tap, with a `Debug` that does not try to print a closure.
struct Tap(WireTap);

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WireTap")
    }
}

impl Shared {
    /// Shows one line to the wire tap, if any.
    pub(crate) fn tap(&self, direction: WireDirection, line: &[u8]) {
        if let Some(Tap(tap)) = &self.wire_tap {
            // A panicking tap must not take the read loop down with it.
            let call = std::panic::AssertUnwindSafe(|| tap(direction, line));
            if std::panic::catch_unwind(call).is_err() {
                tracing::warn!(parent: &self.span, "wire tap panicked");
            }
        }
    }

    pub(crate) fn new(
        label: Option<String>,
        pid: Option<u32>,
        log_payloads: bool,
        events: Option<broadcast::Sender<SessionEvent>>,
        wire_tap: Option<WireTap>,
    ) -> Self {
        let id = NEXT_SESSION.fetch_add(1, Ordering::Relaxed);
        let span = tracing::info_span!(
            "session",
            id,
            label = label.as_deref().unwrap_or(""),
            pid = pid.unwrap_or(0),
            session_id = tracing::field::Empty
        );
        Self {
            id,
            label,
            started_at: SystemTime::now(),
            started: Instant::now(),
            pid,
            session_id: OnceLock::new(),
            server_info: OnceLock::new(),
            span,
            counters: Counters::default(),
            log_payloads,
            wire_tap: wire_tap.map(Tap),
            events: events.map(OnceLock::from).unwrap_or_default(),
            turns_open: AtomicU64::new(0),
            last_activity_ms: AtomicU64::new(0),
        }
    }

    pub(crate) fn emit(&self, event: SessionEvent) {
        match &event {
            SessionEvent::Diagnostic(d) => {
                Counters::add(&self.counters.diagnostics, 1);
                tracing::warn!(parent: &self.span, diagnostic = ?d, "session diagnostic");
            }
            SessionEvent::Lifecycle(l) => {
                tracing::debug!(parent: &self.span, event = ?l, "session lifecycle");
            }
        }
        if let Some(events) = self.events.get() {
            let _ = events.send(event);
        }
    }

    pub(crate) fn lifecycle(&self, e: LifecycleEvent) {
        self.emit(SessionEvent::Lifecycle(e));
    }

    pub(crate) fn diagnostic(&self, d: Diagnostic) {
        self.emit(SessionEvent::Diagnostic(d));
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<SessionEvent> {
        self.events
            .get_or_init(|| broadcast::channel(EVENT_CAPACITY).0)
            .subscribe()
    }

    /// A `user` frame was sent: one more turn in flight.
    pub(crate) fn turn_started(&self) {
        self.turns_open.fetch_add(1, Ordering::SeqCst);
    }

    /// A `result` was read: one turn fewer (never below zero, since the
    /// CLI also ends turns it started itself).
    pub(crate) fn turn_ended(&self) {
        let _ = self
            .turns_open
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
    }

    pub(crate) fn turn_open(&self) -> bool {
        self.turns_open.load(Ordering::SeqCst) > 0
    }

    pub(crate) fn touch(&self) {
        let ms = u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_activity_ms.store(ms, Ordering::Relaxed);
    }

    pub(crate) fn last_activity_ms(&self) -> u64 {
        self.last_activity_ms.load(Ordering::Relaxed)
    }

    pub(crate) fn record_session_id(&self, id: String) {
        if self.session_id.get().is_none() {
            self.span.record("session_id", id.as_str());
            let _ = self.session_id.set(id);
        }
    }

    /// Inbound requests admitted and not yet answered (or given up).
    pub(crate) fn handlers_pending(&self) -> u64 {
        self.counters.handlers_pending.load(Ordering::SeqCst)
    }
}
