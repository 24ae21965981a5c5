//! W3C trace context for the CLI's environment (`TRACEPARENT`,
//! `TRACESTATE`), written by the OpenTelemetry propagator.

use std::collections::HashMap;

use opentelemetry::Context;
use opentelemetry::propagation::TextMapPropagator;
use opentelemetry_sdk::propagation::TraceContextPropagator;

/// The `traceparent` and `tracestate` values naming `cx`'s span as the
/// parent; `None` when the context carries no valid span (disabled
/// telemetry, a non-recording provider) or no trace state.
pub(crate) fn trace_context(cx: &Context) -> (Option<String>, Option<String>) {
    let mut carrier: HashMap<String, String> = HashMap::new();
    TraceContextPropagator::new().inject_context(cx, &mut carrier);
    let parent = carrier.remove("traceparent");
    let state = carrier.remove("tracestate").filter(|s| !s.is_empty());
    (parent, state)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };

    #[test]
    fn a_sampled_span_becomes_a_version_00_traceparent() {
        let sc = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            false,
            TraceState::default(),
        );
        let cx = Context::new().with_remote_span_context(sc);
        let (parent, state) = trace_context(&cx);
        assert_eq!(
            parent.as_deref(),
            Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        );
        assert_eq!(state, None);
    }

    #[test]
    fn no_span_no_traceparent() {
        assert_eq!(trace_context(&Context::new()), (None, None));
    }
}
