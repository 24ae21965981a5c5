//! The checks a test runs after a faulted session: no process left, one
//! reply per request, the report's signals accounted for, no store entry
//! lost beyond the mirror's durability bound.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use claude_agent_actors::{Escalation, ShutdownReport};

use super::action::{KILL, signal_name};
use super::report::FaultReport;
use crate::extensions::SessionReport;
use crate::store::{SessionKey, SessionStore};

/// A check that failed, saying what it found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{check}: {found}")]
pub struct CheckFailure {
    /// The check (`no_process_left`, ...).
    pub check: &'static str,
    /// What it found.
    pub found: String,
}

fn fail(check: &'static str, found: String) -> CheckFailure {
    CheckFailure { check, found }
}

/// Pause between two looks at the process table while waiting.
const POLL: Duration = Duration::from_millis(20);

impl FaultReport {
    /// No process of the session is left: neither the CLI nor anything in
    /// its process group, once `within` has passed (processes the shutdown
    /// killed may take a moment to be reaped by their parent).
    pub async fn no_process_left(&self, within: Duration) -> Result<(), CheckFailure> {
        let Some(pgid) = self
            .pgid
            .and_then(|g| rustix::process::Pid::from_raw(g as i32))
        else {
            return Ok(());
        };
        let deadline = Instant::now() + within;
        loop {
            let group_gone =
                rustix::process::test_kill_process_group(pgid) == Err(rustix::io::Errno::SRCH);
            let registered = claude_agent_actors::process::live_processes()
                .iter()
                .any(|p| Some(p.pid) == self.pid);
            if group_gone && !registered {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(fail(
                    "no_process_left",
                    format!(
                        "process group {} still has processes {} ms after the check began{}",
                        pgid.as_raw_nonzero(),
                        within.as_millis(),
                        if registered {
                            "; the CLI is not reaped"
                        } else {
                            ""
                        }
                    ),
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Every control request of the CLI got exactly one reply from the
    /// runtime; none is excused but one the CLI cancelled, or one that a
    /// fault (a kill, a stop, a closed pipe, a hung callback) overtook.
    pub fn one_reply_per_request(&self) -> Result<(), CheckFailure> {
        for r in &self.requests {
            if r.replies > 1 {
                return Err(fail(
                    "one_reply_per_request",
                    format!(
                        "request {} ({}) got {} replies",
                        r.request_id, r.subtype, r.replies
                    ),
                ));
            }
            if r.replies == 0 && !r.cancelled && !r.faulted_after {
                return Err(fail(
                    "one_reply_per_request",
                    format!("request {} ({}) got no reply", r.request_id, r.subtype),
                ));
            }
        }
        Ok(())
    }

    /// The signals in the runtime's report are the ones sent: a CLI killed
    /// by a signal was sent it (by a fault, or by the shutdown ladder, whose
    /// steps the report lists), and a SIGKILL a fault delivered is what the
    /// CLI died of.
    pub fn signals_match(&self, runtime: &ShutdownReport) -> Result<(), CheckFailure> {
        let sent: Vec<i32> = self
            .injected
            .iter()
            .filter(|f| f.applied)
            .filter_map(|f| f.signal)
            .collect();
        let ladder = |to: Escalation| runtime.steps.iter().any(|s| s.to == to);
        let closed_stdout = self.injected.iter().any(|f| f.action == "close-stdout");
        let name = |s: i32| signal_name(s).map_or_else(|| s.to_string(), str::to_owned);
        let died_of = runtime.exit.and_then(|e| e.signal);
        if let Some(sig) = died_of {
            let term = rustix::process::Signal::TERM.as_raw();
            let pipe = rustix::process::Signal::PIPE.as_raw();
            let accounted = sent.contains(&sig)
                || (sig == term && ladder(Escalation::Term))
                || (sig == KILL && ladder(Escalation::Kill))
                || (sig == pipe && closed_stdout);
            if !accounted {
                return Err(fail(
                    "signals_match",
                    format!(
                        "the CLI died of {} but neither a fault nor the shutdown sent it",
                        name(sig)
                    ),
                ));
            }
        }
        if sent.contains(&KILL) && runtime.exit.is_some() && died_of != Some(KILL) {
            return Err(fail(
                "signals_match",
                format!(
                    "a fault delivered SIGKILL but the report says the CLI ended with {}",
                    runtime.exit.map_or_else(String::new, |e| e.to_string())
                ),
            ));
        }
        Ok(())
    }
}

/// What [`no_store_entry_lost`] compared.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreComparison {
    /// Entries (with a `uuid`) in the CLI's local transcript.
    pub local: usize,
    /// Of them, how many the store holds.
    pub stored: usize,
    /// The `uuid`s the store lacks, in file order.
    pub missing: Vec<String>,
}

/// No entry of the CLI's local transcript file (`local_transcript`, the
/// `<session>.jsonl` under the CLI's projects folder) is missing from
/// `store` under `key`, except entries written within `bound` of the last
/// one (the mirror's durability bound,
/// [`mirror_persist_within`](crate::client::ClientBuilder::mirror_persist_within),
/// default 1 s) and losses the report owns up to (`mirror_unpersisted`).
pub async fn no_store_entry_lost(
    store: &dyn SessionStore,
    key: &SessionKey,
    local_transcript: &Path,
    bound: Duration,
    report: &SessionReport,
) -> Result<StoreComparison, CheckFailure> {
    const CHECK: &str = "no_store_entry_lost";
    let text = tokio::fs::read_to_string(local_transcript)
        .await
        .map_err(|e| {
            fail(
                CHECK,
                format!("cannot read {}: {e}", local_transcript.display()),
            )
        })?;
    let stored = store
        .load(key)
        .await
        .map_err(|e| fail(CHECK, format!("cannot load the stored session: {e}")))?
        .unwrap_or_default();
    let stored: HashSet<String> = stored
        .iter()
        .filter_map(|e| e.uuid().map(|u| u.into_owned()))
        .collect();
    let local: Vec<(String, Option<i64>)> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| {
            let uuid = v.get("uuid")?.as_str()?.to_owned();
            let at = v
                .get("timestamp")
                .and_then(|t| t.as_str())
                .and_then(unix_ms);
            Some((uuid, at))
        })
        .collect();
    let last = local.iter().filter_map(|(_, t)| *t).max();
    let bound_ms = i64::try_from(bound.as_millis()).unwrap_or(i64::MAX);
    let missing: Vec<&(String, Option<i64>)> =
        local.iter().filter(|(u, _)| !stored.contains(u)).collect();
    let old = missing
        .iter()
        .filter(|(_, t)| match (t, last) {
            (Some(t), Some(last)) => last.saturating_sub(*t) > bound_ms,
            _ => true,
        })
        .count();
    let reported = report.mirror_unpersisted.unwrap_or(0);
    if old > 0 && (missing.len() as u64) > reported {
        return Err(fail(
            CHECK,
            format!(
                "{} of {} entries are missing from the store ({old} older than the {} ms bound), \
                 and the report counts only {reported} unpersisted",
                missing.len(),
                local.len(),
                bound.as_millis()
            ),
        ));
    }
    Ok(StoreComparison {
        local: local.len(),
        stored: local.len() - missing.len(),
        missing: missing.into_iter().map(|(u, _)| u.clone()).collect(),
    })
}

/// `2026-01-02T03:04:05.678Z` as Unix milliseconds (the CLI's timestamps
/// are UTC with a `Z`); anything else is `None`.
fn unix_ms(text: &str) -> Option<i64> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !text.ends_with('Z') {
        return None;
    }
    let num = |r: std::ops::Range<usize>| text.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let frac = text.get(19..text.len() - 1).unwrap_or("");
    let ms = match frac.strip_prefix('.') {
        Some(f) if !f.is_empty() => {
            let digits: String = f.chars().chain("000".chars()).take(3).collect();
            digits.parse::<i64>().ok()?
        }
        _ => 0,
    };
    // Days from the civil date (proleptic Gregorian), H. Hinnant's method.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_timestamps_read_as_unix_milliseconds() {
        assert_eq!(unix_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(unix_ms("2000-03-01T00:00:01.5Z"), Some(951_868_801_500));
        assert_eq!(unix_ms("yesterday"), None);
    }
}
