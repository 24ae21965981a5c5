//! In-memory OpenTelemetry providers, built from the SDK (a dev-dependency
//! with its `testing` feature): the library itself depends on the API only.

use claude_agent::telemetry::Telemetry;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, SdkMeterProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

/// Providers that keep what they export: spans as they end, metrics
/// (cumulative) at each flush.
pub struct InMemory {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    spans: InMemorySpanExporter,
    metrics: InMemoryMetricExporter,
}

pub fn in_memory() -> InMemory {
    let spans = InMemorySpanExporter::default();
    let metrics = InMemoryMetricExporter::default();
    InMemory {
        tracer_provider: SdkTracerProvider::builder()
            .with_simple_exporter(spans.clone())
            .build(),
        meter_provider: SdkMeterProvider::builder()
            .with_periodic_exporter(metrics.clone())
            .build(),
        spans,
        metrics,
    }
}

impl InMemory {
    /// A handle recording to these providers, as a program would build it.
    pub fn telemetry(&self) -> Telemetry {
        Telemetry::new(&self.tracer_provider, &self.meter_provider)
    }

    fn flush(&self) {
        self.tracer_provider.force_flush().unwrap();
        self.meter_provider.force_flush().unwrap();
    }

    /// Flushes, then returns every span ended so far.
    pub fn finished_spans(&self) -> Vec<SpanData> {
        self.flush();
        self.spans.get_finished_spans().unwrap()
    }

    /// Flushes, then returns every metrics export so far; the last one holds
    /// the current (cumulative) values.
    pub fn metrics(&self) -> Vec<ResourceMetrics> {
        self.flush();
        self.metrics.get_finished_metrics().unwrap()
    }

    /// Stops both providers (and the periodic metrics thread).
    pub fn shutdown(&self) {
        self.tracer_provider.shutdown().unwrap();
        self.meter_provider.shutdown().unwrap();
    }
}
