//! Shutdown policy: causes, the escalation ladder, and the report.
//!
//! The ladder (docs/DESIGN.md, "Ordered shutdown", step 5) is written against the
//! small [`Escalator`] seam so it is unit-tested without processes; the
//! sequence that drives it lives in `sequence.rs`.

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
    /// A host hibernated the idle session (it may be resumed later).
    Hibernate,
}

impl std::fmt::Display for ShutdownCause {
    /// A sentence for people: no Rust `Debug` in user-facing text.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Requested => f.write_str("shutdown requested"),
            Self::HandleDropped => f.write_str("the last session handle was dropped"),
            Self::StartAbandoned => f.write_str("the start was abandoned"),
            Self::InitializeFailed { reason } => write!(f, "initialize failed: {reason}"),
            Self::CliExited { exit: Some(exit) } => write!(f, "the CLI exited ({exit})"),
            Self::CliExited { exit: None } => f.write_str("the CLI exited"),
            Self::StdoutClosed => f.write_str("the CLI closed its stdout"),
            Self::Fatal { reason } => write!(f, "internal fault: {reason}"),
            Self::HostDrain => f.write_str("the host drained its sessions"),
            Self::IdleTimeout => f.write_str("the idle watchdog fired"),
            Self::Hibernate => f.write_str("the host hibernated the idle session"),
        }
    }
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

/// Why a signal was sent (see [`EscalationStep`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum StepReason {
    /// The CLI had not exited `grace` after stdin EOF.
    GraceElapsed,
    /// The CLI had not exited `term_grace` after SIGTERM.
    TermGraceElapsed,
    /// [`Session::hurry`](crate::Session::hurry) cut the current wait short
    /// (a second Ctrl-C, say).
    Hurried,
    /// [`Session::kill`](crate::Session::kill) asked for SIGKILL at once (a
    /// host's drain deadline, say).
    KillRequested,
    /// The CLI had exited; SIGKILL went to what it left in its group.
    Leftovers,
    /// The supervisor was killed or panicked; the group was killed as the
    /// session's actors were dropped.
    SupervisorLost,
    /// The transport actor was killed or panicked before the CLI exited;
    /// dropping its channel killed the group (or aborted the channel).
    TransportLost,
}

/// One signal the shutdown sent, when, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct EscalationStep {
    /// `Term` for SIGTERM to the group; `Kill` for SIGKILL (or an abort of
    /// a channel without signals).
    pub to: Escalation,
    /// When, from the start of the shutdown.
    #[serde(rename = "at_ms", serialize_with = "ms")]
    pub at: Duration,
    /// Why.
    pub why: StepReason,
}

impl Escalation {
    /// How far a shutdown escalated, from what it sent and how the CLI
    /// ended, so the two can never disagree: the highest step sent, except
    /// that a SIGKILL the CLI did not die of (it exited, or died of SIGTERM,
    /// before the KILL landed) does not count. Steps for leftovers after the
    /// CLI exited never count.
    pub fn from_steps(steps: &[EscalationStep], exit: Option<ExitInfo>) -> Escalation {
        let sent = |to| {
            steps
                .iter()
                .any(|s| s.to == to && s.why != StepReason::Leftovers)
        };
        let (term, kill) = (sent(Escalation::Term), sent(Escalation::Kill));
        // Unknown status (no exit, or an aborted channel's status-less
        // end) is taken as the kill's doing.
        let died_of_kill = exit.is_none_or(|e| match (e.code, e.signal) {
            (None, None) => true,
            (_, Some(sig)) => sig == crate::process::Signal::Kill.number(),
            (Some(_), None) => false,
        });
        if kill && died_of_kill {
            Escalation::Kill
        } else if term {
            Escalation::Term
        } else {
            Escalation::None
        }
    }
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
    /// How far the shutdown escalated; derived from `steps` and `exit` by
    /// [`Escalation::from_steps`].
    pub escalation: Escalation,
    /// Every signal the shutdown sent, in order.
    pub steps: Vec<EscalationStep>,
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
            steps: Vec::new(),
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LadderOutcome {
    pub(crate) exit: Option<ExitInfo>,
    /// True when the far end was seen to end.
    pub(crate) ended: bool,
    /// Every step sent, `at` measured from the ladder's start.
    pub(crate) steps: Vec<EscalationStep>,
}

impl LadderOutcome {
    fn sent(&self, to: Escalation) -> Option<Duration> {
        self.steps.iter().find(|s| s.to == to).map(|s| s.at)
    }
    pub(crate) fn term_sent(&self) -> Option<Duration> {
        self.sent(Escalation::Term)
    }
    pub(crate) fn kill_sent(&self) -> Option<Duration> {
        self.sent(Escalation::Kill)
    }
}

/// Requests to cut the ladder short, sent while it runs (or before).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Urge {
    /// Each one ends the current wait (grace, then term_grace) early.
    pub(crate) hurries: u32,
    /// SIGKILL now, skipping SIGTERM.
    pub(crate) kill: bool,
}

/// How one wait of the ladder ended.
enum Waited {
    Exited(Option<ExitInfo>),
    Elapsed,
    Hurried,
    Kill,
}

/// Waits up to `limit` for the far end to end, or for an urge beyond the
/// `consumed` hurries already acted on.
async fn wait_step<E: Escalator>(
    far: &mut E,
    limit: Duration,
    urge: &mut tokio::sync::watch::Receiver<Urge>,
    consumed: u32,
) -> Waited {
    let urged = async {
        match urge
            .wait_for(|u| u.kill || u.hurries > consumed)
            .await
            .map(|u| *u)
        {
            Ok(u) if u.kill => Waited::Kill,
            Ok(_) => Waited::Hurried,
            // Nobody can urge any more: just wait.
            Err(_) => futures::future::pending().await,
        }
    };
    tokio::select! {
        biased;
        exit = far.exited() => Waited::Exited(exit),
        why = urged => why,
        () = tokio::time::sleep(limit) => Waited::Elapsed,
    }
}

/// The ladder's waits: the CLI's graces (`SessionConfig::grace`,
/// `term_grace`) and how long the kill is awaited
/// (`ShutdownTimeouts::after_kill`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LadderWaits {
    pub(crate) grace: Duration,
    pub(crate) term_grace: Duration,
    pub(crate) after_kill: Duration,
}

/// Waits `grace` for the far end to end, then terminates it (signals only
/// where supported), waits `term_grace`, then kills it and waits at most
/// `after_kill` for the end. An urge cuts the current wait short
/// (`hurries`) or goes straight to the kill (`kill`). `on_step` is told of
/// each escalation as it happens.
pub(crate) async fn run_ladder<E: Escalator>(
    far: &mut E,
    waits: LadderWaits,
    mut urge: tokio::sync::watch::Receiver<Urge>,
    mut on_step: impl FnMut(Escalation),
) -> LadderOutcome {
    let start = tokio::time::Instant::now();
    let mut out = LadderOutcome {
        exit: None,
        ended: false,
        steps: Vec::new(),
    };
    let mut step = |out: &mut LadderOutcome, to, why| {
        out.steps.push(EscalationStep {
            to,
            at: start.elapsed(),
            why,
        });
        on_step(to);
    };
    let LadderWaits {
        grace,
        term_grace,
        after_kill,
    } = waits;
    let mut kill_why = StepReason::TermGraceElapsed;
    match wait_step(far, grace, &mut urge, 0).await {
        Waited::Exited(exit) => {
            out.exit = exit;
            out.ended = true;
            return out;
        }
        Waited::Kill => kill_why = StepReason::KillRequested,
        waited if far.supports_signals() => {
            let why = match waited {
                Waited::Hurried => StepReason::Hurried,
                _ => StepReason::GraceElapsed,
            };
            far.terminate();
            step(&mut out, Escalation::Term, why);
            match wait_step(far, term_grace, &mut urge, 1).await {
                Waited::Exited(exit) => {
                    out.exit = exit;
                    out.ended = true;
                    return out;
                }
                Waited::Kill => kill_why = StepReason::KillRequested,
                Waited::Hurried => kill_why = StepReason::Hurried,
                Waited::Elapsed => {}
            }
        }
        // No signals (an in-memory channel): after grace, the abort.
        Waited::Hurried => kill_why = StepReason::Hurried,
        Waited::Elapsed => kill_why = StepReason::GraceElapsed,
    }
    far.kill();
    step(&mut out, Escalation::Kill, kill_why);
    // A process in uninterruptible sleep may outlive the kill: past
    // `after_kill` the ladder gives up (its group is killed again on drop).
    if let Ok(exit) = tokio::time::timeout(after_kill, far.exited()).await {
        out.exit = exit;
        out.ended = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::shutdown::timeouts::ShutdownTimeouts;

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
        let (_keep, urge) = tokio::sync::watch::channel(Urge::default());
        ladder_urged(signals, exits_after, MS, urge).await
    }

    async fn ladder_urged(
        signals: bool,
        exits_after: usize,
        grace: Duration,
        urge: tokio::sync::watch::Receiver<Urge>,
    ) -> (LadderOutcome, Vec<&'static str>) {
        let mut m = Mock {
            signals,
            exits_after,
            steps: vec![],
        };
        let mut seen = vec![];
        let waits = LadderWaits {
            grace,
            term_grace: grace,
            after_kill: ShutdownTimeouts::default().after_kill,
        };
        let out = run_ladder(&mut m, waits, urge, |e| seen.push(e)).await;
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
        let recorded: Vec<Escalation> = out.steps.iter().map(|s| s.to).collect();
        assert_eq!(recorded, expected, "the steps record what was sent");
        (out, m.steps)
    }

    fn escalation(out: &LadderOutcome) -> Escalation {
        Escalation::from_steps(&out.steps, out.exit)
    }

    #[tokio::test]
    async fn a_far_end_surviving_the_kill_is_given_up_after_the_configured_after_kill() {
        let (_keep, urge) = tokio::sync::watch::channel(Urge::default());
        let mut m = Mock {
            signals: true,
            exits_after: usize::MAX,
            steps: vec![],
        };
        let after_kill = Duration::from_millis(30);
        let waits = LadderWaits {
            grace: MS,
            term_grace: MS,
            after_kill,
        };
        let start = std::time::Instant::now();
        let out = run_ladder(&mut m, waits, urge, |_| {}).await;
        let took = start.elapsed();
        assert!(!out.ended && out.exit.is_none());
        assert_eq!(m.steps, ["term", "kill"]);
        assert!(took >= MS * 2 + after_kill, "{took:?}");
        // Not the default's 5 s.
        assert!(took < ShutdownTimeouts::default().after_kill, "{took:?}");
    }

    #[tokio::test]
    async fn exits_within_grace_sends_nothing() {
        let (out, steps) = ladder(true, 0).await;
        assert_eq!(escalation(&out), Escalation::None);
        assert!(out.ended && steps.is_empty());
        assert_eq!(out.term_sent(), None);
    }

    #[tokio::test]
    async fn term_is_enough() {
        let (out, steps) = ladder(true, 1).await;
        assert_eq!(escalation(&out), Escalation::Term);
        assert_eq!(steps, ["term"]);
        assert!(out.ended && out.term_sent().is_some() && out.kill_sent().is_none());
        assert_eq!(out.steps[0].why, StepReason::GraceElapsed);
    }

    #[tokio::test]
    async fn ignores_term_gets_killed() {
        let (out, steps) = ladder(true, 2).await;
        // The mock exits with a code, not by SIGKILL: the KILL did not end
        // it, so the escalation that did is TERM.
        assert_eq!(escalation(&out), Escalation::Term);
        assert_eq!(steps, ["term", "kill"]);
        assert_eq!(out.steps[1].why, StepReason::TermGraceElapsed);
        assert_eq!(out.exit.and_then(|e| e.code), Some(2));
    }

    #[tokio::test]
    async fn no_signals_means_close_then_abort() {
        let (out, steps) = ladder(false, 1).await;
        assert_eq!(out.steps[0].to, Escalation::Kill);
        assert_eq!(steps, ["kill"], "no SIGTERM step without signal support");
        assert!(out.ended);
    }

    const LONG: Duration = Duration::from_secs(3600);

    #[tokio::test]
    async fn a_hurry_during_grace_sends_sigterm_at_once() {
        let (tx, urge) = tokio::sync::watch::channel(Urge::default());
        tx.send_modify(|u| u.hurries += 1);
        let (out, steps) = ladder_urged(true, 1, LONG, urge).await;
        assert_eq!(steps, ["term"]);
        assert_eq!(out.steps[0].why, StepReason::Hurried);
        assert!(out.steps[0].at < LONG);
    }

    #[tokio::test]
    async fn two_hurries_skip_both_graces() {
        let (tx, urge) = tokio::sync::watch::channel(Urge::default());
        tx.send_modify(|u| u.hurries += 2);
        let (out, steps) = ladder_urged(true, 2, LONG, urge).await;
        assert_eq!(steps, ["term", "kill"]);
        assert!(out.steps.iter().all(|s| s.why == StepReason::Hurried));
    }

    #[tokio::test]
    async fn a_kill_urge_skips_sigterm() {
        let (tx, urge) = tokio::sync::watch::channel(Urge::default());
        tx.send_modify(|u| u.kill = true);
        let (out, steps) = ladder_urged(true, 1, LONG, urge).await;
        assert_eq!(steps, ["kill"]);
        assert_eq!(out.steps[0].why, StepReason::KillRequested);
    }

    fn step(to: Escalation, why: StepReason) -> EscalationStep {
        EscalationStep {
            to,
            at: Duration::ZERO,
            why,
        }
    }

    #[test]
    fn escalation_names_what_ended_the_cli() {
        use crate::process::Signal;
        let died_of = |s: Signal| {
            Some(ExitInfo {
                code: None,
                signal: Some(s.number()),
            })
        };
        let term = step(Escalation::Term, StepReason::GraceElapsed);
        let kill = step(Escalation::Kill, StepReason::TermGraceElapsed);
        let leftovers = step(Escalation::Kill, StepReason::Leftovers);
        // TERM and KILL sent at once (zero graces), the CLI died of TERM.
        assert_eq!(
            Escalation::from_steps(&[term, kill], died_of(Signal::Term)),
            Escalation::Term
        );
        assert_eq!(
            Escalation::from_steps(&[term, kill], died_of(Signal::Kill)),
            Escalation::Kill
        );
        // Killed, status unknown (the kill wait ran out).
        assert_eq!(
            Escalation::from_steps(&[term, kill], None),
            Escalation::Kill
        );
        // Leftovers after a clean exit are not an escalation.
        let clean = Some(ExitInfo {
            code: Some(0),
            signal: None,
        });
        assert_eq!(
            Escalation::from_steps(&[leftovers], clean),
            Escalation::None
        );
        assert_eq!(Escalation::from_steps(&[], clean), Escalation::None);
    }
}
