//! OpenTelemetry for a session: spans printed to stdout as they end (the
//! session, each turn, each control request) and the metrics at exit. The
//! CLI gets `TRACEPARENT` naming the session span.
//!
//! ```text
//! cargo run --example telemetry
//! ```

use std::process::ExitCode;

use claude_agent::{Client, Error, Options, telemetry};
use futures::StreamExt;

#[tokio::main]
async fn main() -> ExitCode {
    // Stdout exporters; `telemetry::otlp(endpoint)` (feature `otlp`) or
    // your own SDK providers with `Telemetry::new` work the same way.
    let providers = telemetry::stdout();
    let outcome = match run(&providers).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    };
    // Exports the metrics and stops the exporters' threads.
    if let Err(e) = providers.shutdown() {
        eprintln!("telemetry: {e}");
    }
    outcome
}

async fn run(providers: &telemetry::Providers) -> Result<(), Error> {
    let client = Client::builder(Options::new().max_turns(1))
        .telemetry(providers.telemetry())
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
