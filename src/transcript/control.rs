//! Control requests as the transcript keeps them: who asked, what, how long
//! it took and how it ended.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Which way a frame or request went, seen from the host. Serialized as
/// `"in"` (from the CLI) and `"out"` (to the CLI).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// From the CLI to us (stdout).
    #[serde(rename = "in")]
    Inbound,
    /// From us to the CLI (stdin).
    #[serde(rename = "out")]
    Outbound,
}

/// How a control request ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "error", rename_all = "snake_case")]
pub enum ControlOutcome {
    /// A success reply was sent or received.
    Success,
    /// An error reply, with its message.
    Error(String),
    /// No reply within the deadline.
    Timeout,
    /// Cancelled (by `control_cancel_request`, shutdown, or the caller).
    Cancelled,
}

/// One control request, either direction.
///
/// `started_at` is serialized as `started_at_unix_ms` (milliseconds since
/// the Unix epoch) and `duration` as `duration_us` (microseconds), both
/// integers, so a JSON round trip is exact at those resolutions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlRecord {
    /// The request's `request_id`.
    pub request_id: String,
    /// The request's subtype: `initialize`, `can_use_tool`, ...
    pub subtype: String,
    /// `out`: we asked the CLI; `in`: the CLI asked us.
    pub direction: Direction,
    /// When the request was sent or received.
    #[serde(rename = "started_at_unix_ms", with = "unix_ms")]
    pub started_at: SystemTime,
    /// From sending (receiving) the request to receiving (sending) the reply.
    #[serde(rename = "duration_us", with = "micros")]
    pub duration: Duration,
    /// How it ended.
    pub outcome: ControlOutcome,
}

mod unix_ms {
    use super::*;

    pub(super) fn serialize<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
        // Times before the epoch are clamped: a host clock that far off is
        // not worth an error in an artifact.
        let ms = t.duration_since(UNIX_EPOCH).unwrap_or_default().as_millis();
        s.serialize_u64(u64::try_from(ms).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SystemTime, D::Error> {
        let ms = u64::deserialize(d)?;
        Ok(UNIX_EPOCH + Duration::from_millis(ms))
    }
}

mod micros {
    use super::*;

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_micros(u64::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn serializes_times_as_integers_and_outcomes_as_tagged() {
        let r = ControlRecord {
            request_id: "req_1".into(),
            subtype: "initialize".into(),
            direction: Direction::Outbound,
            started_at: UNIX_EPOCH + Duration::from_millis(1_700_000_000_123),
            duration: Duration::from_micros(1500),
            outcome: ControlOutcome::Error("nope".into()),
        };
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"request_id": "req_1", "subtype": "initialize", "direction": "out",
                "started_at_unix_ms": 1_700_000_000_123_u64, "duration_us": 1500,
                "outcome": {"status": "error", "error": "nope"}})
        );
        assert_eq!(serde_json::from_value::<ControlRecord>(v).unwrap(), r);
        assert_eq!(
            serde_json::to_value(ControlOutcome::Timeout).unwrap(),
            json!({"status": "timeout"})
        );
    }
}
