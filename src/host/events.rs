//! What a [`Host`](super::Host) reports as its sessions come and go.

use std::time::Duration;

use serde_json::{Value, json};

use super::drain::DrainReport;
use super::outcome::SessionId;
use claude_agent_actors::process::ExitInfo;

/// A step in a hosted session's life, or of the host's.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum HostEvent {
    /// Waiting for admission.
    Queued {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
    },
    /// Admitted after waiting `waited`.
    Admitted {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// Time in the queue.
        waited: Duration,
    },
    /// The CLI started and answered `initialize`.
    Started {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// The CLI's pid.
        pid: Option<u32>,
        /// 0 for the first start, n for the n-th restart.
        attempt: u32,
    },
    /// An admitted session got a warm spare (no CLI start); `Started`
    /// follows with the same pid.
    SpareTaken {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// The spare CLI's pid.
        pid: Option<u32>,
    },
    /// The CLI crashed; restart `attempt` follows after `after`.
    Restarting {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// The restart about to happen (1-based).
        attempt: u32,
        /// The backoff.
        after: Duration,
        /// The CLI's session id it will `--resume`, when known.
        resume: Option<String>,
        /// What the crash was, in words.
        reason: String,
        /// How the crashed CLI ended, when known.
        exit: Option<ExitInfo>,
        /// Its last stderr lines.
        stderr_tail: Vec<String>,
    },
    /// An idle session's CLI was shut down (it is gone by now); the
    /// session lives on, hibernated.
    Hibernated {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// The CLI's session id a revival will resume.
        session_id: Option<String>,
        /// The pid of the CLI that was shut down.
        pid: Option<u32>,
        /// The ordered shutdown's duration.
        took: Duration,
    },
    /// A hibernated session's CLI started again, resuming its session.
    Revived {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// The CLI's session id it resumed.
        session_id: Option<String>,
        /// The new CLI's pid.
        pid: Option<u32>,
        /// Time waiting for admission.
        waited: Duration,
        /// From the revival's request to the CLI answering `initialize`
        /// (admission wait included).
        took: Duration,
    },
    /// Done, for good.
    Ended {
        /// The session.
        id: SessionId,
        /// Its tenant.
        tenant: String,
        /// `None` = completed; else [`Failure::cause_name`](super::Failure::cause_name).
        failure: Option<&'static str>,
        /// The failure in words (its `Display`), when it failed.
        message: Option<String>,
        /// How the CLI ended, when the failure knows ([`Failure::exit`](super::Failure::exit)).
        exit: Option<ExitInfo>,
        /// The CLI's last stderr lines, when the failure knows them.
        stderr_tail: Vec<String>,
        /// A job's turn latency.
        turn_latency: Option<Duration>,
        /// Restarts performed.
        restarts: u32,
    },
    /// A drain began.
    Draining {
        /// Sessions running.
        running: usize,
        /// Queued sessions cancelled.
        cancelled_queued: usize,
    },
    /// A drain finished.
    Drained(Box<DrainReport>),
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

impl HostEvent {
    /// The event as one JSON object with a `kind` field (the `host`
    /// command's `--json` output).
    pub fn to_json(&self) -> Value {
        match self {
            Self::Queued { id, tenant } => {
                json!({"kind": "queued", "id": id.0, "tenant": tenant})
            }
            Self::Admitted { id, tenant, waited } => {
                json!({"kind": "admitted", "id": id.0, "tenant": tenant, "waited_ms": ms(*waited)})
            }
            Self::Started {
                id,
                tenant,
                pid,
                attempt,
            } => {
                json!({"kind": "started", "id": id.0, "tenant": tenant, "pid": pid, "attempt": attempt})
            }
            Self::Restarting {
                id,
                tenant,
                attempt,
                after,
                resume,
                reason,
                exit,
                stderr_tail,
            } => json!({"kind": "restarting", "id": id.0, "tenant": tenant, "attempt": attempt,
                        "after_ms": ms(*after), "resume": resume, "reason": reason,
                        "exit": exit, "stderr_tail": stderr_tail}),
            Self::SpareTaken { id, tenant, pid } => {
                json!({"kind": "spare_taken", "id": id.0, "tenant": tenant, "pid": pid})
            }
            Self::Hibernated {
                id,
                tenant,
                session_id,
                pid,
                took,
            } => json!({"kind": "hibernated", "id": id.0, "tenant": tenant,
                        "session_id": session_id, "pid": pid, "took_ms": ms(*took)}),
            Self::Revived {
                id,
                tenant,
                session_id,
                pid,
                waited,
                took,
            } => json!({"kind": "revived", "id": id.0, "tenant": tenant,
                        "session_id": session_id, "pid": pid, "waited_ms": ms(*waited),
                        "took_ms": ms(*took)}),
            Self::Ended {
                id,
                tenant,
                failure,
                message,
                exit,
                stderr_tail,
                turn_latency,
                restarts,
            } => json!({"kind": "ended", "id": id.0, "tenant": tenant, "failure": failure,
                        "message": message, "exit": exit, "stderr_tail": stderr_tail,
                        "turn_latency_ms": turn_latency.map(ms), "restarts": restarts}),
            Self::Draining {
                running,
                cancelled_queued,
            } => {
                json!({"kind": "draining", "running": running, "cancelled_queued": cancelled_queued})
            }
            Self::Drained(report) => {
                let mut v = report.to_json();
                if let Some(o) = v.as_object_mut() {
                    o.insert("kind".into(), json!("drained"));
                }
                v
            }
        }
    }
}
