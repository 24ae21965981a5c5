//! What the fleet records about a job: its outcome (one per job id, in the
//! results stream) and, for a job that kept failing, its dead letter.

use serde::{Deserialize, Serialize};

use super::JobId;
use crate::host::{Failure, SessionOutcome};
use crate::runtime::Escalation;

/// How a job ended, as recorded in the results stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct JobOutcome {
    /// The job.
    pub job_id: JobId,
    /// Its tenant.
    pub tenant: String,
    /// The session it ran in (continue it with a job naming this
    /// `session_id`); `None` when it never started.
    pub session_id: Option<String>,
    /// True when the turn completed without error.
    pub completed: bool,
    /// Why it did not complete: a [`Failure`](crate::host::Failure) cause
    /// name (`crashed`, `error_result`, ...) or `invalid_job`.
    pub cause: Option<String>,
    /// The failure, for a person.
    pub message: Option<String>,
    /// The CLI's exit code, when it crashed.
    pub exit_code: Option<i32>,
    /// The signal that killed the CLI, when it was killed.
    pub exit_signal: Option<i32>,
    /// The CLI's last stderr lines, when it crashed.
    #[serde(default)]
    pub stderr_tail: Vec<String>,
    /// The turn's result text.
    pub result: Option<String>,
    /// Prompt written to result read, in milliseconds.
    pub turn_latency_ms: Option<f64>,
    /// `term` or `kill` when the CLI's shutdown had to signal it.
    pub escalation: Option<String>,
    /// Transcript entries the session store kept, when one was configured.
    pub mirror_persisted: Option<u64>,
    /// Transcript entries it did not keep.
    pub mirror_unpersisted: Option<u64>,
    /// Which delivery of the job this was (1 = the first).
    pub deliveries: u64,
    /// True when the job went to the dead-letter subject.
    #[serde(default)]
    pub dead_lettered: bool,
    /// The worker that recorded it.
    pub worker: String,
}

impl JobOutcome {
    /// The outcome of a job that ran in a hosted session.
    pub fn from_session(
        job_id: JobId,
        session_id: Option<String>,
        outcome: &SessionOutcome,
        deliveries: u64,
        worker: impl Into<String>,
    ) -> Self {
        let failure = outcome.failure.as_ref();
        // A CLI that exited before `initialize` fails the start: its exit
        // is in the start error.
        let start_error = failure.and_then(|f| match f {
            Failure::Connect(e) | Failure::Revive { error: e, .. } => Some(e),
            _ => None,
        });
        let exit = failure
            .and_then(|f| f.exit())
            .or_else(|| start_error.and_then(|e| e.exit()));
        let report = outcome.report.as_ref();
        let result = outcome.result.as_ref();
        Self {
            job_id,
            tenant: outcome.tenant.clone(),
            // The CLI's own word wins: a resume may have forked.
            session_id: result
                .and_then(|r| r.session_id.clone())
                .filter(|s| !s.is_empty())
                .or(session_id),
            completed: failure.is_none(),
            cause: failure.map(|f| f.cause_name().to_owned()),
            message: failure.map(|f| crate::error::report(f)),
            exit_code: exit.and_then(|e| e.code),
            exit_signal: exit.and_then(|e| e.signal),
            stderr_tail: match (failure, start_error.and_then(|e| e.stderr_tail())) {
                (_, Some(tail)) => tail.lines().map(str::to_owned).collect(),
                (Some(f), None) => f.stderr_tail().to_vec(),
                (None, None) => Vec::new(),
            },
            result: result.and_then(|r| r.result.clone()),
            turn_latency_ms: outcome.turn_latency.map(|d| d.as_secs_f64() * 1e3),
            escalation: report.and_then(|r| match r.escalation {
                Escalation::Term => Some("term".to_owned()),
                Escalation::Kill => Some("kill".to_owned()),
                _ => None,
            }),
            mirror_persisted: report.and_then(|r| r.mirror_persisted),
            mirror_unpersisted: report.and_then(|r| r.mirror_unpersisted),
            deliveries,
            dead_lettered: false,
            worker: worker.into(),
        }
    }

    /// The outcome of a job that failed before any session: `cause` and
    /// `message` say why.
    pub fn failed(
        job_id: JobId,
        tenant: impl Into<String>,
        cause: impl Into<String>,
        message: impl Into<String>,
        deliveries: u64,
        worker: impl Into<String>,
    ) -> Self {
        Self {
            job_id,
            tenant: tenant.into(),
            session_id: None,
            completed: false,
            cause: Some(cause.into()),
            message: Some(message.into()),
            exit_code: None,
            exit_signal: None,
            stderr_tail: Vec::new(),
            result: None,
            turn_latency_ms: None,
            escalation: None,
            mirror_persisted: None,
            mirror_unpersisted: None,
            deliveries,
            dead_lettered: false,
            worker: worker.into(),
        }
    }
}

/// A job that failed on every one of its deliveries, as published to the
/// dead-letter subject (its outcome is recorded too, marked
/// `dead_lettered`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DeadLetter {
    /// The job as submitted.
    pub job: serde_json::Value,
    /// Its id.
    pub job_id: JobId,
    /// Deliveries it had.
    pub deliveries: u64,
    /// The last failure's cause name (`crashed`, `worker_died`, ...).
    pub cause: String,
    /// The last failure, for a person.
    pub message: String,
    /// The CLI's exit code in the last failure, when it crashed.
    pub exit_code: Option<i32>,
    /// The signal that killed the CLI, when it was killed.
    pub exit_signal: Option<i32>,
    /// The CLI's last stderr lines in the last failure.
    pub stderr_tail: Vec<String>,
    /// The worker that gave up on it.
    pub worker: String,
}

impl DeadLetter {
    /// The dead letter of a job whose last attempt ended as `outcome`.
    pub fn new(job: serde_json::Value, outcome: &JobOutcome) -> Self {
        Self {
            job,
            job_id: outcome.job_id.clone(),
            deliveries: outcome.deliveries,
            cause: outcome.cause.clone().unwrap_or_else(|| "failed".into()),
            message: outcome.message.clone().unwrap_or_default(),
            exit_code: outcome.exit_code,
            exit_signal: outcome.exit_signal,
            stderr_tail: outcome.stderr_tail.clone(),
            worker: outcome.worker.clone(),
        }
    }
}
