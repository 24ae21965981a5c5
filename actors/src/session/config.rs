//! Everything a session is started with.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::broadcast;

use crate::channel::{SubprocessTransport, Transport};
use crate::dispatch::handler::{InboundHandler, RejectAll};
use crate::events::{EVENT_CAPACITY, SessionEvent};
use crate::process::ProcessSpec;
use crate::reader::framing::DEFAULT_MAX_LINE_BYTES;
use crate::session::backpressure::DEFAULT_MAX_BUFFERED_BYTES;
use crate::session::tap::WireTap;
use crate::stderr::DEFAULT_STDERR_LINES;
use crate::supervisor::shutdown::timeouts::ShutdownTimeouts;
use crate::transport::stdin_queue::DEFAULT_MAX_STDIN_BYTES;

/// Default timeout of `initialize` and of other control requests.
pub const DEFAULT_CONTROL_TIMEOUT: Duration = Duration::from_secs(60);
/// Default time the CLI gets to exit after EOF, and after SIGTERM.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(5);
/// The environment variable (milliseconds) that raises the initialize timeout.
pub const STREAM_CLOSE_TIMEOUT_ENV: &str = "CLAUDE_CODE_STREAM_CLOSE_TIMEOUT";

/// Offered every consumer frame (not control traffic) on the read loop,
/// before it is queued for the consumer; returns `true` to take the frame
/// out of the consumer's stream. A line that starts `{"type":"<kind>"` (the
/// CLI's key order) is offered before the reader checks the rest of it:
/// a divert that takes it parses it itself. Each frame is offered once. Runs on the read loop: keep it quick and
/// never block (hand the frame to a bounded buffer). Dropped when the read
/// loop ends, so a receiver on the other side of it sees the end of the
/// CLI's output.
pub type FrameDivert = Box<dyn FnMut(&crate::session::frame::Frame) -> bool + Send>;

/// Asked on the read loop each time the [`FrameDivert`] took a frame:
/// `Some(wait)` when the divert's receiver has no room, and the loop then
/// reads no more stdout until `wait` resolves (consumer frames already read
/// are sent first). This is how backpressure reaches the CLI without
/// blocking a thread: the loop awaits, the CLI's writes fill the pipe. The
/// future must resolve once there is room or the receiver is gone; the
/// session's shutdown aborts the loop regardless.
pub type DivertRoom =
    Box<dyn FnMut() -> Option<std::pin::Pin<Box<dyn Future<Output = ()> + Send>>> + Send>;

/// What the idle watchdog does when it fires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchdogAction {
    /// Emit `Diagnostic::IdleTimeout` only.
    Report,
    /// Also send a control request `{"subtype":"interrupt"}`.
    Interrupt,
    /// Also shut the session down (cause `IdleTimeout`).
    Shutdown,
}

/// The idle watchdog: fires when a turn is open (a `user` frame was sent and
/// no `result` seen since), no inbound handler is running, and no frame
/// arrived for `after`. Fires at most once per silent stretch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchdog {
    /// Silence that counts as idle.
    pub after: Duration,
    /// What to do.
    pub action: WatchdogAction,
}

/// How to start a session. Build with [`SessionConfig::new`] (any
/// [`Transport`]) or [`SessionConfig::subprocess`], then the setters.
#[non_exhaustive]
pub struct SessionConfig {
    /// The byte channel (a local subprocess by default).
    pub transport: Box<dyn Transport>,
    /// The `request` object of `initialize` (`{"subtype":"initialize","hooks":...}`).
    pub initialize: Value,
    /// Timeout of `initialize` (raised to `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT`
    /// ms when that is set in the host's or the session's environment).
    pub initialize_timeout: Duration,
    /// Timeout of other control requests (overridable per call).
    pub control_timeout: Duration,
    /// Bound on one inbound handler; `None` = unbounded.
    pub handler_timeout: Option<Duration>,
    /// Longest stdout line accepted.
    pub max_line_bytes: usize,
    /// Cap of the consumer's queue, in bytes.
    pub max_buffered_bytes: usize,
    /// Cap of each lane of the stdin queue (control, user), in bytes: what
    /// the host holds for a CLI that stops reading its stdin.
    pub max_stdin_bytes: usize,
    /// How long `send` waits for its line to be queued and written before
    /// failing with `SessionError::StdinStalled`.
    pub send_timeout: Duration,
    /// Time the CLI gets to exit after EOF before SIGTERM.
    pub grace: Duration,
    /// Time the CLI gets after SIGTERM before SIGKILL.
    pub term_grace: Duration,
    /// Bounds of the shutdown's own waits (actor calls and stops, the
    /// final drain of stdout and stderr).
    pub shutdown_timeouts: ShutdownTimeouts,
    /// The idle watchdog (off by default).
    pub idle_watchdog: Option<Watchdog>,
    /// Answers the CLI's control requests.
    pub inbound: Arc<dyn InboundHandler>,
    /// How many stderr lines to keep.
    pub stderr_lines: usize,
    /// Called with every stderr line (on the drain task: keep it quick).
    pub on_stderr: Option<crate::stderr::OnLine>,
    /// A label for tracing and the registry.
    pub label: Option<String>,
    /// Log prompt text, tool inputs and replies in traces.
    pub log_payloads: bool,
    /// `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT` from the session's own environment.
    pub session_stream_close_timeout: Option<Duration>,
    /// The event channel, when subscribed before start.
    pub(crate) events: Option<broadcast::Sender<SessionEvent>>,
    pub(crate) wire_tap: Option<WireTap>,
    pub(crate) divert: Option<FrameDivert>,
    pub(crate) divert_room: Option<DivertRoom>,
}

impl SessionConfig {
    /// Defaults around any transport.
    pub fn new(transport: impl Transport) -> Self {
        Self {
            transport: Box::new(transport),
            initialize: json!({"subtype": "initialize", "hooks": null}),
            initialize_timeout: DEFAULT_CONTROL_TIMEOUT,
            control_timeout: DEFAULT_CONTROL_TIMEOUT,
            handler_timeout: None,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_buffered_bytes: DEFAULT_MAX_BUFFERED_BYTES,
            max_stdin_bytes: DEFAULT_MAX_STDIN_BYTES,
            send_timeout: DEFAULT_CONTROL_TIMEOUT,
            grace: DEFAULT_GRACE,
            term_grace: DEFAULT_GRACE,
            shutdown_timeouts: ShutdownTimeouts::default(),
            idle_watchdog: None,
            inbound: Arc::new(RejectAll),
            stderr_lines: DEFAULT_STDERR_LINES,
            on_stderr: None,
            label: None,
            log_payloads: false,
            session_stream_close_timeout: None,
            events: None,
            wire_tap: None,
            divert: None,
            divert_room: None,
        }
    }

    /// Defaults around a local subprocess; picks up
    /// `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT` from `spec.env`.
    pub fn subprocess(spec: ProcessSpec) -> Self {
        let from_env = spec
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == STREAM_CLOSE_TIMEOUT_ENV)
            .and_then(|(_, v)| parse_millis(v.to_str()?));
        let label = spec.session_label.clone();
        let mut config = Self::new(SubprocessTransport::new(spec));
        config.session_stream_close_timeout = from_env;
        config.label = label;
        config
    }

    /// Sets the `initialize` request object.
    pub fn initialize(mut self, request: Value) -> Self {
        self.initialize = request;
        self
    }
    /// Sets the `initialize` timeout.
    pub fn initialize_timeout(mut self, t: Duration) -> Self {
        self.initialize_timeout = t;
        self
    }
    /// Sets the default control request timeout.
    pub fn control_timeout(mut self, t: Duration) -> Self {
        self.control_timeout = t;
        self
    }
    /// Bounds each inbound handler.
    pub fn handler_timeout(mut self, t: Option<Duration>) -> Self {
        self.handler_timeout = t;
        self
    }
    /// Sets the longest accepted stdout line.
    pub fn max_line_bytes(mut self, n: usize) -> Self {
        self.max_line_bytes = n;
        self
    }
    /// Sets the consumer queue's cap in bytes.
    pub fn max_buffered_bytes(mut self, n: usize) -> Self {
        self.max_buffered_bytes = n;
        self
    }
    /// Sets `max_stdin_bytes`.
    pub fn max_stdin_bytes(mut self, n: usize) -> Self {
        self.max_stdin_bytes = n;
        self
    }

    /// Sets `send_timeout`.
    pub fn send_timeout(mut self, t: Duration) -> Self {
        self.send_timeout = t;
        self
    }

    /// Sets `grace` (EOF to SIGTERM).
    pub fn grace(mut self, t: Duration) -> Self {
        self.grace = t;
        self
    }
    /// Sets `term_grace` (SIGTERM to SIGKILL).
    pub fn term_grace(mut self, t: Duration) -> Self {
        self.term_grace = t;
        self
    }
    /// Sets the bounds of the shutdown's own waits.
    pub fn shutdown_timeouts(mut self, t: ShutdownTimeouts) -> Self {
        self.shutdown_timeouts = t;
        self
    }
    /// Turns the idle watchdog on.
    pub fn idle_watchdog(mut self, w: Option<Watchdog>) -> Self {
        self.idle_watchdog = w;
        self
    }
    /// Sets the inbound control request handler.
    pub fn inbound(mut self, h: Arc<dyn InboundHandler>) -> Self {
        self.inbound = h;
        self
    }
    /// Sets how many stderr lines are kept.
    pub fn stderr_lines(mut self, n: usize) -> Self {
        self.stderr_lines = n;
        self
    }
    /// Sets a callback for each stderr line.
    pub fn on_stderr(mut self, f: crate::stderr::OnLine) -> Self {
        self.on_stderr = Some(f);
        self
    }
    /// Sets the label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// Logs payloads in traces.
    pub fn log_payloads(mut self, on: bool) -> Self {
        self.log_payloads = on;
        self
    }

    /// Shows every complete line, both directions, to `tap` (for raw
    /// recordings). Lines skipped by framing are reported as diagnostics
    /// instead.
    pub fn wire_tap(mut self, tap: WireTap) -> Self {
        self.wire_tap = Some(tap);
        self
    }

    /// Offers every consumer frame to `divert` first (see [`FrameDivert`]).
    pub fn divert(mut self, divert: FrameDivert) -> Self {
        self.divert = Some(divert);
        self
    }

    /// Pauses the read loop while the divert's receiver is full (see
    /// [`DivertRoom`]).
    pub fn divert_room(mut self, room: DivertRoom) -> Self {
        self.divert_room = Some(room);
        self
    }

    /// Subscribes to the session's events before it starts, so `Spawned`
    /// and `Initialized` are seen too. May be called several times.
    pub fn subscribe_events(&mut self) -> broadcast::Receiver<SessionEvent> {
        self.events
            .get_or_insert_with(|| broadcast::channel(EVENT_CAPACITY).0)
            .subscribe()
    }

    /// The initialize timeout after the `CLAUDE_CODE_STREAM_CLOSE_TIMEOUT` rule.
    pub(crate) fn effective_initialize_timeout(&self) -> Duration {
        let host = std::env::var(STREAM_CLOSE_TIMEOUT_ENV)
            .ok()
            .and_then(|v| parse_millis(&v));
        [host, self.session_stream_close_timeout]
            .into_iter()
            .flatten()
            .fold(self.initialize_timeout, Duration::max)
    }
}

fn parse_millis(v: &str) -> Option<Duration> {
    v.trim().parse::<u64>().ok().map(Duration::from_millis)
}

impl fmt::Debug for SessionConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionConfig")
            .field("transport", &self.transport.kind())
            .field("initialize_timeout", &self.initialize_timeout)
            .field("control_timeout", &self.control_timeout)
            .field("handler_timeout", &self.handler_timeout)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("max_buffered_bytes", &self.max_buffered_bytes)
            .field("max_stdin_bytes", &self.max_stdin_bytes)
            .field("send_timeout", &self.send_timeout)
            .field("grace", &self.grace)
            .field("term_grace", &self.term_grace)
            .field("shutdown_timeouts", &self.shutdown_timeouts)
            .field("idle_watchdog", &self.idle_watchdog)
            .field("stderr_lines", &self.stderr_lines)
            .field("label", &self.label)
            .field("log_payloads", &self.log_payloads)
            .finish_non_exhaustive()
    }
}
