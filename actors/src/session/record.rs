//! The session's record: who it is, what was learned about it once, and
//! what was counted, held by its handle, every actor of its tree and every
//! reply token.
//!
//! It is no actor's state, and nothing here decides for an actor. What it
//! holds is immutable (ids, label, pid, start time, span, log switch, and
//! the outputs: the wire tap and the event sender), written once (the
//! CLI's session id, the `initialize` reply), or counters that only grow,
//! each with one kind of writer: the read loop counts lines in, frames
//! delivered, requests admitted and turns ended; a handle counts turns
//! begun; whoever queues a line counts it out; each reply token counts its
//! request settled once. Readers take differences (a turn is open,
//! handlers pending); nobody decrements what another wrote. Besides:
//! `requests_pending`, the gauge dispatch alone writes, and the time of
//! the last activity (the read loop and the handle both store "now").
//! The inbound requests belong to the reader and their handlers, the
//! outbound ones to dispatch, stdin to the transport's queue, the
//! lifecycle and its report to the supervisor. Why the two counts the
//! watchdog and the stop read stay here: ARCHITECTURE.md, "One session".

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Instant, SystemTime};

use serde_json::Value;
use tokio::sync::broadcast;
use tracing::Span;

use crate::events::{Counters, Diagnostic, EVENT_CAPACITY, LifecycleEvent, SessionEvent};
use crate::session::tap::{WireDirection, WireTap};

static NEXT_SESSION: AtomicU64 = AtomicU64::new(1);

/// One session's record (see the module's docs).
#[derive(Debug)]
pub(crate) struct SessionRecord {
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
    /// Turns begun: `user` frames sent (any handle, as it queues one).
    turns_started: AtomicU32,
    /// Turns ended: `result` frames read that ended a turn begun here
    /// (the read loop alone). Never passes `turns_started`; the two, 32
    /// bits each wrapping, fill the 8 bytes one open-turn count took.
    turns_ended: AtomicU32,
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

impl SessionRecord {
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
            turns_started: AtomicU32::new(0),
            turns_ended: AtomicU32::new(0),
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
        self.turns_started.fetch_add(1, Ordering::SeqCst);
    }

    /// A `result` was read: one turn fewer (never below zero, since the
    /// CLI also ends turns it started itself). Called by the read loop
    /// only, the one writer of `turns_ended`, so a load and a store do.
    pub(crate) fn turn_ended(&self) {
        let ended = self.turns_ended.load(Ordering::SeqCst);
        if self.turns_started.load(Ordering::SeqCst) != ended {
            self.turns_ended
                .store(ended.wrapping_add(1), Ordering::SeqCst);
        }
    }

    /// Whether a turn begun here has not ended. `turns_ended` is read
    /// first: it never passes `turns_started`.
    pub(crate) fn turn_open(&self) -> bool {
        let ended = self.turns_ended.load(Ordering::SeqCst);
        self.turns_started.load(Ordering::SeqCst) != ended
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
        self.counters.handlers_pending()
    }

    /// An inbound request was admitted (its reply token made, on the read
    /// loop): one handler more pending.
    pub(crate) fn inbound_admitted(&self) {
        self.counters
            .inbound_admitted
            .fetch_add(1, Ordering::SeqCst);
    }

    /// An admitted request's token is done (replied, cancelled, dropped):
    /// one handler fewer pending.
    pub(crate) fn inbound_settled(&self) {
        self.counters.inbound_settled.fetch_add(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_pair_sends_with_results_and_the_clis_own_turns_count_nothing() {
        let s = SessionRecord::new(None, None, false, None, None);
        assert!(!s.turn_open());
        // A turn the CLI began itself ends with no turn of ours open.
        s.turn_ended();
        assert!(!s.turn_open());
        s.turn_started();
        s.turn_started();
        assert!(s.turn_open());
        s.turn_ended();
        assert!(s.turn_open());
        s.turn_ended();
        assert!(!s.turn_open());
        s.turn_ended();
        s.turn_started();
        assert!(s.turn_open(), "an extra result earlier is not banked");
    }

    #[test]
    fn turn_counts_wrap_without_losing_the_open_turn() {
        let s = SessionRecord::new(None, None, false, None, None);
        s.turns_started.store(u32::MAX, Ordering::SeqCst);
        s.turns_ended.store(u32::MAX, Ordering::SeqCst);
        s.turn_started();
        assert!(s.turn_open());
        s.turn_ended();
        assert!(!s.turn_open());
        s.counters.inbound_admitted.store(1, Ordering::SeqCst);
        s.counters.inbound_settled.store(u32::MAX, Ordering::SeqCst);
        assert_eq!(s.handlers_pending(), 2);
    }
}
