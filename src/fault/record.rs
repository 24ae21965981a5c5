//! What a session's faults did, as the report carries it: each injected
//! fault, and the tally of the CLI's control requests and the runtime's
//! replies that the checks read.

use serde::{Deserialize, Serialize};

/// One fault that fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct InjectedFault {
    /// The fault, as a spec (`kill@control_request:1`).
    pub fault: String,
    /// The action's name (`kill`, `stall-stdout`, ...).
    pub action: String,
    /// Milliseconds from the connect to the fault.
    pub at_ms: u64,
    /// The stdout frame it fired at (counting every frame from 1), if at one.
    #[serde(default)]
    pub frame: Option<u64>,
    /// The control request it acted on, if any.
    #[serde(default)]
    pub request_id: Option<String>,
    /// The signal sent, if any (its number).
    #[serde(default)]
    pub signal: Option<i32>,
    /// `group` or `leader`, for a signal.
    #[serde(default)]
    pub target: Option<String>,
    /// Whether it took effect (a signal was delivered, a line rewritten).
    pub applied: bool,
    /// Why it did not take effect, or what it did.
    #[serde(default)]
    pub note: Option<String>,
}

/// A control request of the CLI and how many replies the runtime wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RequestTally {
    /// The request's id.
    pub request_id: String,
    /// Its subtype.
    pub subtype: String,
    /// Replies the runtime wrote for it (a dropped reply counts: the
    /// runtime wrote it, the fault kept it from the CLI).
    pub replies: u32,
    /// The CLI cancelled it (`control_cancel_request`).
    pub cancelled: bool,
    /// A fault that can prevent a reply (a kill, a stop, a closed pipe, a
    /// hung callback) fired after it arrived.
    pub faulted_after: bool,
}
