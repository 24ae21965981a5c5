//! Replaying a recording through the fake CLI (`claude-agent-testkit`), so
//! a host's callbacks run again, deterministically, in tests.
//!
//! The fake CLI reads stdin strictly in order and skips lines that do not
//! match the step waiting for them, so the script's expectations follow the
//! order of our recorded writes exactly: each `out` frame becomes an
//! `expect` at its recorded position, and each `in` frame an `emit`. A
//! control request from the CLI is emitted where it was received, and our
//! answer is expected where we sent it (immediately after, unless we
//! wrote something else first). Our own control requests are expected and
//! answered with the recorded reply (under the new request id); the
//! recorded reply frame itself is not emitted again. The fake builds that
//! reply from the recorded `response` (or `error`) alone, so other members
//! of the recorded reply (e.g. `pending_permission_requests`) are not
//! replayed.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

use super::{Direction, FramePayload, RecordedFrame};

/// How a recording becomes a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Bound on every `expect` step: the fake CLI exits with status 4 when
    /// the host does not write the expected line in time, instead of
    /// hanging. `None`: wait forever.
    pub expect_timeout_ms: Option<u64>,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            expect_timeout_ms: Some(10_000),
        }
    }
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |v, k| v.get(k))?.as_str()
}

/// The fake CLI's script for `frames` (`{"steps": [...], "on_end":
/// "wait_eof"}`), as JSON, so the library needs no testkit: the testkit's
/// `Script` deserializes from it.
///
/// ```no_run
/// use claude_agent::transcript::{ReplayOptions, read_recording, recording_to_script_json};
/// use claude_agent_testkit::Script;
///
/// let frames = read_recording("session.ndjson")?;
/// let json = recording_to_script_json(&frames, &ReplayOptions::default());
/// let script: Script = serde_json::from_value(json)?;
/// let dir = tempfile::tempdir()?;
/// let fake = script.install(dir.path())?;
/// let mut cmd = fake.command(); // run the host against this instead of `claude`
/// # let _ = &mut cmd;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn recording_to_script_json(frames: &[RecordedFrame], options: &ReplayOptions) -> Value {
    json!({"steps": script_steps(frames, options), "on_end": "wait_eof"})
}

/// The script's steps, in order.
fn script_steps(frames: &[RecordedFrame], options: &ReplayOptions) -> Vec<Value> {
    let mut consumed = HashSet::new();
    let mut steps = Vec::new();
    for (i, frame) in frames.iter().enumerate() {
        if consumed.contains(&i) {
            continue;
        }
        match (&frame.dir, &frame.payload) {
            (Direction::Inbound, FramePayload::Json(v)) => {
                steps.push(json!({"op": "emit", "frame": v}));
            }
            (Direction::Inbound, FramePayload::Raw(text)) => {
                steps.push(json!({"op": "emit_raw", "data": format!("{text}\n")}));
            }
            // Nothing to match a non-JSON line of ours against.
            (Direction::Outbound, FramePayload::Raw(_)) => {}
            (Direction::Outbound, FramePayload::Json(v)) => {
                let mut step = expect_step(v, frames, i, &mut consumed);
                if let Some(ms) = options.expect_timeout_ms {
                    step.insert("timeout_ms".into(), ms.into());
                }
                steps.push(Value::Object(step));
            }
        }
    }
    steps
}

/// The `expect` step for our frame `frames[i]`; for our own control
/// request, the reply is the recorded response, which is marked consumed.
fn expect_step(
    v: &Value,
    frames: &[RecordedFrame],
    i: usize,
    consumed: &mut HashSet<usize>,
) -> Map<String, Value> {
    let kind = str_at(v, &["type"]).unwrap_or_default();
    let mut step = Map::new();
    step.insert("op".into(), "expect".into());
    step.insert("type".into(), kind.into());
    match kind {
        "control_request" => {
            if let Some(subtype) = str_at(v, &["request", "subtype"]) {
                step.insert("subtype".into(), subtype.into());
            }
            let id = str_at(v, &["request_id"]);
            let reply = frames.iter().enumerate().skip(i + 1).find(|(j, f)| {
                f.dir == Direction::Inbound
                    && !consumed.contains(j)
                    && f.json().is_some_and(|r| {
                        str_at(r, &["type"]) == Some("control_response")
                            && str_at(r, &["response", "request_id"]) == id
                    })
            });
            match reply.and_then(|(j, f)| Some((j, f.json()?.get("response")?))) {
                Some((j, response)) => {
                    consumed.insert(j);
                    if str_at(response, &["subtype"]) == Some("error") {
                        let error = response.get("error").cloned().unwrap_or(Value::Null);
                        let error = error
                            .as_str()
                            .map_or_else(|| error.to_string(), str::to_owned);
                        step.insert("reply_error".into(), error.into());
                    } else {
                        let body = response.get("response").cloned().unwrap_or(json!({}));
                        step.insert("reply".into(), body);
                    }
                }
                // Never answered while recording: do not answer now.
                None => {
                    step.insert("no_reply".into(), true.into());
                }
            }
        }
        "control_response" => {
            if let Some(id) = str_at(v, &["response", "request_id"]) {
                step.insert("request_id".into(), id.into());
            }
        }
        "control_cancel_request" => {
            if let Some(id) = str_at(v, &["request_id"]) {
                step.insert("request_id".into(), id.into());
            }
        }
        _ => {}
    }
    step
}
