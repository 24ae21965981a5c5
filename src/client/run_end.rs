//! When a one-shot run is over, so [`query`](super::query()) may close the
//! CLI's stdin.
//!
//! A `result` ends a turn, not necessarily the run: a background agent may
//! still be running, or may have just finished and wake the session for a
//! follow-up turn, and its permission, hook and in-process MCP requests need
//! stdin to get answers. The CLI reports `session_state_changed` frames when
//! asked to ([`READS_SESSION_STATE_ENV`]): it stays `running` while such a
//! turn is owed and reports `idle` once none is. A ledger of started agent
//! tasks covers CLIs that report no state, and a ceiling bounds the wait for
//! an `idle` that never comes. Pure: the caller feeds frames and the clock.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::time::{Duration, Instant};

use crate::options::Options;
use crate::protocol::{Message, SessionState, SystemMessage};

/// Asks the CLI for the `session_state_changed` frames it marks
/// `sdk_host_only`; a CLI that predates it sends none.
pub(crate) const READS_SESSION_STATE_ENV: &str = "CLAUDE_CODE_SDK_READS_SESSION_STATE";
/// The CLI's own wait for background work once stdin is closed; the wait for
/// `idle` after a result is bounded by the same value.
pub(crate) const CEILING_ENV: &str = "CLAUDE_CODE_PRINT_BG_WAIT_CEILING_MS";
/// The CLI's default for [`CEILING_ENV`]: ten minutes.
pub(crate) const DEFAULT_CEILING: Duration = Duration::from_millis(600_000);
/// The longest ceiling honoured (~24.8 days), as the other SDKs do.
const MAX_CEILING_MS: u64 = (1 << 31) - 1;

/// Task types whose completion runs a follow-up turn. Background shells,
/// monitors, teammates and remote agents are left out on purpose: they may
/// never reach a terminal status, so waiting on them would hold stdin open
/// for good (the CLI bounds those itself after EOF).
const DEFERRING_TASK_TYPES: [&str; 2] = ["local_agent", "local_workflow"];
/// `task_updated` patch statuses that settle a task.
const TERMINAL_STATUSES: [&str; 4] = ["completed", "failed", "stopped", "killed"];

/// The ceiling as the CLI will read it: the session's own `env` wins over
/// the inherited value. `None` is no limit (`0`); anything but a plain
/// non-negative integer falls back to the default.
pub(crate) fn ceiling(configured: Option<&OsStr>, inherited: Option<&OsStr>) -> Option<Duration> {
    let Some(raw) = configured.or(inherited) else {
        return Some(DEFAULT_CEILING);
    };
    match raw.to_str().and_then(|s| s.trim().parse::<u64>().ok()) {
        Some(0) => None,
        Some(ms) => Some(Duration::from_millis(ms.min(MAX_CEILING_MS))),
        None => Some(DEFAULT_CEILING),
    }
}

/// Asks the CLI for the session state frames the run-end decision reads,
/// unless the caller or the inherited environment chose a value.
pub(crate) fn ask_for_session_state(options: &mut Options, inherited: Option<&OsStr>) {
    let name = READS_SESSION_STATE_ENV;
    // Any spelling counts as a choice, as in the other SDKs.
    let chosen = options
        .env
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case(name));
    if !chosen && inherited.is_none() {
        options.env.push((name.into(), "1".into()));
    }
}

/// The last value `options.env` gives `name` (the one the CLI sees).
pub(crate) fn env_value(options: &Options, name: &str) -> Option<OsString> {
    options
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// Whether the CLI reported state, and which.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reported {
    /// No `session_state_changed` yet (or one without a state).
    Nothing,
    Idle,
    RequiresAction,
    /// `running`, or a state this SDK does not know: work is under way.
    Busy,
}

/// The run-end decision for one query.
#[derive(Debug)]
pub(crate) struct RunEnd {
    /// Callbacks are configured, so later control requests need stdin.
    needs_stdin: bool,
    ceiling: Option<Duration>,
    state: Reported,
    result_received: bool,
    /// A main-thread turn is under way: the ceiling counts only the wait
    /// between turns.
    turn_in_progress: bool,
    /// Started agent tasks with no terminal frame yet.
    in_flight: HashSet<String>,
    ended: bool,
    deadline: Option<Instant>,
}

impl RunEnd {
    pub(crate) fn new(needs_stdin: bool, ceiling: Option<Duration>) -> Self {
        Self {
            needs_stdin,
            ceiling,
            state: Reported::Nothing,
            result_received: false,
            turn_in_progress: false,
            in_flight: HashSet::new(),
            ended: false,
            deadline: None,
        }
    }

    /// Whether nothing more can need stdin: the last prompt's result arrived
    /// and, when callbacks may still be asked, the CLI went idle (or reports
    /// no state) with no agent task in flight, or the ceiling passed.
    pub(crate) fn ended(&self) -> bool {
        self.result_received && (self.ended || !self.needs_stdin)
    }

    /// Background work may still run once stdin closes: an agent task in
    /// flight, or the CLI's last word was that it is busy.
    pub(crate) fn background_pending(&self) -> bool {
        !self.in_flight.is_empty() || self.state == Reported::Busy
    }

    /// The CLI last said it is idle.
    pub(crate) fn idle(&self) -> bool {
        self.state == Reported::Idle
    }

    /// When [`ceiling_passed`](Self::ceiling_passed) is due, if armed.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// A prompt was written: it owes a run of its own, result included.
    pub(crate) fn prompt_sent(&mut self) {
        self.ended = false;
        self.result_received = false;
        self.deadline = None;
    }

    /// A `result` frame (parsed or not) arrived.
    pub(crate) fn on_result(&mut self, now: Instant) {
        self.result_received = true;
        self.turn_in_progress = false;
        match self.state {
            Reported::Nothing | Reported::Idle => self.maybe_end(),
            _ if !self.needs_stdin => self.maybe_end(),
            // Answering a request: the `running` that follows arms it.
            Reported::RequiresAction => {}
            Reported::Busy => self.arm(now),
        }
    }

    /// Any other typed frame.
    pub(crate) fn on_message(&mut self, message: &Message, now: Instant) {
        match message {
            Message::System(system) => self.on_system(system, now),
            Message::Assistant(m) if m.parent_tool_use_id.is_none() => self.main_turn_activity(),
            Message::StreamEvent(m) if m.parent_tool_use_id.is_none() => self.main_turn_activity(),
            _ => {}
        }
    }

    /// The deadline passed with no new turn: the run ends, unless a tracked
    /// agent is still in flight (it may still need stdin; the ceiling starts
    /// over once it settles).
    pub(crate) fn ceiling_passed(&mut self, now: Instant) {
        match self.deadline {
            Some(d) if now >= d => self.deadline = None,
            _ => return,
        }
        if self.in_flight.is_empty() {
            self.end();
        }
    }

    fn on_system(&mut self, system: &SystemMessage, now: Instant) {
        let had_tasks = !self.in_flight.is_empty();
        match system {
            SystemMessage::TaskStarted(t) => {
                let deferring = t
                    .task_type
                    .as_deref()
                    .is_some_and(|k| DEFERRING_TASK_TYPES.contains(&k));
                if let (true, Some(id)) = (deferring, &t.task_id) {
                    self.in_flight.insert(id.clone());
                }
            }
            SystemMessage::TaskNotification(t) => {
                if let Some(id) = &t.task_id {
                    self.in_flight.remove(id);
                }
            }
            SystemMessage::TaskUpdated(t) => {
                let status = t.patch.as_ref().and_then(|p| p.get("status"));
                let terminal = status
                    .and_then(|s| s.as_str())
                    .is_some_and(|s| TERMINAL_STATUSES.contains(&s));
                if let (true, Some(id)) = (terminal, &t.task_id) {
                    self.in_flight.remove(id);
                }
            }
            SystemMessage::SessionStateChanged(s) => {
                self.on_state(s.state.as_ref(), now);
                return;
            }
            _ => return,
        }
        if had_tasks && self.in_flight.is_empty() {
            // The last tracked agent settled: the wait between turns starts
            // over.
            self.rearm_between_turns(now);
        }
    }

    fn on_state(&mut self, state: Option<&SessionState>, now: Instant) {
        self.state = match state {
            None => Reported::Nothing,
            Some(SessionState::Idle) => Reported::Idle,
            Some(SessionState::RequiresAction) => Reported::RequiresAction,
            Some(_) => Reported::Busy,
        };
        if self.state == Reported::Idle {
            if self.result_received {
                self.maybe_end();
            }
            return;
        }
        // Work the CLI took up after the run ended (a finished background
        // task woke it) reopens the run until the next idle.
        self.ended = false;
        if self.state == Reported::RequiresAction {
            // The host is answering a request; stdin must outlast it.
            self.deadline = None;
        } else {
            self.rearm_between_turns(now);
        }
    }

    fn main_turn_activity(&mut self) {
        self.turn_in_progress = true;
        self.ended = false;
        self.deadline = None;
    }

    fn maybe_end(&mut self) {
        if self.in_flight.is_empty() {
            self.end();
        }
    }

    fn end(&mut self) {
        self.deadline = None;
        self.ended = true;
    }

    fn rearm_between_turns(&mut self, now: Instant) {
        if self.result_received && self.state == Reported::Busy {
            self.arm(now);
        }
    }

    fn arm(&mut self, now: Instant) {
        self.deadline = None;
        if self.ended || self.turn_in_progress || !self.needs_stdin {
            return;
        }
        self.deadline = self.ceiling.map(|c| now + c);
    }
}

#[cfg(test)]
#[path = "run_end_tests.rs"]
mod tests;
