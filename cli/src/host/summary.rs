//! The end-of-run summary of `claude-agent host` (and of `submit --wait`):
//! completed, failed by cause, turn latency percentiles, escalations,
//! restarts.

use std::collections::BTreeMap;
use std::time::Duration;

#[cfg(feature = "nats")]
use claude_agent::fleet::JobOutcome;
use claude_agent::host::SessionOutcome;
use claude_agent::runtime::Escalation;
use serde_json::{Value, json};

#[derive(Debug, Default)]
pub(crate) struct Summary {
    pub(crate) jobs: usize,
    pub(crate) completed: usize,
    pub(crate) failed_by_cause: BTreeMap<String, usize>,
    latencies: Vec<Duration>,
    pub(crate) escalations_term: usize,
    pub(crate) escalations_kill: usize,
    pub(crate) restarts: u64,
    pub(crate) elapsed: Duration,
    pub(crate) drained: bool,
    /// One record per failed job: its line, cause, message, exit, stderr.
    failures: Vec<Value>,
    /// Stdout lines the sessions skipped (not JSON, malformed, too long).
    pub(crate) skipped_lines: u64,
    /// Transcript entries the session store mirror kept and did not keep
    /// (`None` without a store).
    mirror: Option<(u64, u64)>,
    /// `submit --wait` only: outcomes recorded more than once for one job.
    pub(crate) duplicates: Option<usize>,
    /// `host --warm-spares` only: jobs a warm spare served.
    pub(crate) spares_used: Option<u64>,
    /// `submit --wait` only: jobs with no outcome yet (still queued or
    /// running when the wait ended), each `{line, job_id}`.
    pending: Option<Vec<Value>>,
}

/// How many lines of the jobs file one cause's summary line names.
const LINES_SHOWN: usize = 5;

impl Summary {
    /// Counts an outcome; `job` is the job's line in the file and its `id`.
    pub(crate) fn add(&mut self, outcome: &SessionOutcome, job: Option<&(usize, Option<Value>)>) {
        self.jobs += 1;
        match &outcome.failure {
            None => self.completed += 1,
            Some(f) => {
                *self
                    .failed_by_cause
                    .entry(f.cause_name().into())
                    .or_default() += 1;
                self.failures.push(json!({
                    "line": job.map(|j| j.0),
                    "job_id": job.and_then(|j| j.1.clone()),
                    "failure": f.cause_name(),
                    "message": crate::store::with_causes(f),
                    "exit": super::failure::exit(f),
                    "stderr_tail": super::failure::stderr_tail(f),
                }));
            }
        }
        if let Some(l) = outcome.turn_latency {
            self.latencies.push(l);
        }
        match outcome.report.as_ref().map(|r| r.escalation) {
            Some(Escalation::Term) => self.escalations_term += 1,
            Some(Escalation::Kill) => self.escalations_kill += 1,
            _ => {}
        }
        self.restarts += u64::from(outcome.restarts);
        if let Some(report) = &outcome.report {
            if let Some(persisted) = report.mirror_persisted {
                let (kept, lost) = self.mirror.get_or_insert((0, 0));
                *kept += persisted;
                *lost += report.mirror_unpersisted.unwrap_or(0);
            }
        }
    }

    /// Counts an outcome from the fleet's results stream; `line` is the
    /// job's line in the submitted file.
    #[cfg(feature = "nats")]
    pub(crate) fn add_fleet(&mut self, outcome: &JobOutcome, line: Option<usize>) {
        self.jobs += 1;
        if outcome.completed {
            self.completed += 1;
        } else {
            let cause = outcome.cause.clone().unwrap_or_else(|| "failed".into());
            *self.failed_by_cause.entry(cause.clone()).or_default() += 1;
            let exit = (outcome.exit_code.is_some() || outcome.exit_signal.is_some())
                .then(|| json!({"code": outcome.exit_code, "signal": outcome.exit_signal}));
            self.failures.push(json!({
                "line": line,
                "job_id": outcome.job_id,
                "failure": cause,
                "message": outcome.message,
                "exit": exit,
                "stderr_tail": outcome.stderr_tail,
                "dead_lettered": outcome.dead_lettered,
            }));
        }
        if let Some(ms) = outcome.turn_latency_ms {
            self.latencies
                .push(Duration::from_secs_f64(ms.max(0.0) / 1e3));
        }
        match outcome.escalation.as_deref() {
            Some("term") => self.escalations_term += 1,
            Some("kill") => self.escalations_kill += 1,
            _ => {}
        }
        if let Some(persisted) = outcome.mirror_persisted {
            let (kept, lost) = self.mirror.get_or_insert((0, 0));
            *kept += persisted;
            *lost += outcome.mirror_unpersisted.unwrap_or(0);
        }
    }

    /// The summary of `submit --wait`: it counts duplicates and pending jobs.
    #[cfg(feature = "nats")]
    pub(crate) fn for_submit() -> Self {
        Self {
            duplicates: Some(0),
            pending: Some(Vec::new()),
            ..Self::default()
        }
    }

    /// A job with no outcome yet when `submit --wait` stopped waiting: not
    /// failed, still queued or running.
    #[cfg(feature = "nats")]
    pub(crate) fn add_pending(&mut self, job_id: &str, line: usize) {
        self.jobs += 1;
        self.pending
            .get_or_insert_with(Vec::new)
            .push(json!({"line": line, "job_id": job_id}));
    }

    /// Jobs [`add_pending`](Self::add_pending) counted.
    pub(crate) fn pending(&self) -> usize {
        self.pending.as_ref().map_or(0, Vec::len)
    }

    pub(crate) fn failed(&self) -> usize {
        self.failed_by_cause.values().sum()
    }

    /// The `q`-quantile (nearest rank) of the turn latencies.
    pub(crate) fn latency(&mut self, q: f64) -> Option<Duration> {
        if self.latencies.is_empty() {
            return None;
        }
        self.latencies.sort_unstable();
        let rank = (q * self.latencies.len() as f64).ceil() as usize;
        Some(self.latencies[rank.clamp(1, self.latencies.len()) - 1])
    }

    pub(crate) fn json_line(&mut self) -> Value {
        let ms = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1e3);
        let mut line = json!({
            "kind": "summary",
            "jobs": self.jobs,
            "completed": self.completed,
            "failed": self.failed(),
            "failed_by_cause": self.failed_by_cause,
            "turn_latency_ms": {
                "p50": ms(self.latency(0.5)),
                "p99": ms(self.latency(0.99)),
                "max": ms(self.latency(1.0)),
            },
            "escalations": {"term": self.escalations_term, "kill": self.escalations_kill},
            "restarts": self.restarts,
            "elapsed_ms": self.elapsed.as_secs_f64() * 1e3,
            "drained": self.drained,
            "failures": self.failures,
            "skipped_lines": self.skipped_lines,
            "mirror": self.mirror.map(|(persisted, unpersisted)| json!({
                "persisted": persisted, "unpersisted": unpersisted,
            })),
        });
        if let (Some(d), Some(o)) = (self.duplicates, line.as_object_mut()) {
            o.insert("duplicates".into(), json!(d));
        }
        if let (Some(n), Some(o)) = (self.spares_used, line.as_object_mut()) {
            o.insert("spares_used".into(), json!(n));
        }
        if let (Some(p), Some(o)) = (&self.pending, line.as_object_mut()) {
            o.insert("pending".into(), json!(p.len()));
            o.insert("pending_jobs".into(), json!(p));
        }
        line
    }

    /// One line per cause, the most frequent first: `failed, crashed: 12,
    /// lines 3, 5, 8, 9, 11 and 7 more: the CLI crashed: exit code 7` (the
    /// most frequent message of that cause).
    fn failure_groups(&self) -> Vec<String> {
        let mut causes: Vec<(&String, &usize)> = self.failed_by_cause.iter().collect();
        causes.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
        causes
            .into_iter()
            .map(|(cause, n)| {
                let of_cause: Vec<&Value> = self
                    .failures
                    .iter()
                    .filter(|f| f["failure"].as_str() == Some(cause.as_str()))
                    .collect();
                let mut lines: Vec<u64> =
                    of_cause.iter().filter_map(|f| f["line"].as_u64()).collect();
                lines.sort_unstable();
                let mut text = format!("failed, {cause}: {n}");
                if !lines.is_empty() {
                    let shown: Vec<String> =
                        lines.iter().take(LINES_SHOWN).map(u64::to_string).collect();
                    let word = if lines.len() == 1 { "line" } else { "lines" };
                    text.push_str(&format!(", {word} {}", shown.join(", ")));
                    if lines.len() > LINES_SHOWN {
                        text.push_str(&format!(" and {} more", lines.len() - LINES_SHOWN));
                    }
                }
                let mut messages: BTreeMap<&str, usize> = BTreeMap::new();
                for f in &of_cause {
                    if let Some(m) = f["message"].as_str() {
                        *messages.entry(m).or_default() += 1;
                    }
                }
                let top = messages
                    .iter()
                    .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)));
                if let Some((message, _)) = top {
                    text.push_str(&format!(": {message}"));
                    match messages.len() - 1 {
                        0 => {}
                        1 => text.push_str(" (and 1 other message; --json lists all)"),
                        k => text.push_str(&format!(" (and {k} other messages; --json lists all)")),
                    }
                }
                text
            })
            .collect()
    }

    pub(crate) fn print_human(&mut self) {
        let fmt = |d: Option<Duration>| {
            d.map_or("-".to_owned(), |d| {
                format!("{:.1} ms", d.as_secs_f64() * 1e3)
            })
        };
        let pending = match self.pending() {
            0 => String::new(),
            n => format!(", {n} pending"),
        };
        println!(
            "{} jobs in {:.2} s: {} completed, {} failed{pending}{}",
            self.jobs,
            self.elapsed.as_secs_f64(),
            self.completed,
            self.failed(),
            if self.drained {
                " (drained by a signal)"
            } else {
                ""
            }
        );
        for line in self.failure_groups() {
            println!("  {line}");
        }
        if let Some(n) = self.spares_used {
            println!("  served by a warm spare: {n}");
        }
        let (p50, p99) = (self.latency(0.5), self.latency(0.99));
        println!("turn latency: p50 {}, p99 {}", fmt(p50), fmt(p99));
        println!(
            "escalations: {} SIGTERM, {} SIGKILL; restarts: {}; skipped stdout lines: {}",
            self.escalations_term, self.escalations_kill, self.restarts, self.skipped_lines
        );
        if let Some((persisted, unpersisted)) = self.mirror {
            println!("session store: {persisted} transcript entries persisted, {unpersisted} not");
        }
        if let Some(d) = self.duplicates {
            println!("outcomes recorded more than once: {d}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failures_group_by_cause_most_frequent_first_with_sorted_lines() {
        let mut s = Summary::default();
        let mut fail = |cause: &str, line: usize, message: &str| {
            *s.failed_by_cause.entry(cause.into()).or_default() += 1;
            s.failures
                .push(json!({"line": line, "failure": cause, "message": message}));
        };
        fail("turn", 4, "the turn failed: x");
        for line in [9, 2, 7, 3, 11, 5, 8] {
            fail("crashed", line, "the CLI crashed: exit code 7");
        }
        fail("crashed", 1, "the CLI crashed: exit code 1");
        assert_eq!(
            s.failure_groups(),
            [
                "failed, crashed: 8, lines 1, 2, 3, 5, 7 and 3 more: the CLI crashed: exit code 7 \
                 (and 1 other message; --json lists all)",
                "failed, turn: 1, line 4: the turn failed: x",
            ]
        );
    }

    #[test]
    fn nearest_rank_percentiles() {
        let mut s = Summary::default();
        assert_eq!(s.latency(0.5), None);
        s.latencies = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(s.latency(0.5), Some(Duration::from_millis(50)));
        assert_eq!(s.latency(0.99), Some(Duration::from_millis(99)));
        assert_eq!(s.latency(1.0), Some(Duration::from_millis(100)));
    }
}
