//! Turning a capture without timestamps (a CLI's stdin and stdout saved to
//! two files, as in the test fixtures) into one recording.

use std::collections::HashSet;

use serde_json::Value;

use super::{Direction, RecordedFrame};

fn str_at<'a>(v: Option<&'a Value>, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v?, |v, k| v.get(k))?.as_str()
}

/// Whether `frame` is the CLI's answer to our request `id`.
fn answers(frame: &RecordedFrame, id: Option<&str>) -> bool {
    let v = frame.json();
    id.is_some()
        && str_at(v, &["type"]) == Some("control_response")
        && str_at(v, &["response", "request_id"]) == id
}

fn frames(text: &str, dir: Direction) -> Vec<RecordedFrame> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| RecordedFrame::from_line(0, dir, l.as_bytes()))
        .collect()
}

/// Interleaves a captured stdin (our writes) and stdout (the CLI's lines)
/// into one recording, in an order consistent with cause and effect; each
/// side keeps its own order and `t_ms` is the position.
///
/// Writes are placed as late as cause and effect allow, which keeps a
/// replay from expecting a line before the host would send it: our
/// `initialize` first; any other control request of ours right before its
/// answer (or, unanswered, once our earlier requests were answered); an
/// answer to a CLI control request after that request; a prompt once our
/// requests were answered and the previous turn's `result` arrived.
pub fn merge_captures(stdin: &str, stdout: &str) -> Vec<RecordedFrame> {
    let outs = frames(stdin, Direction::Outbound);
    let ins = frames(stdout, Direction::Inbound);
    let mut merged = Vec::with_capacity(outs.len() + ins.len());
    let mut ours_pending: HashSet<String> = HashSet::new();
    let mut theirs_seen: HashSet<String> = HashSet::new();
    let mut open_turns = 0usize;
    let (mut o, mut i) = (0, 0);
    loop {
        while let Some(out) = outs.get(o) {
            let v = out.json();
            let ready = match str_at(v, &["type"]) {
                Some("control_response") => str_at(v, &["response", "request_id"])
                    .is_some_and(|id| theirs_seen.contains(id)),
                Some("user") => ours_pending.is_empty() && open_turns == 0,
                // The CLI says nothing before it has read `initialize`.
                Some("control_request")
                    if str_at(v, &["request", "subtype"]) == Some("initialize") =>
                {
                    true
                }
                Some("control_request") => {
                    let id = str_at(v, &["request_id"]);
                    if ins[i..].iter().any(|f| answers(f, id)) {
                        ins.get(i).is_some_and(|f| answers(f, id))
                    } else {
                        ours_pending.is_empty()
                    }
                }
                _ => ours_pending.is_empty(),
            };
            if !ready {
                break;
            }
            match str_at(v, &["type"]) {
                Some("control_request") => {
                    ours_pending.extend(str_at(v, &["request_id"]).map(str::to_owned));
                }
                Some("user") => open_turns += 1,
                _ => {}
            }
            merged.push(out.clone());
            o += 1;
        }
        let Some(inbound) = ins.get(i) else {
            // The CLI said nothing more: our remaining writes, in order.
            merged.extend(outs[o..].iter().cloned());
            break;
        };
        let v = inbound.json();
        match str_at(v, &["type"]) {
            Some("control_request") => {
                theirs_seen.extend(str_at(v, &["request_id"]).map(str::to_owned));
            }
            Some("control_response") => {
                if let Some(id) = str_at(v, &["response", "request_id"]) {
                    ours_pending.remove(id);
                }
            }
            Some("result") => open_turns = open_turns.saturating_sub(1),
            _ => {}
        }
        merged.push(inbound.clone());
        i += 1;
    }
    for (t, frame) in merged.iter_mut().enumerate() {
        frame.t_ms = u64::try_from(t).unwrap_or(u64::MAX);
    }
    merged
}
