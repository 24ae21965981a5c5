//! W3C trace context for the CLI's environment (`TRACEPARENT`,
//! `TRACESTATE`). Written here from the API's span context rather than by
//! the SDK's propagator, so the library needs only the OpenTelemetry API.

use opentelemetry::Context;
use opentelemetry::trace::{TraceContextExt, TraceFlags};

/// The only `traceparent` version the W3C spec defines.
const VERSION: u8 = 0;

/// The `traceparent` and `tracestate` values naming `cx`'s span as the
/// parent; `None` when the context carries no valid span (disabled
/// telemetry, a non-recording provider) or no trace state.
pub(crate) fn trace_context(cx: &Context) -> (Option<String>, Option<String>) {
    let span = cx.span();
    let sc = span.span_context();
    if !sc.is_valid() {
        return (None, None);
    }
    // Only the sampled flag is defined; other bits are not propagated.
    let flags = sc.trace_flags() & TraceFlags::SAMPLED;
    let parent = format!(
        "{VERSION:02x}-{}-{}-{:02x}",
        sc.trace_id(),
        sc.span_id(),
        flags.to_u8()
    );
    let state = Some(sc.trace_state().header()).filter(|s| !s.is_empty());
    (Some(parent), state)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use opentelemetry::trace::{SpanContext, SpanId, TraceId, TraceState};

    fn context(flags: TraceFlags, state: TraceState) -> Context {
        let sc = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            flags,
            false,
            state,
        );
        Context::new().with_remote_span_context(sc)
    }

    #[test]
    fn a_sampled_span_becomes_a_version_00_traceparent() {
        let (parent, state) = trace_context(&context(TraceFlags::SAMPLED, TraceState::default()));
        assert_eq!(
            parent.as_deref(),
            Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        );
        assert_eq!(state, None);
    }

    #[test]
    fn an_unsampled_span_has_flags_00_and_keeps_its_trace_state() {
        let state = TraceState::from_key_value([("vendor", "x1")]).unwrap();
        let (parent, state) = trace_context(&context(TraceFlags::default(), state));
        assert_eq!(
            parent.as_deref(),
            Some("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00")
        );
        assert_eq!(state.as_deref(), Some("vendor=x1"));
    }

    #[test]
    fn no_span_no_traceparent() {
        assert_eq!(trace_context(&Context::new()), (None, None));
    }
}
