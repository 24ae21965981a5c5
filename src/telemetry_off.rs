//! Telemetry without the `telemetry` feature: the crate-internal surface
//! of the telemetry module with nothing behind it. [`SessionTrace`] has
//! no values, so no session ever holds one and every traced path is dead
//! code; the OpenTelemetry API is not compiled at all.

use std::sync::Arc;
#[cfg(feature = "host")]
use std::time::Duration;

use claude_agent_actors::{SessionStats, ShutdownReport};

use crate::protocol::Message;

/// The session's report and counters, read through a weak reference to the
/// client (`None` once the client is gone).
pub(crate) type Probe =
    Box<dyn Fn() -> Option<(Option<ShutdownReport>, SessionStats)> + Send + Sync>;

/// Which way a control request went.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Direction {
    /// From us to the CLI.
    Out,
}

/// Records nothing: the only value there is without the feature.
#[derive(Debug, Clone, Default)]
pub(crate) struct Telemetry;

impl Telemetry {
    pub(crate) fn disabled() -> Self {
        Self
    }

    #[cfg(feature = "host")]
    pub(crate) fn is_enabled(&self) -> bool {
        false
    }

    #[cfg(feature = "host")]
    pub(crate) fn record_restart(&self, _tenant: &str) {}

    #[cfg(feature = "host")]
    pub(crate) fn record_admission_wait(&self, _tenant: &str, _wait: Duration) {}

    #[cfg(feature = "host")]
    pub(crate) fn record_queue_depth(&self, _tenant: &str, _depth: u64) {}

    pub(crate) fn session(&self, _tenant: Option<&str>) -> Option<Arc<SessionTrace>> {
        None
    }
}

/// A session's trace: there is none without the feature.
pub(crate) enum SessionTrace {}

impl SessionTrace {
    pub(crate) fn client_dropped(&self, _stats: SessionStats, _report: Option<ShutdownReport>) {
        match *self {}
    }

    pub(crate) fn turn_started(&self) {
        match *self {}
    }

    pub(crate) fn turn_not_sent(&self, _error: &crate::Error) {
        match *self {}
    }

    pub(crate) fn observe(&self, _is_result: bool, _message: &crate::Result<Message>) {
        match *self {}
    }

    pub(crate) fn control(&self, _subtype: &str, _dir: Direction, _attrs: Vec<()>) -> ControlSpan {
        match *self {}
    }
}

/// A control request's span: there is none without the feature.
pub(crate) enum ControlSpan {}

impl ControlSpan {
    pub(crate) fn end(self, _outcome: &'static str, _attrs: Vec<()>) {
        match self {}
    }
}
