//! Ready-made SDK providers (feature `sdk`): stdout (feature `stdout`;
//! examples, debugging) and OTLP over HTTP (feature `otlp`). Tests build
//! in-memory providers from the SDK themselves.

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use super::Telemetry;

/// What failed while flushing, shutting down or building exporters.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// Flushing spans or metrics to the exporter failed.
    #[error("flushing telemetry failed: {0}")]
    Flush(String),
    /// Shutting a provider down failed.
    #[error("shutting telemetry down failed: {0}")]
    Shutdown(String),
    /// The OTLP exporter could not be built.
    #[error("building the otlp exporter for {endpoint} failed: {message}")]
    Exporter {
        /// The endpoint it was built for.
        endpoint: String,
        /// Why it failed.
        message: String,
    },
}

/// A tracer provider and a meter provider owned by the program. Flush or
/// shut them down before exit, or the last batch may be lost.
#[derive(Debug, Clone)]
pub struct Providers {
    /// Where spans go.
    pub tracer_provider: SdkTracerProvider,
    /// Where metrics go.
    pub meter_provider: SdkMeterProvider,
}

impl Providers {
    /// A [`Telemetry`] handle recording to these providers.
    pub fn telemetry(&self) -> Telemetry {
        Telemetry::new(&self.tracer_provider, &self.meter_provider)
    }

    /// Makes these the `opentelemetry::global` providers (what
    /// [`Telemetry::global`] and other libraries record to).
    pub fn install_global(&self) {
        opentelemetry::global::set_tracer_provider(self.tracer_provider.clone());
        opentelemetry::global::set_meter_provider(self.meter_provider.clone());
    }

    /// Exports everything recorded so far.
    pub fn force_flush(&self) -> Result<(), TelemetryError> {
        let t = self.tracer_provider.force_flush();
        let m = self.meter_provider.force_flush();
        t.and(m).map_err(|e| TelemetryError::Flush(e.to_string()))
    }

    /// Flushes and stops both providers (and their export threads).
    pub fn shutdown(&self) -> Result<(), TelemetryError> {
        let t = self.tracer_provider.shutdown();
        let m = self.meter_provider.shutdown();
        t.and(m)
            .map_err(|e| TelemetryError::Shutdown(e.to_string()))
    }
}

#[cfg(any(feature = "stdout", feature = "otlp"))]
fn resource() -> Resource {
    Resource::builder()
        .with_service_name("claude-agent")
        .build()
}

/// Providers printing each span to stdout as it ends, and metrics every
/// 60 s and at [`Providers::force_flush`] / [`Providers::shutdown`]. They
/// are not made global; call [`Providers::install_global`] for that.
///
/// ```no_run
/// # async fn run() -> claude_agent::Result<()> {
/// use claude_agent::{client::Client, options::Options, telemetry};
///
/// let providers = telemetry::stdout();
/// let client = Client::builder(Options::new())
///     .telemetry(providers.telemetry())
///     .connect()
///     .await?;
/// client.shutdown().await;
/// providers.shutdown().ok(); // prints the metrics
/// # Ok(()) }
/// ```
#[cfg(feature = "stdout")]
pub fn stdout() -> Providers {
    Providers {
        tracer_provider: SdkTracerProvider::builder()
            .with_resource(resource())
            .with_simple_exporter(opentelemetry_stdout::SpanExporter::default())
            .build(),
        meter_provider: SdkMeterProvider::builder()
            .with_resource(resource())
            .with_periodic_exporter(opentelemetry_stdout::MetricExporter::default())
            .build(),
    }
}

/// Providers exporting over OTLP/HTTP (protobuf) to `endpoint`, e.g.
/// `http://127.0.0.1:4318`: spans in batches to `<endpoint>/v1/traces`,
/// metrics every 60 s to `<endpoint>/v1/metrics`. Export runs on the SDK's
/// own threads, so a blocking HTTP client is fine.
#[cfg(feature = "otlp")]
pub fn otlp(endpoint: &str) -> Result<Providers, TelemetryError> {
    use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig};

    let base = endpoint.trim_end_matches('/');
    let failed = |e: opentelemetry_otlp::ExporterBuildError| TelemetryError::Exporter {
        endpoint: endpoint.to_owned(),
        message: e.to_string(),
    };
    let spans = SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{base}/v1/traces"))
        .build()
        .map_err(failed)?;
    let metrics = MetricExporter::builder()
        .with_http()
        .with_endpoint(format!("{base}/v1/metrics"))
        .build()
        .map_err(failed)?;
    Ok(Providers {
        tracer_provider: SdkTracerProvider::builder()
            .with_resource(resource())
            .with_batch_exporter(spans)
            .build(),
        meter_provider: SdkMeterProvider::builder()
            .with_resource(resource())
            .with_periodic_exporter(metrics)
            .build(),
    })
}
