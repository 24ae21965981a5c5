//! The recording pieces: the run description, the handler recording each
//! inbound control request, control records, the raw-frame wire tap.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use claude_agent_actors::{
    CancellationToken, HandlerError, InboundHandler, InboundRequest, WireDirection, WireTap,
};
use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use crate::options::{Options, Tools};
use crate::transcript::{
    ControlOutcome, ControlRecord, Direction, EntryPoint, Recorder, RunInfo, TranscriptRecorder,
};

/// The transcript's run description from the options.
pub(crate) fn run_info(entry: EntryPoint, options: &Options) -> RunInfo {
    let mut info = RunInfo::new(entry, "subprocess");
    info.model = options.model.clone();
    info.permission_mode = options.permission_mode.map(|m| m.as_str().to_owned());
    info.tools = match &options.tools {
        Some(Tools::List(list)) => Some(list.clone()),
        Some(_) => Some(vec!["default".to_owned()]),
        None => None,
    };
    info.allowed_tools = options.allowed_tools.clone();
    info.disallowed_tools = options.disallowed_tools.clone();
    info.cwd = options.cwd.as_ref().map(|p| p.display().to_string());
    info.include_partial_messages = options.include_partial_messages;
    info
}

/// A wire tap writing every line to a raw-frame recording.
pub(crate) fn recording_tap(recorder: Recorder) -> WireTap {
    Arc::new(move |direction, line| {
        let dir = match direction {
            WireDirection::In => Direction::Inbound,
            WireDirection::Out => Direction::Outbound,
        };
        if let Err(e) = recorder.record(dir, line) {
            tracing::warn!(
                error = &e as &dyn std::error::Error,
                "raw frame recording failed"
            );
        }
    })
}

/// A control request's record, timed from `started`.
pub(crate) fn control_record(
    request_id: String,
    subtype: String,
    direction: Direction,
    started: (SystemTime, Instant),
    outcome: ControlOutcome,
) -> ControlRecord {
    ControlRecord {
        request_id,
        subtype,
        direction,
        started_at: started.0,
        duration: started.1.elapsed(),
        outcome,
    }
}

/// Records each inbound control request (id, subtype, duration, outcome)
/// around the real handler.
pub(crate) struct RecordingHandler {
    pub(crate) inner: Arc<dyn InboundHandler>,
    pub(crate) transcript: TranscriptRecorder,
}

impl InboundHandler for RecordingHandler {
    fn handle(
        &self,
        request: InboundRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let started = (SystemTime::now(), Instant::now());
        let id = request.request_id.clone();
        let subtype = request.subtype.clone();
        let transcript = self.transcript.clone();
        let watch = cancel.clone();
        let reply = self.inner.handle(request, cancel);
        async move {
            let result = reply.await;
            let outcome = match &result {
                _ if watch.is_cancelled() => ControlOutcome::Cancelled,
                Ok(_) => ControlOutcome::Success,
                Err(e) => ControlOutcome::Error(e.message().to_owned()),
            };
            transcript.record_control(control_record(
                id,
                subtype,
                Direction::Inbound,
                started,
                outcome,
            ));
            result
        }
        .boxed()
    }
}
