//! [`SessionReport`]: what a session's end reports to the user.

use std::collections::BTreeMap;
use std::ops::Deref;

use claude_agent_actors::ShutdownReport;
use serde::Serialize;
use serde_json::Value;

/// How a session ended: the runtime's [`ShutdownReport`] (how the CLI was
/// stopped; its fields read through, as `report.exit`) plus what the SDK's
/// extensions did. Returned by [`Client::shutdown`](crate::client::Client::shutdown)
/// and [`Query::shutdown_report`](crate::client::Query::shutdown_report).
///
/// Serialized flat: the runtime's fields, `mirror_persisted`,
/// `mirror_unpersisted` and, when any extension reported, `extensions`.
///
/// ```
/// use claude_agent::extensions::SessionReport;
/// use claude_agent::{runtime::Escalation, runtime::ShutdownCause, runtime::ShutdownReport};
///
/// let runtime = ShutdownReport::new(ShutdownCause::Requested, None, Escalation::None);
/// let report = SessionReport::from(runtime);
/// assert_eq!(report.escalation, Escalation::None);
/// assert_eq!(report.mirror_persisted, None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SessionReport {
    /// The runtime's report.
    #[serde(flatten)]
    pub runtime: ShutdownReport,
    /// Transcript entries the session-store mirror persisted (`None`
    /// without a session store, `ClientBuilder::session_store`).
    pub mirror_persisted: Option<u64>,
    /// Transcript entries the mirror did not persist: failed after their
    /// retries, dropped on overflow, or still pending at the flush deadline.
    pub mirror_unpersisted: Option<u64>,
    /// The parts user extensions reported, by extension name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extensions: BTreeMap<String, Value>,
}

impl From<ShutdownReport> for SessionReport {
    fn from(runtime: ShutdownReport) -> Self {
        Self {
            runtime,
            mirror_persisted: None,
            mirror_unpersisted: None,
            extensions: BTreeMap::new(),
        }
    }
}

/// The runtime's fields read through: `report.exit`, `report.escalation`.
impl Deref for SessionReport {
    type Target = ShutdownReport;

    fn deref(&self) -> &ShutdownReport {
        &self.runtime
    }
}
