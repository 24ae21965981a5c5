//! Draining a host: stop admitting, optionally interrupt running turns,
//! shut every session down in parallel, kill what is left at the deadline.
//!
//! At the deadline a session is also hurried ([`Client::hurry`]): its
//! extensions' final waits end too. Before, a session whose session store
//! stalled was killed at the deadline and then waited the mirror's flush
//! deadline (10 s by default) more, so a host with a 10 s drain deadline
//! took about 21 s to exit.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use claude_agent_actors::{Escalation, ShutdownCause};
use futures::future::join_all;
use serde_json::{Value, json};

use super::handle::SessionHandle;
use super::outcome::SessionOutcome;
use crate::client::Client;

/// Default of [`DrainOptions::interrupt_timeout`]: how long the interrupts
/// may take before the drain goes on without them (never more than half
/// the deadline).
pub const DEFAULT_INTERRUPT_TIMEOUT: Duration = Duration::from_millis(500);
/// Default of [`DrainOptions::killed_report_timeout`]: how long a session
/// killed (and hurried) at the deadline may take to report: reaping a
/// SIGKILLed CLI, the mirror's
/// [`HURRIED_FLUSH`](crate::store::mirror::HURRIED_FLUSH), extensions that
/// ignore the hurry.
pub const DEFAULT_KILLED_REPORT_TIMEOUT: Duration = Duration::from_secs(5);

/// How to drain a [`Host`](super::Host).
///
/// ```
/// use std::time::Duration;
/// use claude_agent::host::DrainOptions;
///
/// // 30 s for everything; interrupt running turns first, allowing the
/// // interrupts 2 s; killed sessions get 10 s to report.
/// let opts = DrainOptions::new(Duration::from_secs(30))
///     .interrupt(true)
///     .interrupt_timeout(Duration::from_secs(2))
///     .killed_report_timeout(Duration::from_secs(10));
/// # let _ = opts;
/// ```
#[derive(Debug, Clone, Copy)]
#[must_use]
pub struct DrainOptions {
    pub(crate) deadline: Duration,
    pub(crate) interrupt: bool,
    pub(crate) interrupt_timeout: Duration,
    pub(crate) killed_report_timeout: Duration,
}

impl DrainOptions {
    /// Everything ends within `deadline`: sessions still running then are
    /// killed and hurried ([`Client::hurry`]: the session store mirror
    /// stops waiting for a stalled store, counting what it did not persist
    /// as `mirror_unpersisted`). A killed session then has a few seconds
    /// to report (to reap the CLI, to end its extensions' waits); one that
    /// does not is counted in [`DrainReport::unresolved`] and the drain
    /// returns without it. Running turns are not interrupted.
    pub fn new(deadline: Duration) -> Self {
        Self {
            deadline,
            interrupt: false,
            interrupt_timeout: DEFAULT_INTERRUPT_TIMEOUT,
            killed_report_timeout: DEFAULT_KILLED_REPORT_TIMEOUT,
        }
    }

    /// Interrupt running turns first (the CLI then ends them at once instead
    /// of finishing them after EOF).
    pub fn interrupt(mut self, on: bool) -> Self {
        self.interrupt = on;
        self
    }

    /// How long the interrupts (with [`interrupt`](Self::interrupt)) may
    /// take before the drain shuts the sessions down without them; at most
    /// half the deadline is used. Default
    /// [`DEFAULT_INTERRUPT_TIMEOUT`] (500 ms): a local CLI acknowledges at
    /// once, a remote channel may need more.
    pub fn interrupt_timeout(mut self, timeout: Duration) -> Self {
        self.interrupt_timeout = timeout;
        self
    }

    /// How long a session killed and hurried at the deadline may take to
    /// report before the drain counts it in
    /// [`DrainReport::unresolved`] and returns without it; the drain ends
    /// at most this long after its deadline. Default
    /// [`DEFAULT_KILLED_REPORT_TIMEOUT`] (5 s): enough to reap a killed CLI
    /// and for the mirror's hurried flush; an extension of yours that
    /// takes longer to end after a hurry may need more.
    pub fn killed_report_timeout(mut self, timeout: Duration) -> Self {
        self.killed_report_timeout = timeout;
        self
    }
}

/// What a drain did.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DrainReport {
    /// From the drain's start to its end.
    pub elapsed: Duration,
    /// The configured deadline.
    pub deadline: Duration,
    /// Sessions running when the drain began (hibernated ones included).
    pub running: usize,
    /// Of those, sessions hibernated (no CLI to shut down).
    pub hibernated: usize,
    /// Warm spares ready when the drain began (shut down like sessions;
    /// their escalations are counted in `escalations_*`).
    pub spares: usize,
    /// Spares whose shutdown reported (ordered or killed at the deadline).
    pub spares_ended: usize,
    /// Queued sessions cancelled.
    pub cancelled_queued: usize,
    /// Running sessions that ended before the deadline.
    pub ended_in_time: usize,
    /// Sessions killed at the deadline.
    pub killed_at_deadline: usize,
    /// Sessions that had not reported even after the kill (should be 0).
    pub unresolved: usize,
    /// Ordered shutdowns that needed SIGTERM.
    pub escalations_term: usize,
    /// Ordered shutdowns that needed SIGKILL (the ladder's, or the deadline's).
    pub escalations_kill: usize,
    /// Outcomes of the sessions that were running, by failure cause
    /// (`completed` for those that completed before the drain got them).
    pub by_cause: BTreeMap<String, usize>,
    /// Every running session's outcome.
    pub outcomes: Vec<Arc<SessionOutcome>>,
}

impl DrainReport {
    /// The counts as one JSON object (no outcomes).
    pub fn to_json(&self) -> Value {
        json!({
            "elapsed_ms": self.elapsed.as_secs_f64() * 1e3,
            "deadline_ms": self.deadline.as_secs_f64() * 1e3,
            "running": self.running,
            "hibernated": self.hibernated,
            "spares": self.spares,
            "spares_ended": self.spares_ended,
            "cancelled_queued": self.cancelled_queued,
            "ended_in_time": self.ended_in_time,
            "killed_at_deadline": self.killed_at_deadline,
            "unresolved": self.unresolved,
            "escalations_term": self.escalations_term,
            "escalations_kill": self.escalations_kill,
            "by_cause": self.by_cause,
        })
    }
}

/// What the supervisor hands a drain.
#[derive(Default)]
pub(crate) struct DrainStart {
    /// Sessions not ended, hibernated ones included.
    pub(crate) running: Vec<SessionHandle>,
    /// How many of them are hibernated.
    pub(crate) hibernated: usize,
    /// Queued sessions cancelled.
    pub(crate) cancelled: usize,
    /// Ready warm spares, to shut down.
    pub(crate) spares: Vec<Client>,
}

/// The drain after the supervisor stopped admitting: `running` are the
/// sessions it handed over; `stop_all` tells their supervision to shut down.
pub(crate) async fn drain_running(
    handed: DrainStart,
    opts: DrainOptions,
    stop_all: impl FnOnce(),
) -> DrainReport {
    let DrainStart {
        running,
        hibernated,
        cancelled: cancelled_queued,
        spares,
    } = handed;
    let start = Instant::now();
    let deadline = tokio::time::Instant::from_std(start + opts.deadline);
    if opts.interrupt {
        let bound = opts.interrupt_timeout.min(opts.deadline / 2);
        join_all(
            running
                .iter()
                .filter_map(SessionHandle::current_client)
                .map(|c| async move { tokio::time::timeout(bound, c.interrupt()).await }),
        )
        .await;
    }
    // Each session's supervision shuts its CLI down (ordered), all at once.
    stop_all();
    let after_kill = opts.killed_report_timeout;
    let waits = running.iter().map(|h| async move {
        match tokio::time::timeout_at(deadline, h.outcome()).await {
            Ok(o) => (Some(o), false),
            Err(_) => {
                if let Some(c) = h.current_client() {
                    c.session().kill(ShutdownCause::HostDrain);
                    // The extensions' own waits (a stalled store's flush)
                    // end too: the deadline bounds the whole shutdown.
                    c.hurry();
                }
                (
                    tokio::time::timeout(after_kill, h.outcome()).await.ok(),
                    true,
                )
            }
        }
    });
    // Warm spares: the same ordered shutdown, the same deadline.
    let spare_waits = spares.iter().map(|c| async move {
        match tokio::time::timeout_at(deadline, c.shutdown_with(ShutdownCause::HostDrain)).await {
            Ok(r) => Some(r.runtime),
            Err(_) => {
                c.session().kill(ShutdownCause::HostDrain);
                c.hurry();
                tokio::time::timeout(after_kill, c.session().closed())
                    .await
                    .ok()
            }
        }
    });
    let (results, spare_reports) = futures::join!(join_all(waits), join_all(spare_waits));
    let mut report = DrainReport {
        elapsed: Duration::ZERO,
        deadline: opts.deadline,
        running: running.len(),
        hibernated,
        spares: spares.len(),
        spares_ended: 0,
        cancelled_queued,
        ended_in_time: 0,
        killed_at_deadline: 0,
        unresolved: 0,
        escalations_term: 0,
        escalations_kill: 0,
        by_cause: BTreeMap::new(),
        outcomes: Vec::with_capacity(results.len()),
    };
    for (outcome, killed) in results {
        if killed {
            report.killed_at_deadline += 1;
        } else {
            report.ended_in_time += 1;
        }
        let Some(outcome) = outcome else {
            report.unresolved += 1;
            continue;
        };
        match outcome.report.as_ref().map(|r| r.escalation) {
            Some(Escalation::Term) => report.escalations_term += 1,
            Some(Escalation::Kill) => report.escalations_kill += 1,
            _ => {}
        }
        let cause = outcome
            .failure
            .as_ref()
            .map_or("completed", |f| f.cause_name());
        *report.by_cause.entry(cause.to_owned()).or_default() += 1;
        report.outcomes.push(outcome);
    }
    for r in spare_reports {
        let Some(r) = r else {
            report.unresolved += 1;
            continue;
        };
        report.spares_ended += 1;
        match r.escalation {
            Escalation::Term => report.escalations_term += 1,
            Escalation::Kill => report.escalations_kill += 1,
            _ => {}
        }
    }
    report.elapsed = start.elapsed();
    report
}
