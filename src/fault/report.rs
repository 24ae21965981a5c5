//! [`FaultReport`]: a session's part of the shutdown report under
//! `extensions.faults`: the plan, each fault that fired, and the tally of
//! the CLI's control requests with the runtime's replies.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::record::{InjectedFault, RequestTally};
use crate::extensions::SessionReport;

/// The key of the fault plan's part in [`SessionReport::extensions`] (and
/// in the tool's JSON shutdown report).
pub const REPORT_KEY: &str = "faults";

/// What a session's fault plan did; read it from a report with
/// [`FaultReport::from_report`] (the SDK's) or [`FaultReport::from_json`]
/// (the tool's `--json` shutdown line), then run the checks on it
/// ([`check`](super::check)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FaultReport {
    /// The plan's faults, as specs.
    pub plan: Vec<String>,
    /// The seed of the plan's random points.
    pub seed: u64,
    /// The CLI's pid, when the channel is a local process.
    #[serde(default)]
    pub pid: Option<u32>,
    /// Its process group.
    #[serde(default)]
    pub pgid: Option<u32>,
    /// Every fault that fired, in order.
    pub injected: Vec<InjectedFault>,
    /// The CLI's control requests, in arrival order, with the replies the
    /// runtime wrote.
    pub requests: Vec<RequestTally>,
}

impl FaultReport {
    /// The fault plan's part of `report`; `None` when the session ran
    /// without a plan.
    pub fn from_report(report: &SessionReport) -> Option<Self> {
        report
            .extensions
            .get(REPORT_KEY)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The fault plan's part of a serialized report (the tool's `shutdown`
    /// line): `extensions.faults`.
    pub fn from_json(report: &Value) -> Option<Self> {
        report
            .get("extensions")
            .and_then(|e| e.get(REPORT_KEY))
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    /// The faults that fired with this action name (`kill`, `stall-stdout`).
    pub fn fired(&self, action: &str) -> impl Iterator<Item = &InjectedFault> {
        self.injected.iter().filter(move |f| f.action == action)
    }
}
