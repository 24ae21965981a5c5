//! What a worker does with a job whose session ended: record its outcome,
//! retry it elsewhere, or release it.

use claude_agent::Error;
use claude_agent::host::{Failure, SessionOutcome};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The turn ran (to success or to an error result): record and ack.
    Done,
    /// It can never run as written (invalid options, bad config): record
    /// and terminate.
    Unfixable,
    /// Something a rerun may fix (a crash, a CLI that would not start):
    /// redeliver, or dead-letter after the last delivery.
    Retry,
    /// The worker is draining: give the job back, another worker runs it.
    Release,
}

pub(crate) fn classify(outcome: &SessionOutcome) -> Verdict {
    match &outcome.failure {
        None | Some(Failure::ErrorResult { .. } | Failure::Turn(_)) => Verdict::Done,
        Some(Failure::Drained | Failure::Cancelled) => Verdict::Release,
        Some(Failure::Connect(e)) if unfixable(e) => Verdict::Unfixable,
        Some(_) => Verdict::Retry,
    }
}

/// Errors no other worker or later attempt would avoid.
fn unfixable(e: &Error) -> bool {
    e.is_invalid_options() || matches!(e, Error::InvalidConfig(_) | Error::Capability(_))
}
