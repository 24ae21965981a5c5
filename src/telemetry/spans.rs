//! One session's trace: the `claude_agent.session` span, its
//! `claude_agent.turn` children, and the `claude_agent.control` spans under
//! them, plus the metrics recorded along the way.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use claude_agent_actors::{Escalation, SessionStats, ShutdownCause, ShutdownReport};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use super::Shared;
use super::control::{ControlSpan, Direction};
use crate::Error;
use crate::protocol::{Message, ResultMessage};

/// Span of a whole session, from `connect` to the end of its shutdown.
pub const SESSION_SPAN: &str = "claude_agent.session";
/// Span of one turn, from the prompt being sent to its `result`.
pub const TURN_SPAN: &str = "claude_agent.turn";

/// The session's report and counters, read through a weak reference to the
/// client (`None` once the client is gone).
pub(crate) type Probe =
    Box<dyn Fn() -> Option<(Option<ShutdownReport>, SessionStats)> + Send + Sync>;

/// A session's spans and what is needed to finish them.
pub(crate) struct SessionTrace {
    pub(super) shared: Arc<Shared>,
    /// `tenant=...`, when the builder named one.
    pub(super) tenant: Option<KeyValue>,
    pub(super) cx: Context,
    probe: OnceLock<Probe>,
    state: Mutex<State>,
}

#[derive(Default)]
pub(super) struct State {
    /// Turns sent and not yet ended, oldest first (the CLI answers in order).
    pub(super) turns: VecDeque<Context>,
    /// Counters already added to the frame and byte metrics.
    pub(super) recorded: SessionStats,
    pub(super) session_id: bool,
    pub(super) connected: bool,
    pub(super) ended: bool,
    /// Seen in lifecycle events, for a session whose report is out of reach.
    pub(super) cause: Option<ShutdownCause>,
    pub(super) escalation: Option<Escalation>,
}

impl SessionTrace {
    /// Starts the session span.
    pub(crate) fn start(shared: Arc<Shared>, tenant: Option<&str>) -> Arc<Self> {
        let tenant = tenant.map(|t| KeyValue::new("tenant", t.to_owned()));
        let span = shared
            .tracer
            .span_builder(SESSION_SPAN)
            .with_kind(SpanKind::Internal)
            .with_attributes(tenant.clone())
            .start(&shared.tracer);
        Arc::new(Self {
            shared,
            tenant,
            cx: Context::new().with_span(span),
            probe: OnceLock::new(),
            state: Mutex::new(State::default()),
        })
    }

    /// The session span's context (parent of everything in the session).
    pub(crate) fn context(&self) -> &Context {
        &self.cx
    }

    pub(super) fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere leaves consistent data: keep recording.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Metric attributes: the tenant, if any, then `extra`.
    pub(super) fn attrs<const N: usize>(&self, extra: [KeyValue; N]) -> Vec<KeyValue> {
        self.tenant.iter().cloned().chain(extra).collect()
    }

    /// The CLI is up: records its pid and counts the session as active.
    pub(crate) fn connected(&self, pid: Option<u32>, probe: Probe) {
        if let Some(pid) = pid {
            self.cx
                .span()
                .set_attribute(KeyValue::new("process.pid", i64::from(pid)));
        }
        let _ = self.probe.set(probe);
        self.state().connected = true;
        self.shared
            .instruments
            .sessions_active
            .add(1, &self.attrs([]));
    }

    /// `connect` failed: the session span ends in error.
    pub(crate) fn connect_failed(&self, error: &Error) {
        let mut st = self.state();
        if std::mem::replace(&mut st.ended, true) {
            return;
        }
        let span = self.cx.span();
        span.set_status(Status::error(format!("{error:?}")));
        span.end();
    }

    /// A prompt is about to be sent: opens its turn span.
    pub(crate) fn turn_started(&self) {
        let span = self
            .shared
            .tracer
            .span_builder(TURN_SPAN)
            .with_kind(SpanKind::Internal)
            .start_with_context(&self.shared.tracer, &self.cx);
        let mut st = self.state();
        if !st.ended {
            st.turns.push_back(Context::new().with_span(span));
        }
    }

    /// The prompt could not be written: its turn ends in error.
    pub(crate) fn turn_not_sent(&self, error: &Error) {
        let turn = self.state().turns.pop_back();
        if let Some(cx) = turn {
            cx.span().set_status(Status::error(format!("{error:?}")));
            cx.span().end();
        }
    }

    /// Looks at each message the client reads: a `result` ends the oldest
    /// open turn; a message that fails to parse is a parse diagnostic.
    pub(crate) fn observe(&self, is_result: bool, message: &crate::Result<Message>) {
        match message {
            Ok(Message::Result(r)) => self.turn_ended(Some(r)),
            Ok(_) => {}
            Err(_) => {
                self.parse_diagnostic("message");
                if is_result {
                    self.turn_ended(None);
                }
            }
        }
    }

    fn turn_ended(&self, result: Option<&ResultMessage>) {
        let stats = self.probe_now().map(|(_, s)| s);
        let mut st = self.state();
        if let Some(stats) = stats {
            self.record_stats(&mut st, stats);
        }
        if let Some(id) = result.and_then(|r| r.session_id.clone()) {
            if !std::mem::replace(&mut st.session_id, true) {
                self.cx
                    .span()
                    .set_attribute(KeyValue::new("claude_agent.session_id", id));
            }
        }
        let Some(cx) = st.turns.pop_front() else {
            return;
        };
        drop(st);
        let span = cx.span();
        match result {
            Some(r) => {
                span.set_attribute(KeyValue::new(
                    "claude_agent.turn.subtype",
                    r.subtype.as_str().to_owned(),
                ));
                let is_error = r.is_error();
                span.set_attribute(KeyValue::new("claude_agent.turn.is_error", is_error));
                if let Some(n) = r.num_turns {
                    span.set_attribute(KeyValue::new("claude_agent.turn.num_turns", n as i64));
                }
                if let Some(ms) = r.duration_ms {
                    span.set_attribute(KeyValue::new("claude_agent.turn.duration_ms", ms as i64));
                }
                if is_error {
                    span.set_status(Status::error(r.subtype.as_str().to_owned()));
                }
            }
            None => span.set_status(Status::error("the turn's result did not parse")),
        }
        span.end();
    }

    /// Opens a control span under the oldest open turn (the one the CLI is
    /// working on), or under the session between turns.
    pub(crate) fn control(
        &self,
        subtype: &str,
        direction: Direction,
        attributes: Vec<KeyValue>,
    ) -> ControlSpan {
        let parent = self.state().turns.front().cloned();
        let metric_attrs = self.attrs([
            KeyValue::new("subtype", subtype.to_owned()),
            KeyValue::new("direction", direction.as_str()),
        ]);
        ControlSpan::start(
            &self.shared,
            parent.as_ref().unwrap_or(&self.cx),
            (subtype, direction),
            attributes,
            metric_attrs,
        )
    }

    /// Counts one parse diagnostic of `kind`.
    pub(crate) fn parse_diagnostic(&self, kind: &'static str) {
        let attrs = self.attrs([KeyValue::new("kind", kind)]);
        self.shared.instruments.parse_diagnostics.add(1, &attrs);
    }

    /// A lifecycle event said why the session is shutting down.
    pub(crate) fn note_cause(&self, cause: ShutdownCause) {
        self.state().cause.get_or_insert(cause);
    }

    /// A lifecycle event said the shutdown escalated to `to`.
    pub(crate) fn note_escalation(&self, to: Escalation) {
        let mut st = self.state();
        st.escalation = st.escalation.max(Some(to));
    }

    pub(super) fn probe_now(&self) -> Option<(Option<ShutdownReport>, SessionStats)> {
        self.probe.get().and_then(|p| p())
    }

    /// Adds the counters' growth since the last call to the metrics.
    pub(super) fn record_stats(&self, st: &mut State, now: SessionStats) {
        let last = st.recorded;
        let m = &self.shared.instruments;
        let (inn, out) = (
            self.attrs([KeyValue::new("direction", "in")]),
            self.attrs([KeyValue::new("direction", "out")]),
        );
        m.frames
            .add(now.frames_in.saturating_sub(last.frames_in), &inn);
        m.bytes
            .add(now.bytes_in.saturating_sub(last.bytes_in), &inn);
        m.frames
            .add(now.frames_out.saturating_sub(last.frames_out), &out);
        m.bytes
            .add(now.bytes_out.saturating_sub(last.bytes_out), &out);
        st.recorded = now;
    }
}
