//! State shared by one session's actors, tasks and handles.
//!
//! Only atomics, latches and channels live here: nothing is locked across
//! an `.await`, and holding a `Shared` never keeps the actors alive (the
//! last `Session` handle does that, see `handle.rs`).

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Instant, SystemTime};

use serde_json::Value;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;
use tracing::Span;

use crate::dispatch::running::Running;
use crate::events::{
    Counters, Diagnostic, EVENT_CAPACITY, LifecycleEvent, SessionEvent, SessionStats,
};
use crate::session::backpressure::Budget;
use crate::session::config::{WireDirection, WireTap};
use crate::session::live_sessions;
use crate::stderr::StderrRing;
use crate::supervisor::shutdown::ladder::ShutdownReport;
use crate::transport::stdin_queue::StdinTx;

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
    pub(crate) budget: Arc<Budget>,
    /// The CLI's control requests being answered.
    pub(crate) running: Running,
    /// The CLI's stdin queue: every writer pushes here directly.
    pub(crate) stdin: StdinTx,
    pub(crate) stderr: StderrRing,
    /// Latched when the stdout read loop ended.
    pub(crate) stdout_done: CancellationToken,
    /// Latched when the stderr drain ended.
    pub(crate) stderr_done: CancellationToken,
    pub(crate) log_payloads: bool,
    /// Sees every complete line read and written (recording, debugging).
    wire_tap: Option<Tap>,
    /// Made on the first subscription (a broadcast channel allocates all
    /// its slots up front; most sessions of a large host have no
    /// subscriber). Events sent before then had no receiver to reach anyway.
    events: OnceLock<broadcast::Sender<SessionEvent>>,
    closing: AtomicBool,
    /// User frames sent whose `result` has not been read yet.
    turns_open: AtomicU64,
    /// Milliseconds since `started` of the last stdout line or `user` frame.
    last_activity_ms: AtomicU64,
    report: watch::Sender<Option<ShutdownReport>>,
    next_request: AtomicU64,
    id_salt: u64,
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

    #[allow(clippy::too_many_arguments)] // one call site, each argument named there
    pub(crate) fn new(
        label: Option<String>,
        pid: Option<u32>,
        budget: Arc<Budget>,
        stdin: StdinTx,
        stderr: StderrRing,
        log_payloads: bool,
        events: Option<broadcast::Sender<SessionEvent>>,
        wire_tap: Option<WireTap>,
    ) -> Arc<Self> {
        let id = NEXT_SESSION.fetch_add(1, Ordering::Relaxed);
        let span = tracing::info_span!(
            "session",
            id,
            label = label.as_deref().unwrap_or(""),
            pid = pid.unwrap_or(0),
            session_id = tracing::field::Empty
        );
        let shared = Arc::new(Self {
            id,
            label,
            started_at: SystemTime::now(),
            started: Instant::now(),
            pid,
            session_id: OnceLock::new(),
            server_info: OnceLock::new(),
            span,
            counters: Counters::default(),
            budget,
            running: Running::default(),
            stdin,
            stderr,
            stdout_done: CancellationToken::new(),
            stderr_done: CancellationToken::new(),
            log_payloads,
            wire_tap: wire_tap.map(Tap),
            events: events.map(OnceLock::from).unwrap_or_default(),
            closing: AtomicBool::new(false),
            turns_open: AtomicU64::new(0),
            last_activity_ms: AtomicU64::new(0),
            report: watch::channel(None).0,
            next_request: AtomicU64::new(1),
            id_salt: std::collections::hash_map::RandomState::new()
                .build_hasher()
                .finish(),
        });
        live_sessions::register(&shared);
        shared
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

    pub(crate) fn stats(&self) -> SessionStats {
        self.counters
            .snapshot(self.budget.buffered(), self.stdin.queued_bytes())
    }

    /// Stop admitting new work. Returns true for the first caller.
    pub(crate) fn begin_closing(&self) -> bool {
        !self.closing.swap(true, Ordering::SeqCst)
    }

    pub(crate) fn is_closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
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

    /// `req_<counter>_<8 hex>`, unique per session.
    pub(crate) fn next_request_id(&self) -> String {
        let n = self.next_request.fetch_add(1, Ordering::Relaxed);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        h.write_u64(self.id_salt);
        h.write_u64(n);
        format!("req_{n}_{:08x}", h.finish() as u32)
    }

    /// Publishes the report once; later calls are ignored. The session
    /// leaves the live list first, so whoever sees the report sees it gone.
    pub(crate) fn publish_report(&self, report: ShutdownReport) {
        live_sessions::unregister(self.id);
        self.report.send_if_modified(|slot| {
            if slot.is_none() {
                *slot = Some(report);
                true
            } else {
                false
            }
        });
    }

    pub(crate) fn report(&self) -> Option<ShutdownReport> {
        self.report.borrow().clone()
    }

    /// Waits until the report is published.
    pub(crate) async fn wait_report(&self) -> Option<ShutdownReport> {
        let mut rx = self.report.subscribe();
        let r = rx.wait_for(Option::is_some).await.ok()?;
        r.clone()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        live_sessions::unregister(self.id);
    }
}
