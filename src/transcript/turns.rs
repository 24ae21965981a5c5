//! Splitting the message stream into turns, and what each turn said.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use serde_json::Value;

use super::{ResultSummary, TokenUsage, Turn, UsageSource};
use crate::protocol::{ApiStreamEvent, AssistantMessage, ContentBlock, Message, StreamEvent};

/// One turn while it is being recorded.
#[derive(Debug, Default)]
struct TurnState {
    prompt: Option<Value>,
    messages: Option<Range<usize>>,
    stream_events: Option<Range<usize>>,
    result: Option<ResultSummary>,
    text: Vec<String>,
    /// API message ids that got content deltas.
    streamed: BTreeSet<String>,
    /// API message ids that arrived as complete `assistant` messages.
    completed: BTreeSet<String>,
    /// Usage per API message id: the blocks of one response share it, so
    /// keeping one entry per id never counts a response twice.
    assistant_usage: BTreeMap<String, TokenUsage>,
}

/// The turns so far. Messages go to the oldest turn without a result
/// (prompts sent while a turn runs are queued by the CLI and answered in
/// order).
#[derive(Debug, Default)]
pub(crate) struct Turns {
    turns: Vec<TurnState>,
    /// The API message the stream is in, for events that do not name it.
    current_stream: Option<String>,
}

fn extend(range: &mut Option<Range<usize>>, index: usize) {
    match range {
        Some(r) => r.end = index + 1,
        None => *range = Some(index..index + 1),
    }
}

impl Turns {
    /// A prompt we sent opens a turn.
    pub(crate) fn open(&mut self, prompt: Value) {
        self.turns.push(TurnState {
            prompt: Some(prompt),
            ..TurnState::default()
        });
    }

    /// The turn a message belongs to; opens one when needed. Only model
    /// output (assistant, result, stream events) opens a turn after a
    /// finished one; state changes, echoes and local command output join
    /// the last turn (our prompts open theirs via [`Turns::open`]).
    fn target(&mut self, opens_turn: bool) -> usize {
        if let Some(i) = self.turns.iter().position(|t| t.result.is_none()) {
            return i;
        }
        if opens_turn || self.turns.is_empty() {
            self.turns.push(TurnState::default());
        }
        self.turns.len() - 1
    }

    /// Records message number `index` of the transcript's `messages`;
    /// returns its turn.
    pub(crate) fn message(&mut self, message: &Message, index: usize) -> usize {
        let opens_turn = matches!(message, Message::Assistant(_) | Message::Result(_));
        let t = self.target(opens_turn);
        let turn = &mut self.turns[t];
        extend(&mut turn.messages, index);
        match message {
            Message::Assistant(a) => turn.assistant(a),
            Message::Result(r) => turn.result = Some(ResultSummary::from_message(r)),
            _ => {}
        }
        t
    }

    /// Records stream event number `index` of the transcript's
    /// `stream_events`; returns its turn.
    pub(crate) fn stream_event(&mut self, event: &StreamEvent, index: usize) -> usize {
        let t = self.target(true);
        if let ApiStreamEvent::MessageStart(start) = &event.event {
            let id = start.message.as_ref().and_then(|m| m.id.clone());
            self.current_stream = id.or_else(|| event.api_message_id.clone());
        }
        let id = event
            .api_message_id
            .clone()
            .or_else(|| self.current_stream.clone())
            .unwrap_or_default();
        let turn = &mut self.turns[t];
        extend(&mut turn.stream_events, index);
        if matches!(event.event, ApiStreamEvent::ContentBlockDelta(_)) {
            turn.streamed.insert(id);
        }
        t
    }

    /// The public turns. `ended`: the session closed or the transport
    /// failed, so a turn without a result will never get one.
    pub(crate) fn finish(&self, ended: bool, messages: usize, events: usize) -> Vec<Turn> {
        self.turns
            .iter()
            .map(|t| t.finish(ended, messages, events))
            .collect()
    }
}

impl TurnState {
    fn assistant(&mut self, a: &AssistantMessage) {
        let id = a.message.id.clone().unwrap_or_default();
        self.completed.insert(id.clone());
        if let Some(u) = &a.message.usage {
            self.assistant_usage.insert(id, TokenUsage::from_usage(u));
        }
        // Subagents' text is theirs, not the turn's answer.
        if a.parent_tool_use_id.is_none() {
            for block in a.message.blocks() {
                if let ContentBlock::Text(t) = block {
                    self.text.push(t.text.clone().unwrap_or_default());
                }
            }
        }
    }

    fn finish(&self, ended: bool, messages: usize, events: usize) -> Turn {
        let has_result = self.result.is_some();
        let got_deltas_only = self.streamed.difference(&self.completed).next().is_some();
        let (usage, usage_source) = match (&self.result, self.assistant_usage.is_empty()) {
            (Some(ResultSummary { usage: Some(u), .. }), _) => {
                (Some(*u), Some(UsageSource::Result))
            }
            (_, false) => {
                let mut sum = TokenUsage::default();
                self.assistant_usage.values().for_each(|u| sum.add(u));
                (Some(sum), Some(UsageSource::Assistant))
            }
            _ => (None, None),
        };
        Turn {
            prompt: self.prompt.clone(),
            messages: self.messages.clone().unwrap_or(messages..messages),
            stream_events: self.stream_events.clone().unwrap_or(events..events),
            result: self.result.clone(),
            in_progress: !has_result && !ended,
            // Judged once the turn is over: a result, or the session ended.
            incomplete: (has_result || ended) && (!has_result || got_deltas_only),
            text: self.text.join("\n"),
            got_deltas_only,
            usage,
            usage_source,
        }
    }
}
