//! Shutdown policy: causes, the escalation ladder, and the report.
//!
//! The ladder (docs/DESIGN.md, "Ordered shutdown", step 5) is written against the
//! small [`Escalator`] seam so it is unit-tested without processes; the
//! sequence that drives it lives in `stop.rs`.

use std::future::Future;
use std::time::Duration;

use serde::Serialize;

use crate::process::ExitInfo;

/// Why a session shut down. ractor's string stop reasons never leak out:
/// every path is mapped to one of these at the boundary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum ShutdownCause {
    /// `Session::shutdown()` was called.
    Requested,
    /// The last `Session` handle was dropped.
    HandleDropped,
    /// `Session::start` was dropped before it finished.
    StartAbandoned,
    /// `initialize` failed (timeout, error reply, or exit).
    InitializeFailed {
        /// What went wrong.
        reason: String,
    },
    /// The CLI exited on its own.
    CliExited {
        /// How it ended, when known.
        exit: Option<ExitInfo>,
    },
    /// The CLI closed its stdout but kept running.
    StdoutClosed,
    /// An internal fault (an actor failed, reading stdout failed).
    Fatal {
        /// What failed.
        reason: String,
    },
    /// A host is draining its sessions.
    HostDrain,
    /// The idle watchdog's `Shutdown` action fired.
    IdleTimeout,
}

/// How far the shutdown had to escalate to end the CLI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Escalation {
    /// The CLI exited after EOF within `grace` (or had already exited).
    None,
    /// SIGTERM to the process group was needed.
    Term,
    /// SIGKILL to the group (or an abort of a non-process channel) was needed.
    Kill,
}

/// When each phase ended, measured from the start of the shutdown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ShutdownTimings {
    /// Pending requests failed and handlers cancelled.
    #[serde(rename = "pending_failed_ms", serialize_with = "ms")]
    pub pending_failed: Duration,
    /// EOF sent on stdin (requested; the write may complete later).
    #[serde(rename = "stdin_closed_ms", serialize_with = "ms")]
    pub stdin_closed: Duration,
    /// SIGTERM sent, if it was.
    #[serde(rename = "term_sent_ms", serialize_with = "opt_ms")]
    pub term_sent: Option<Duration>,
    /// SIGKILL / abort sent, if it was.
    #[serde(rename = "kill_sent_ms", serialize_with = "opt_ms")]
    pub kill_sent: Option<Duration>,
    /// The CLI was seen to exit and was reaped.
    #[serde(rename = "exited_ms", serialize_with = "opt_ms")]
    pub exited: Option<Duration>,
    /// stdout reached EOF and stderr drained (or their bound passed).
    #[serde(rename = "drained_ms", serialize_with = "ms")]
    pub drained: Duration,
    /// Actors stopped; the report is ready.
    #[serde(rename = "total_ms", serialize_with = "ms")]
    pub total: Duration,
}

/// Durations in reports read as milliseconds (fractional), not serde's
/// `{secs, nanos}`.
fn ms<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

fn opt_ms<S: serde::Serializer>(d: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => ms(d, s),
        None => s.serialize_none(),
    }
}

/// What an ordered shutdown did. Every caller of `shutdown()` / `closed()`
/// gets the same report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// Why the session ended.
    pub cause: ShutdownCause,
    /// How the CLI ended, when known.
    pub exit: Option<ExitInfo>,
    /// How far the shutdown escalated.
    pub escalation: Escalation,
    /// Phase timings.
    pub timings: ShutdownTimings,
    /// Stdout frames read after EOF was sent on stdin (nothing lost).
    pub frames_after_eof: u64,
    /// Inbound handlers cancelled by the shutdown.
    pub handlers_cancelled: usize,
    /// Our control requests failed by the shutdown.
    pub requests_failed: usize,
    /// The last lines of the CLI's stderr.
    pub stderr_tail: Vec<String>,
}

impl ShutdownReport {
    /// A report with this cause, exit and escalation, zero timings and
    /// counts, and no stderr: what a test or a replayed transcript needs.
    /// (The runtime fills in every field; the struct may grow, so it cannot
    /// be built with a literal outside this crate.)
    pub fn new(cause: ShutdownCause, exit: Option<ExitInfo>, escalation: Escalation) -> Self {
        Self {
            cause,
            exit,
            escalation,
            timings: ShutdownTimings::default(),
            frames_after_eof: 0,
            handlers_cancelled: 0,
            requests_failed: 0,
            stderr_tail: Vec::new(),
        }
    }
}

/// The far end as the escalation ladder sees it.
pub(crate) trait Escalator {
    fn supports_signals(&self) -> bool;
    fn terminate(&mut self);
    fn kill(&mut self);
    /// Resolves when the far end ended (`None`: status unknown). Cancel-safe.
    fn exited(&mut self) -> impl Future<Output = Option<ExitInfo>> + Send;
}

/// What the ladder reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LadderOutcome {
    pub(crate) escalation: Escalation,
    pub(crate) exit: Option<ExitInfo>,
    /// True when the far end was seen to end.
    pub(crate) ended: bool,
    pub(crate) term_sent: Option<Duration>,
    pub(crate) kill_sent: Option<Duration>,
}

/// How long to wait after SIGKILL before giving up (a process in
/// uninterruptible sleep); the group is also killed on drop.
pub(crate) const AFTER_KILL_WAIT: Duration = Duration::from_secs(5);

/// Waits `grace` for the far end to end, then terminates it (signals only
/// where supported), waits `term_grace`, then kills it. `on_step` is told of
/// each escalation as it happens.
pub(crate) async fn run_ladder<E: Escalator>(
    far: &mut E,
    grace: Duration,
    term_grace: Duration,
    mut on_step: impl FnMut(Escalation),
) -> LadderOutcome {
    let start = tokio::time::Instant::now();
    let mut out = LadderOutcome {
        escalation: Escalation::None,
        exit: None,
        ended: false,
        term_sent: None,
        kill_sent: None,
    };
    if let Ok(exit) = tokio::time::timeout(grace, far.exited()).await {
        out.exit = exit;
        out.ended = true;
        return out;
    }
    if far.supports_signals() {
        far.terminate();
        out.escalation = Escalation::Term;
        out.term_sent = Some(start.elapsed());
        on_step(Escalation::Term);
        if let Ok(exit) = tokio::time::timeout(term_grace, far.exited()).await {
            out.exit = exit;
            out.ended = true;
            return out;
        }
    }
    far.kill();
    out.escalation = Escalation::Kill;
    out.kill_sent = Some(start.elapsed());
    on_step(Escalation::Kill);
    if let Ok(exit) = tokio::time::timeout(AFTER_KILL_WAIT, far.exited()).await {
        out.exit = exit;
        out.ended = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A far end that exits after receiving `exits_after` escalation steps
    /// (0 = exits on EOF alone).
    struct Mock {
        signals: bool,
        exits_after: usize,
        steps: Vec<&'static str>,
    }

    impl Escalator for Mock {
        fn supports_signals(&self) -> bool {
            self.signals
        }
        fn terminate(&mut self) {
            self.steps.push("term");
        }
        fn kill(&mut self) {
            self.steps.push("kill");
        }
        fn exited(&mut self) -> impl Future<Output = Option<ExitInfo>> + Send {
            let done = self.steps.len() >= self.exits_after;
            let n = self.steps.len() as i32;
            async move {
                if done {
                    Some(ExitInfo {
                        code: Some(n),
                        signal: None,
                    })
                } else {
                    futures::future::pending().await
                }
            }
        }
    }

    const MS: Duration = Duration::from_millis(20);

    async fn ladder(signals: bool, exits_after: usize) -> (LadderOutcome, Vec<&'static str>) {
        let mut m = Mock {
            signals,
            exits_after,
            steps: vec![],
        };
        let mut seen = vec![];
        let out = run_ladder(&mut m, MS, MS, |e| seen.push(e)).await;
        let expected: Vec<Escalation> = m
            .steps
            .iter()
            .map(|s| {
                if *s == "term" {
                    Escalation::Term
                } else {
                    Escalation::Kill
                }
            })
            .collect();
        assert_eq!(seen, expected, "on_step mirrors what was sent");
        (out, m.steps)
    }

    #[tokio::test]
    async fn exits_within_grace_sends_nothing() {
        let (out, steps) = ladder(true, 0).await;
        assert_eq!(out.escalation, Escalation::None);
        assert!(out.ended && steps.is_empty());
        assert_eq!(out.term_sent, None);
    }

    #[tokio::test]
    async fn term_is_enough() {
        let (out, steps) = ladder(true, 1).await;
        assert_eq!(out.escalation, Escalation::Term);
        assert_eq!(steps, ["term"]);
        assert!(out.ended && out.term_sent.is_some() && out.kill_sent.is_none());
    }

    #[tokio::test]
    async fn ignores_term_gets_killed() {
        let (out, steps) = ladder(true, 2).await;
        assert_eq!(out.escalation, Escalation::Kill);
        assert_eq!(steps, ["term", "kill"]);
        assert_eq!(out.exit.and_then(|e| e.code), Some(2));
    }

    #[tokio::test]
    async fn no_signals_means_close_then_abort() {
        let (out, steps) = ladder(false, 1).await;
        assert_eq!(out.escalation, Escalation::Kill);
        assert_eq!(steps, ["kill"], "no SIGTERM step without signal support");
        assert!(out.ended);
    }
}
