//! How a failed job's CLI ended, also when it ended before `initialize`:
//! the host's `Failure::exit` knows a crash's exit only, while a start
//! failure keeps it in its error.

use claude_agent::host::Failure;
use claude_agent::runtime::process::ExitInfo;
use serde_json::{Value, json};

/// The start error inside a failure, when it has one.
fn start_error(f: &Failure) -> Option<&claude_agent::Error> {
    match f {
        Failure::Connect(e) | Failure::Revive { error: e, .. } => Some(e),
        _ => None,
    }
}

/// How the failure's CLI ended, when known.
pub(crate) fn exit(f: &Failure) -> Option<ExitInfo> {
    f.exit().or_else(|| start_error(f).and_then(|e| e.exit()))
}

/// The failure's CLI's last stderr lines, when known.
pub(crate) fn stderr_tail(f: &Failure) -> Vec<String> {
    match start_error(f).and_then(|e| e.stderr_tail()) {
        Some(tail) => tail.lines().map(str::to_owned).collect(),
        None => f.stderr_tail().to_vec(),
    }
}

/// Fills an `ended` event's (or a failure record's) `exit` and
/// `stderr_tail` where they are empty and `f` knows them.
pub(crate) fn fill(record: &mut Value, f: &Failure) {
    let Some(o) = record.as_object_mut() else {
        return;
    };
    if o.get("exit").is_none_or(Value::is_null) {
        if let Some(e) = exit(f) {
            o.insert("exit".into(), json!(e));
        }
    }
    let empty = o
        .get("stderr_tail")
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty);
    if empty {
        let tail = stderr_tail(f);
        if !tail.is_empty() {
            o.insert("stderr_tail".into(), json!(tail));
        }
    }
}

/// Whether an `ended` event still lacks what its outcome may fill in.
pub(crate) fn incomplete(event: &Value) -> bool {
    event["kind"] == "ended"
        && matches!(event["failure"].as_str(), Some("connect" | "revive"))
        && event["exit"].is_null()
}
