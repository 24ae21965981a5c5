//! `permission_rtt`: the fake asks `can_use_tool` N times, one request at a
//! time, and times each round trip on its own clock (request written ->
//! matching `control_response` read and parsed). Every host is then timed
//! by the same code, whatever language it is written in.

use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use super::input::{Input, Wait};
use super::{EXIT_IO, EXIT_TIMEOUT, output};

/// What the step was given.
#[derive(Debug)]
pub(crate) struct Params<'a> {
    pub(crate) count: u64,
    pub(crate) tool: &'a str,
    pub(crate) out: &'a Path,
    pub(crate) interval: Duration,
    pub(crate) timeout_ms: Option<u64>,
}

/// The `can_use_tool` request number `i`, shaped like the real CLI's.
fn request(id: &str, tool: &str, i: u64) -> Value {
    json!({"type": "control_request", "request_id": id, "request": {
        "subtype": "can_use_tool", "tool_name": tool, "display_name": tool,
        "input": {"command": "true", "description": "rtt"}, "description": "rtt",
        "permission_suggestions": [], "tool_use_id": format!("toolu_rtt_{i}")}})
}

/// Runs the round trips and writes the results (see [`write`]). EOF ends
/// the step early (results so far are written, then exit 0); a reply that
/// does not come within `timeout_ms` ends the process with status 4.
pub(crate) fn run(input: &mut Input, p: &Params<'_>) {
    let mut nanos = Vec::with_capacity(usize::try_from(p.count).unwrap_or(0));
    let mut errors = 0u64;
    let pid = std::process::id();
    if !p.interval.is_zero() {
        // Many fakes started together must not ask in lockstep: the first
        // request waits a pid-derived fraction of the interval.
        let interval_ns = u64::try_from(p.interval.as_nanos()).unwrap_or(u64::MAX);
        let offset = u64::from(pid).wrapping_mul(2_654_435_761) % interval_ns.max(1);
        std::thread::sleep(Duration::from_nanos(offset));
    }
    for i in 0..p.count {
        if i > 0 && !p.interval.is_zero() {
            std::thread::sleep(p.interval);
        }
        let id = format!("rtt-{pid}-{i}");
        let frame = request(&id, p.tool, i);
        let mut line = frame.to_string().into_bytes();
        line.push(b'\n');
        let is_reply = |v: &Value| {
            v.get("type").and_then(Value::as_str) == Some("control_response")
                && v.pointer("/response/request_id").and_then(Value::as_str) == Some(id.as_str())
        };
        let started = Instant::now();
        output::stdout_bytes(&line);
        let deadline = p.timeout_ms.map(|ms| started + Duration::from_millis(ms));
        match input.wait_for(deadline, false, &is_reply) {
            Wait::Matched(v) => {
                nanos.push(started.elapsed().as_nanos());
                if v.pointer("/response/subtype").and_then(Value::as_str) != Some("success") {
                    errors += 1;
                }
            }
            Wait::Eof => {
                write(p.out, &nanos);
                std::process::exit(0);
            }
            Wait::Timeout => {
                write(p.out, &nanos);
                output::note(&format!(
                    "permission_rtt: no reply to {id} within {} ms",
                    p.timeout_ms.unwrap_or(0)
                ));
                std::process::exit(EXIT_TIMEOUT);
            }
        }
    }
    if errors > 0 {
        output::note(&format!("permission_rtt: {errors} error replies"));
    }
    write(p.out, &nanos);
}

/// Writes one round trip per line, in nanoseconds, atomically (a reader
/// never sees half the file).
fn write(path: &Path, nanos: &[u128]) {
    let mut text = String::with_capacity(nanos.len() * 8);
    for n in nanos {
        let _ = writeln!(text, "{n}");
    }
    if let Err(e) = super::write_atomic(path, text.as_bytes()) {
        output::note(&format!(
            "permission_rtt: writing {} failed: {e}",
            path.display()
        ));
        std::process::exit(EXIT_IO);
    }
}
