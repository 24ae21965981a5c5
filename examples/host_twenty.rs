//! Twenty concurrent sessions through a `Host`: at most 8 CLIs at once, at
//! most 5 per tenant, admitted fairly between the two tenants.
use claude_agent::host::{DrainOptions, HostConfig};
use claude_agent::prelude::*;
use std::time::Duration;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let host = Host::start(HostConfig::new().max_sessions(8).max_per_tenant(5)).await?;
    let mut jobs = Vec::new();
    for i in 0..20 {
        let tenant = if i % 2 == 0 { "acme" } else { "globex" };
        let prompt = format!("What is {i} + {i}?");
        jobs.push(
            host.submit(tenant, ClientBuilder::new(Options::new()), prompt)
                .await?,
        );
    }
    for job in jobs {
        let outcome = job.outcome().await;
        let text = outcome
            .result
            .as_ref()
            .and_then(|r| r.text())
            .unwrap_or_default();
        match &outcome.failure {
            None => println!("{} {}: {text}", outcome.tenant, outcome.id),
            Some(failure) => println!("{} {}: failed: {failure}", outcome.tenant, outcome.id),
        }
    }
    host.drain(DrainOptions::new(Duration::from_secs(30))).await;
    Ok(())
}
