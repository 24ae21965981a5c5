//! `claude_agent.control` spans: one control request either way, and its
//! round trip in the `claude_agent.control.duration` histogram.

use std::sync::Arc;
use std::time::Instant;

use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};

use claude_agent_actors::ControlStatus;

use super::Shared;

/// Span of one control request, either direction.
pub const CONTROL_SPAN: &str = "claude_agent.control";

/// Which way a control request went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// From the CLI to us (`can_use_tool`, hooks, MCP messages).
    In,
    /// From us to the CLI (`interrupt`, `set_model`, ...).
    Out,
}

impl Direction {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::In => "in",
            Self::Out => "out",
        }
    }
}

/// One control request in flight; ends (and records its round trip) with
/// [`ControlSpan::end`], or as `cancelled` when dropped unfinished.
pub(crate) struct ControlSpan {
    cx: Context,
    started: Instant,
    metric_attrs: Vec<KeyValue>,
    shared: Arc<Shared>,
    done: bool,
}

impl ControlSpan {
    /// Starts the span under `parent`.
    pub(crate) fn start(
        shared: &Arc<Shared>,
        parent: &Context,
        (subtype, direction): (&str, Direction),
        attributes: Vec<KeyValue>,
        metric_attrs: Vec<KeyValue>,
    ) -> Self {
        let kind = match direction {
            Direction::In => SpanKind::Server,
            Direction::Out => SpanKind::Client,
        };
        let mut attrs = vec![
            KeyValue::new("claude_agent.control.subtype", subtype.to_owned()),
            KeyValue::new("claude_agent.control.direction", direction.as_str()),
        ];
        attrs.extend(attributes);
        let span = shared
            .tracer
            .span_builder(CONTROL_SPAN)
            .with_kind(kind)
            .with_attributes(attrs)
            .start_with_context(&shared.tracer, parent);
        Self {
            cx: Context::new().with_span(span),
            started: Instant::now(),
            metric_attrs,
            shared: shared.clone(),
            done: false,
        }
    }

    /// Ends the span with `outcome` (`success`, `error`, `timeout`, ...)
    /// and `attributes` learned from the reply.
    pub(crate) fn end(mut self, outcome: &'static str, attributes: Vec<KeyValue>) {
        self.close(outcome, attributes);
    }

    fn close(&mut self, outcome: &'static str, attributes: Vec<KeyValue>) {
        self.done = true;
        let elapsed = self.started.elapsed().as_secs_f64();
        self.shared
            .instruments
            .control_duration
            .record(elapsed, &self.metric_attrs);
        let span = self.cx.span();
        span.set_attributes(attributes);
        span.set_attribute(KeyValue::new("claude_agent.control.outcome", outcome));
        if outcome != ControlStatus::Success.as_str() {
            span.set_status(Status::error(outcome));
        }
        span.end();
    }
}

impl Drop for ControlSpan {
    fn drop(&mut self) {
        if !self.done {
            self.close(ControlStatus::Cancelled.as_str(), Vec::new());
        }
    }
}
