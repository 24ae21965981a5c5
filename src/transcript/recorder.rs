//! The thread-safe recorder the client feeds while a session runs.

use std::sync::{Arc, Mutex, MutexGuard};

use claude_agent_actors::ShutdownReport;
use serde_json::{Value, json};

use super::correlate::ToolLedger;
use super::turns::Turns;
use super::{CloseInfo, ControlRecord, DecisionRecord, RunInfo, Transcript};
use crate::callbacks::Decision;
use crate::protocol::{Message, SystemMessage, UserMessage};

/// Records one session into a [`Transcript`].
///
/// Thread-safe and cheap to clone (an `Arc` around a `Mutex`); the lock is
/// held only for the bookkeeping of one call, never across an `.await`.
///
/// ```
/// use claude_agent::protocol::{parse_message, UserMessage};
/// use claude_agent::transcript::{EntryPoint, RunInfo, TranscriptRecorder};
///
/// let rec = TranscriptRecorder::new(RunInfo::new(EntryPoint::Query, "subprocess"));
/// rec.record_sent_prompt(&UserMessage::prompt("hi"));
/// let m = parse_message(br#"{"type":"result","subtype":"success","is_error":false,"result":"hello","session_id":"s1"}"#).unwrap();
/// rec.record_message(&m);
/// let t = rec.snapshot();
/// assert_eq!(t.session_id.as_deref(), Some("s1"));
/// assert_eq!(t.turns[0].result.as_ref().unwrap().result.as_deref(), Some("hello"));
/// assert!(!t.incomplete);
/// ```
#[derive(Debug, Clone)]
pub struct TranscriptRecorder {
    state: Arc<Mutex<State>>,
}

#[derive(Debug)]
struct State {
    run: RunInfo,
    session_id: Option<String>,
    messages: Vec<Value>,
    stream_events: Vec<Value>,
    turns: Turns,
    tools: ToolLedger,
    decisions: Vec<DecisionRecord>,
    results: Vec<crate::transcript::ResultSummary>,
    control: Vec<ControlRecord>,
    transport_error: Option<String>,
    close: Option<CloseInfo>,
    skipped_lines: Vec<crate::transcript::SkippedLine>,
    faults: Vec<serde_json::Value>,
}

/// The message as JSON; an encoding failure (not expected: every parsed
/// message serializes) is kept visible instead of dropped.
fn to_value(message: &Message) -> Value {
    match message.to_json().map(|s| serde_json::from_str::<Value>(&s)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => json!({"type": message.kind(), "encode_error": e.to_string()}),
        Err(e) => json!({"type": message.kind(), "encode_error": e.to_string()}),
    }
}

fn session_id_of(message: &Message) -> Option<&str> {
    match message {
        Message::System(SystemMessage::Init(i)) => i.session_id.as_deref(),
        Message::Assistant(a) => a.session_id.as_deref(),
        Message::User(u) => u.session_id.as_deref(),
        Message::Result(r) => r.session_id.as_deref(),
        Message::StreamEvent(e) => e.session_id.as_deref(),
        _ => None,
    }
}

impl TranscriptRecorder {
    /// A recorder for a session started with `info`.
    pub fn new(info: RunInfo) -> Self {
        Self {
            state: Arc::new(Mutex::new(State {
                run: info,
                session_id: None,
                messages: Vec::new(),
                stream_events: Vec::new(),
                turns: Turns::default(),
                tools: ToolLedger::default(),
                decisions: Vec::new(),
                results: Vec::new(),
                control: Vec::new(),
                transport_error: None,
                close: None,
                skipped_lines: Vec::new(),
                faults: Vec::new(),
            })),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere while holding the lock leaves plain data that
        // is still worth recording.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records a message received from the CLI, in arrival order.
    pub fn record_message(&self, message: &Message) {
        let value = to_value(message);
        let mut s = self.lock();
        if s.session_id.is_none() {
            // `default` is what we put on frames we send, not the CLI's id.
            s.session_id = session_id_of(message)
                .filter(|id| *id != "default")
                .map(str::to_owned);
        }
        match message {
            Message::StreamEvent(e) => {
                let i = s.stream_events.len();
                s.stream_events.push(value);
                s.turns.stream_event(e, i);
            }
            _ => {
                let i = s.messages.len();
                s.messages.push(value);
                let turn = s.turns.message(message, i);
                s.tools.message(message, turn);
                if let Message::Result(r) = message {
                    s.results.push(super::ResultSummary::from_message(r));
                }
                if let Message::System(SystemMessage::Init(init)) = message {
                    if s.run.cli_version.is_none() {
                        s.run.cli_version = init.claude_code_version.clone();
                    }
                }
            }
        }
    }

    /// Records a user turn we sent; it opens a turn.
    pub fn record_sent_prompt(&self, prompt: &UserMessage) {
        let value = to_value(&Message::User(Box::new(prompt.clone())));
        self.lock().turns.open(value);
    }

    /// Records a callback decision (from `Callbacks::on_decision`).
    pub fn record_decision(&self, decision: &Decision) {
        let record = DecisionRecord::from(decision);
        self.lock().decisions.push(record);
    }

    /// Records a finished control request, either direction.
    pub fn record_control(&self, record: ControlRecord) {
        self.lock().control.push(record);
    }

    /// Records the transport error that ended the session; the first one
    /// is kept (later ones are consequences). Open turns become incomplete.
    pub fn record_transport_error(&self, error: &str) {
        let mut s = self.lock();
        if s.transport_error.is_none() {
            s.transport_error = Some(error.to_owned());
        }
    }

    /// Records a stdout line the runtime did not deliver.
    pub fn record_skipped(&self, line: crate::transcript::SkippedLine) {
        self.lock().skipped_lines.push(line);
    }

    /// Records a fault a fault plan injected (see `crate::fault`).
    pub fn record_fault(&self, fault: serde_json::Value) {
        self.lock().faults.push(fault);
    }

    /// Records how the session closed; open turns become incomplete.
    pub fn record_close(&self, report: &ShutdownReport) {
        self.lock().close = Some(CloseInfo::from_report(report));
    }

    /// Sets the CLI's version (e.g. from the initialize reply).
    pub fn set_cli_version(&self, version: &str) {
        self.lock().run.cli_version = Some(version.to_owned());
    }

    /// The transcript so far, with turns and tool calls computed.
    pub fn snapshot(&self) -> Transcript {
        let s = self.lock();
        let ended = s.close.is_some() || s.transport_error.is_some();
        let turns = s
            .turns
            .finish(ended, s.messages.len(), s.stream_events.len());
        Transcript {
            session_id: s.session_id.clone(),
            run: s.run.clone(),
            messages: s.messages.clone(),
            stream_events: s.stream_events.clone(),
            incomplete: turns.iter().any(|t| t.incomplete),
            turns,
            tool_calls: s.tools.correlate(&s.decisions),
            decisions: s.decisions.clone(),
            results: s.results.clone(),
            control_requests: s.control.clone(),
            transport_error: s.transport_error.clone(),
            close: s.close.clone(),
            skipped_lines: s.skipped_lines.clone(),
            faults: s.faults.clone(),
        }
    }
}
