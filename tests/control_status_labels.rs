//! One vocabulary for how a control request ended: the transcript's
//! `ControlOutcome` serializes its `status` with the same words as
//! `ControlStatus`, the label of the runtime's tracing spans and of the
//! OpenTelemetry control spans and metrics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::runtime::ControlStatus;
use claude_agent::transcript::ControlOutcome;

#[test]
fn transcript_outcomes_use_the_control_status_labels() {
    let pairs = [
        (ControlOutcome::Success, ControlStatus::Success),
        (ControlOutcome::Error("no".into()), ControlStatus::Error),
        (ControlOutcome::Timeout, ControlStatus::Timeout),
        (ControlOutcome::Cancelled, ControlStatus::Cancelled),
    ];
    for (outcome, status) in pairs {
        let json = serde_json::to_value(&outcome).unwrap();
        assert_eq!(json["status"], status.as_str(), "{outcome:?}");
    }
}
