//! The transcript: the evaluable artifact of one session, and raw-frame
//! recording with replay through the fake CLI.
//!
//! - [`TranscriptRecorder`] is fed every message, sent prompt, callback
//!   decision, control request, transport error and the close report while
//!   a session runs; [`TranscriptRecorder::snapshot`] computes the
//!   [`Transcript`]: turns (with `incomplete` when a turn ended without a
//!   result or got only stream deltas), tool calls correlated by
//!   `tool_use_id`, results, and how the run went. It serializes to JSON.
//! - With partial messages on, `stream_event`s are kept apart from complete
//!   messages; text comes only from complete `assistant` messages and token
//!   usage only from `result.usage` or `assistant` `message.usage` (one per
//!   API message), so nothing is counted twice.
//! - [`Recorder`] writes both directions of the wire as timestamped NDJSON;
//!   [`read_recording`] reads it back; [`recording_to_script_json`] turns
//!   it into a script for the testkit's fake CLI (plain JSON, which the
//!   testkit's `Script` deserializes from), so a host's callbacks re-run
//!   deterministically. [`merge_captures`] builds a recording from separate
//!   stdin/stdout captures.

mod capture;
mod control;
mod correlate;
mod decision;
mod error;
mod model;
mod recorder;
mod recording;
mod replay;
mod run;
mod turns;

pub use capture::merge_captures;
pub use control::{ControlOutcome, ControlRecord, Direction};
pub use decision::DecisionRecord;
pub use error::RecordingError;
pub use model::{
    ResultSummary, SkippedLine, TokenUsage, ToolCall, ToolResultRecord, Transcript, Turn,
    UsageSource,
};
pub use recorder::TranscriptRecorder;
pub use recording::{FramePayload, RecordedFrame, Recorder, read_recording, read_recording_from};
pub use replay::{ReplayOptions, recording_to_script_json};
pub use run::{CloseInfo, EntryPoint, ExitRecord, RunInfo};
