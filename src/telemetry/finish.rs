//! The end of a session's trace: final counters, the shutdown's cause and
//! escalation, open turns, the session span; whichever path gets there
//! first (`Client::shutdown`, the last client dropped, the event watcher).

use claude_agent_actors::{Escalation, SessionStats, ShutdownCause, ShutdownReport};
use opentelemetry::KeyValue;
use opentelemetry::trace::{Status, TraceContextExt};

use super::spans::SessionTrace;

impl SessionTrace {
    /// The last client handle is going away: records the counters now (they
    /// are out of reach afterwards) and finishes if the session has ended;
    /// otherwise the event watcher finishes when the shutdown completes.
    pub(crate) fn client_dropped(&self, stats: SessionStats, report: Option<ShutdownReport>) {
        if report.is_some() {
            self.finish_with(report, Some(stats));
        } else {
            let mut st = self.state();
            self.record_stats(&mut st, stats);
        }
    }

    /// Ends the session span if the session has ended (from the probe).
    pub(crate) fn finish_if_ended(&self) {
        if let Some((Some(report), stats)) = self.probe_now() {
            self.finish_with(Some(report), Some(stats));
        }
    }

    /// The session ended: final counters, escalation, open turns, the
    /// session span. Idempotent; missing data is read from the probe, then
    /// from lifecycle events.
    pub(crate) fn finish_with(&self, report: Option<ShutdownReport>, stats: Option<SessionStats>) {
        let probed = if report.is_none() || stats.is_none() {
            self.probe_now()
        } else {
            None
        };
        let (probed_report, probed_stats) = probed.map_or((None, None), |(r, s)| (r, Some(s)));
        let report = report.or(probed_report);
        let stats = stats.or(probed_stats);
        let mut st = self.state();
        if std::mem::replace(&mut st.ended, true) {
            return;
        }
        if let Some(stats) = stats {
            self.record_stats(&mut st, stats);
        }
        for turn in st.turns.drain(..) {
            turn.span()
                .set_status(Status::error("the session ended before the turn's result"));
            turn.span().end();
        }
        let cause = report.as_ref().map(|r| r.cause.clone()).or(st.cause.take());
        let escalation = report.as_ref().map(|r| r.escalation).or(st.escalation);
        let connected = st.connected;
        drop(st);
        let span = self.cx.span();
        if let Some(cause) = &cause {
            span.set_attribute(KeyValue::new(
                "claude_agent.shutdown.cause",
                cause_name(cause),
            ));
        }
        if let Some(e) = escalation {
            span.set_attribute(KeyValue::new(
                "claude_agent.shutdown.escalation",
                escalation_name(e),
            ));
            if e != Escalation::None {
                let attrs = self.attrs([KeyValue::new("level", escalation_name(e))]);
                self.shared.instruments.escalations.add(1, &attrs);
            }
        }
        if connected {
            self.shared
                .instruments
                .sessions_active
                .add(-1, &self.attrs([]));
        }
        span.end();
    }
}

/// `requested`, `cli_exited`, ...: the cause's serialized tag.
fn cause_name(cause: &ShutdownCause) -> String {
    serde_json::to_value(cause)
        .ok()
        .and_then(|v| v.get("kind").and_then(|k| k.as_str().map(str::to_owned)))
        .unwrap_or_else(|| "unknown".to_owned())
}

fn escalation_name(e: Escalation) -> &'static str {
    match e {
        Escalation::None => "none",
        Escalation::Term => "term",
        Escalation::Kill => "kill",
    }
}
