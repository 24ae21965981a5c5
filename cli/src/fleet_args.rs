//! The stream-layout flags `worker` and `submit` share, and opening a
//! [`Fleet`] with them.

use std::time::Duration;

use claude_agent::fleet::async_nats::ConnectOptions;
use claude_agent::fleet::{Fleet, FleetError, StreamLayout};

use crate::args::seconds;
use crate::store::with_causes;

/// The default of `--prefix`.
pub(crate) const DEFAULT_PREFIX: &str = "claude-agent";

/// Where the fleet's streams are (defaults: see the README's "Fleet").
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct LayoutArgs {
    /// Prefix of every stream, subject and consumer name (one fleet per
    /// prefix on a server).
    #[arg(long, value_name = "NAME", default_value = DEFAULT_PREFIX)]
    pub(crate) prefix: String,
    /// Seconds a delivered job may go without an ack or a progress mark
    /// before it is redelivered.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub(crate) ack_wait: f64,
    /// Deliveries of a failing job before it goes to the dead-letter subject.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_deliveries: u32,
}

impl LayoutArgs {
    pub(crate) fn layout(&self) -> Result<StreamLayout, String> {
        let ack_wait = seconds("ack-wait", self.ack_wait)?;
        if ack_wait < Duration::from_secs(1) {
            return Err("--ack-wait must be at least 1 second".into());
        }
        let valid = !self.prefix.is_empty()
            && self
                .prefix
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if !valid {
            return Err("--prefix must be letters, digits, '-' and '_'".into());
        }
        Ok(StreamLayout::with_prefix(&self.prefix)
            .ack_wait(ack_wait)
            .max_deliveries(self.max_deliveries))
    }
}

/// Why the fleet could not be opened, in one line; `incompatible` when an
/// existing stream or consumer does not fit the layout.
pub(crate) async fn connect(url: &str, layout: StreamLayout) -> Result<Fleet, String> {
    connect_with(url, layout, ConnectOptions::new()).await
}

/// [`connect`] with the NATS client's options (the worker's event
/// callback); connecting may take the library's default bound.
pub(crate) async fn connect_with(
    url: &str,
    layout: StreamLayout,
    options: ConnectOptions,
) -> Result<Fleet, String> {
    let options = options.connection_timeout(claude_agent::fleet::DEFAULT_CONNECT_TIMEOUT);
    Fleet::connect_with(url, layout, options)
        .await
        .map_err(|e| match e {
            FleetError::Incompatible(e) => e.to_string(),
            e => with_causes(&e),
        })
}
