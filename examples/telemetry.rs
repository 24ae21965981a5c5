//! OpenTelemetry for a session: spans printed to stdout as they end (the
//! session, each turn, each control request) and the metrics at exit. The
//! CLI gets `TRACEPARENT` naming the session span.
//!
//! The library records through the OpenTelemetry API; the program owns the
//! SDK providers and their exporters (here the stdout ones). The `stdout`
//! and `otlp` features of `claude-agent` offer the same ready-made
//! (`telemetry::stdout()`, `telemetry::otlp(endpoint)`).
//!
//! ```text
//! cargo run --example telemetry
//! ```

use std::process::ExitCode;

use claude_agent::telemetry::Telemetry;
use claude_agent::{Error, client::Client, options::Options};
use futures::StreamExt;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

#[tokio::main]
async fn main() -> ExitCode {
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(opentelemetry_stdout::SpanExporter::default())
        .build();
    let meter_provider = SdkMeterProvider::builder()
        .with_periodic_exporter(opentelemetry_stdout::MetricExporter::default())
        .build();
    let telemetry = Telemetry::new(&tracer_provider, &meter_provider);
    let outcome = match run(telemetry).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    };
    // Exports the metrics and stops the exporters' threads.
    if let Err(e) = tracer_provider.shutdown() {
        eprintln!("telemetry: {e}");
    }
    if let Err(e) = meter_provider.shutdown() {
        eprintln!("telemetry: {e}");
    }
    outcome
}

async fn run(telemetry: Telemetry) -> Result<(), Error> {
    let client = Client::builder(Options::new().max_turns(1))
        .telemetry(telemetry)
        .tenant("example")
        .connect()
        .await?;
    for prompt in ["Say hello.", "Say goodbye."] {
        client.send(prompt).await?;
        let mut turn = client.receive_response();
        while let Some(message) = turn.next().await {
            message?;
        }
    }
    let report = client.shutdown().await;
    eprintln!(
        "shutdown: {:?}, escalation {:?}",
        report.cause, report.escalation
    );
    Ok(())
}
