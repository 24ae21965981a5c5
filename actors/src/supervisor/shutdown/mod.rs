//! How a session ends: the ladder (policy, escalation steps, the report) and
//! the ordered stop sequence the supervisor runs once.

pub(crate) mod ladder;
pub(crate) mod sequence;
pub(crate) mod timeouts;
