//! Telemetry: the session's spans and metrics, `TRACEPARENT` for the CLI,
//! the traced inbound handler.

use std::sync::{Arc, Mutex};

use claude_agent_actors::{SessionConfig, SessionEvent};
use tokio::sync::broadcast;

use super::{Extension, PreStart, Started, Stopped, lock};
use crate::telemetry::{SessionTrace, TracedHandler};
use crate::{Error, Result};

/// One session's trace, from the connect to the report.
pub(crate) struct TelemetryExtension {
    trace: Arc<SessionTrace>,
    /// Subscribed before the start, so early events count too.
    events: Mutex<Option<broadcast::Receiver<SessionEvent>>>,
}

impl TelemetryExtension {
    pub(crate) fn new(trace: Arc<SessionTrace>) -> Self {
        Self {
            trace,
            events: Mutex::new(None),
        }
    }
}

impl Extension for TelemetryExtension {
    fn name(&self) -> &str {
        "telemetry"
    }

    async fn pre_start(&self, start: &mut PreStart<'_>) -> Result<()> {
        let (parent, state) = self.trace.trace_context();
        let command = start.command_context_mut();
        command.trace_parent = parent;
        command.trace_state = state;
        Ok(())
    }

    fn configure(&self, mut config: SessionConfig) -> Result<SessionConfig> {
        config.inbound = Arc::new(TracedHandler {
            inner: config.inbound,
            trace: self.trace.clone(),
        });
        *lock(&self.events) = Some(config.subscribe_events());
        Ok(config)
    }

    async fn post_start(&self, started: &Started<'_>) -> Result<()> {
        self.trace
            .connected(started.session().pid(), (started.make_probe)());
        if let Some(events) = lock(&self.events).take() {
            self.trace.watch(events);
        }
        Ok(())
    }

    fn connect_failed(&self, error: &Error) {
        self.trace.connect_failed(error);
    }

    async fn post_stop(&self, stopped: &mut Stopped<'_>) {
        let report = stopped.runtime().clone();
        self.trace.finish_with(Some(report), Some(*stopped.stats()));
    }
}
