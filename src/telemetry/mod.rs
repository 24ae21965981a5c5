//! OpenTelemetry traces and metrics for sessions.
//!
//! Off unless a [`Telemetry`] handle is given to
//! [`ClientBuilder::telemetry`](crate::client::ClientBuilder::telemetry); without
//! one nothing is recorded and no per-message work is added.
//!
//! **Traces.** One `claude_agent.session` span per session, from `connect`
//! to the end of its shutdown (attributes `tenant`, `process.pid`,
//! `claude_agent.session_id`, `claude_agent.shutdown.cause`,
//! `claude_agent.shutdown.escalation`); under it one `claude_agent.turn`
//! per prompt sent, ending at its `result` (`claude_agent.turn.num_turns`,
//! `.is_error`, `.subtype`, `.duration_ms`); under the turn the CLI is
//! working on (or the session between turns), one `claude_agent.control`
//! span per control request either way (`claude_agent.control.subtype`,
//! `.direction` `in`/`out`, `.outcome`; `claude_agent.tool.name` and
//! `claude_agent.decision` for permission prompts, `claude_agent.hook.*`
//! for hooks, `claude_agent.mcp.*` for in-process MCP tool calls).
//! The CLI's environment gets `TRACEPARENT` (W3C trace context) naming the
//! session span, so the CLI can continue the trace.
//!
//! **Metrics** (names in the constants below): active sessions by tenant,
//! frames and bytes by direction (from the session's counters at each turn
//! end and at the session's end), control round trips by subtype and
//! direction, shutdown escalations by level, parse diagnostics by kind, and
//! the host's restarts, admission waits and queue depth.
//!
//! The library depends on the OpenTelemetry API only: bring the program's
//! own providers (any [`TracerProvider`] and [`MeterProvider`], e.g. the
//! SDK's), or use the ready-made ones behind features: `sdk` gives
//! `Providers`, `stdout` adds `telemetry::stdout()`, `otlp` adds
//! `telemetry::otlp(endpoint)`.
//!
//! ```no_run
//! # async fn run() -> claude_agent::Result<()> {
//! use claude_agent::{client::Client, options::Options, telemetry::Telemetry};
//! use opentelemetry_sdk::metrics::SdkMeterProvider;
//! use opentelemetry_sdk::trace::SdkTracerProvider;
//!
//! // The program's providers, with whatever exporters it uses.
//! let tracer_provider = SdkTracerProvider::builder().build();
//! let meter_provider = SdkMeterProvider::builder().build();
//! let client = Client::builder(Options::new())
//!     .telemetry(Telemetry::new(&tracer_provider, &meter_provider))
//!     .tenant("tenant-a")
//!     .connect()
//!     .await?;
//! client.send("Hello").await?;
//! client.shutdown().await;
//! tracer_provider.shutdown().ok();
//! meter_provider.shutdown().ok();
//! # Ok(()) }
//! ```

mod control;
#[cfg(feature = "sdk")]
mod exporters;
mod finish;
mod inbound;
mod metrics;
mod monitor;
mod propagation;
mod spans;

use std::sync::Arc;
use std::time::Duration;

use opentelemetry::global::BoxedTracer;
use opentelemetry::metrics::MeterProvider;
use opentelemetry::trace::{Tracer, TracerProvider};
use opentelemetry::{InstrumentationScope, KeyValue};

pub use control::CONTROL_SPAN;
#[cfg(feature = "otlp")]
pub use exporters::otlp;
#[cfg(feature = "stdout")]
pub use exporters::stdout;
#[cfg(feature = "sdk")]
pub use exporters::{Providers, TelemetryError};
pub use metrics::{
    ADMISSION_WAIT, BYTES, CONTROL_DURATION, ESCALATIONS, FRAMES, PARSE_DIAGNOSTICS, QUEUE_DEPTH,
    RESTARTS, SESSIONS_ACTIVE,
};
pub use spans::{SESSION_SPAN, TURN_SPAN};

pub(crate) use control::Direction;
pub(crate) use inbound::TracedHandler;
pub(crate) use spans::{Probe, SessionTrace};

use metrics::Instruments;

/// Where a session's spans and metrics go: a tracer and the metric
/// instruments. Cheap to clone (an `Arc` inside); the default is
/// [`Telemetry::disabled`].
#[derive(Clone, Default)]
pub struct Telemetry {
    inner: Option<Arc<Shared>>,
}

/// The tracer and instruments every session of a handle shares.
pub(crate) struct Shared {
    pub(crate) tracer: BoxedTracer,
    pub(crate) instruments: Instruments,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("claude-agent")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

impl Telemetry {
    /// Records to these providers (the SDK's `SdkTracerProvider` and
    /// `SdkMeterProvider`, or any other implementation).
    pub fn new<T, M>(tracer_provider: &T, meter_provider: &M) -> Self
    where
        T: TracerProvider,
        T::Tracer: Send + Sync + 'static,
        <T::Tracer as Tracer>::Span: Send + Sync + 'static,
        M: MeterProvider,
    {
        let tracer = BoxedTracer::new(Box::new(tracer_provider.tracer_with_scope(scope())));
        let meter = meter_provider.meter_with_scope(scope());
        Self::from_parts(tracer, &meter)
    }

    /// Records to the `opentelemetry::global` providers, as they are when
    /// this is called (install them first).
    pub fn global() -> Self {
        let tracer = opentelemetry::global::tracer_with_scope(scope());
        let meter = opentelemetry::global::meter_with_scope(scope());
        Self::from_parts(tracer, &meter)
    }

    /// Records nothing (the default).
    pub fn disabled() -> Self {
        Self { inner: None }
    }

    fn from_parts(tracer: BoxedTracer, meter: &opentelemetry::metrics::Meter) -> Self {
        Self {
            inner: Some(Arc::new(Shared {
                tracer,
                instruments: Instruments::new(meter),
            })),
        }
    }

    /// Whether anything is recorded.
    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// Counts a restart of a session of `tenant` (`claude_agent.restarts`);
    /// for hosts that restart sessions.
    pub fn record_restart(&self, tenant: &str) {
        if let Some(s) = &self.inner {
            s.instruments
                .restarts
                .add(1, &[KeyValue::new("tenant", tenant.to_owned())]);
        }
    }

    /// Records how long a session of `tenant` waited for admission
    /// (`claude_agent.host.admission.wait`, seconds).
    pub fn record_admission_wait(&self, tenant: &str, wait: Duration) {
        if let Some(s) = &self.inner {
            s.instruments.admission_wait.record(
                wait.as_secs_f64(),
                &[KeyValue::new("tenant", tenant.to_owned())],
            );
        }
    }

    /// Records how many sessions of `tenant` wait for admission
    /// (`claude_agent.host.queue.depth`, a gauge).
    pub fn record_queue_depth(&self, tenant: &str, depth: u64) {
        if let Some(s) = &self.inner {
            s.instruments
                .queue_depth
                .record(depth, &[KeyValue::new("tenant", tenant.to_owned())]);
        }
    }

    /// Starts a session's trace, or `None` when disabled.
    pub(crate) fn session(&self, tenant: Option<&str>) -> Option<Arc<SessionTrace>> {
        self.inner
            .as_ref()
            .map(|s| SessionTrace::start(s.clone(), tenant))
    }
}

impl SessionTrace {
    /// `TRACEPARENT` and `TRACESTATE` for the CLI, naming the session span.
    pub(crate) fn trace_context(&self) -> (Option<String>, Option<String>) {
        propagation::trace_context(self.context())
    }

    /// Starts watching the session's events (diagnostics, its end).
    pub(crate) fn watch(
        self: &Arc<Self>,
        events: tokio::sync::broadcast::Receiver<claude_agent_actors::SessionEvent>,
    ) {
        monitor::spawn(self.clone(), events);
    }
}
