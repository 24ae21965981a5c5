//! Building scripts for the fake CLI from Rust.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::path::Path;

/// Which output stream `flood` writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stream {
    /// The fake CLI's stdout (the protocol stream).
    Stdout,
    /// The fake CLI's stderr.
    Stderr,
}

/// What the fake CLI does after the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnEnd {
    /// Keep reading stdin (answering `auto` rules) until EOF, then exit 0.
    #[default]
    WaitEof,
    /// Exit 0 at once.
    Exit,
}

/// A script for the fake CLI, built step by step. Each method appends one
/// step; [`Script::step`] appends any raw step, for ops or options the
/// builder does not cover.
///
/// ```
/// use claude_agent_testkit::Script;
/// use serde_json::json;
///
/// let script = Script::new()
///     .expect_initialize()
///     .emit(json!({"type": "system", "subtype": "init", "session_id": "s"}))
///     .crash("SEGV");
/// assert!(script.to_json().contains(r#""op":"crash""#));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The steps, in order, as JSON objects with an `op` field.
    pub steps: Vec<Value>,
    /// What happens after the last step.
    #[serde(default)]
    pub on_end: OnEnd,
}

fn path_str(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

impl Script {
    /// An empty script (it waits for stdin EOF, then exits 0).
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends any step, e.g. `json!({"op": "expect", "type": "user", "timeout_ms": 500})`.
    pub fn step(mut self, step: Value) -> Self {
        self.steps.push(step);
        self
    }

    /// Waits for the `initialize` control request and answers it with the
    /// default server info.
    pub fn expect_initialize(self) -> Self {
        self.expect("control_request", Some("initialize"))
    }

    /// Waits for the `initialize` control request and answers with `reply`.
    pub fn expect_initialize_reply(self, reply: Value) -> Self {
        self.expect_control("initialize", reply)
    }

    /// Waits for a line of type `type_` (and, for a control request, of
    /// request subtype `subtype`). Only `initialize` gets an automatic reply.
    pub fn expect(self, type_: &str, subtype: Option<&str>) -> Self {
        let mut step = json!({"op": "expect", "type": type_});
        if let Some(s) = subtype {
            step["subtype"] = s.into();
        }
        self.step(step)
    }

    /// Waits for a control request of `subtype` and answers it with success
    /// carrying `reply` and the request's own `request_id`.
    pub fn expect_control(self, subtype: &str, reply: Value) -> Self {
        self.step(json!({"op": "expect", "type": "control_request",
            "subtype": subtype, "reply": reply}))
    }

    /// Reads (and records) stdin until EOF.
    pub fn expect_eof(self) -> Self {
        self.step(json!({"op": "expect_eof"}))
    }

    /// Writes `frame` as one line of JSON.
    pub fn emit(self, frame: Value) -> Self {
        self.step(json!({"op": "emit", "frame": frame}))
    }

    /// Writes `data` exactly, with no newline added.
    pub fn emit_raw(self, data: &str) -> Self {
        self.step(json!({"op": "emit_raw", "data": data}))
    }

    /// Writes every line of an NDJSON file (e.g. a recorded transcript).
    pub fn emit_file(self, path: impl AsRef<Path>) -> Self {
        self.step(json!({"op": "emit_file", "path": path_str(path.as_ref())}))
    }

    /// Writes one line of exactly `bytes` bytes (newline included), built
    /// in chunks; a `can_use_tool` control request when `request_id` is set,
    /// an assistant message otherwise.
    pub fn emit_big_line(self, bytes: u64, request_id: Option<&str>) -> Self {
        let mut step = json!({"op": "emit_big_line", "bytes": bytes});
        if let Some(id) = request_id {
            step["request_id"] = id.into();
        }
        self.step(step)
    }

    /// Writes `line` + `\n` to `stream`, `count` times, as fast as possible.
    pub fn flood(self, stream: Stream, line: &str, count: u64) -> Self {
        self.step(json!({"op": "flood", "stream": stream, "line": line, "count": count}))
    }

    /// Sleeps `ms` milliseconds without reading stdin.
    pub fn sleep_ms(self, ms: u64) -> Self {
        self.step(json!({"op": "sleep", "ms": ms}))
    }

    /// Writes `text` + `\n` to stderr.
    pub fn stderr(self, text: &str) -> Self {
        self.step(json!({"op": "stderr", "text": text}))
    }

    /// Creates or truncates `path` with `content`, fsynced (a marker a test
    /// can wait for).
    pub fn write_file(self, path: impl AsRef<Path>, content: &str) -> Self {
        self.step(json!({"op": "write_file", "path": path_str(path.as_ref()), "content": content}))
    }

    /// Exits with `code`.
    pub fn exit(self, code: i32) -> Self {
        self.step(json!({"op": "exit", "code": code}))
    }

    /// Dies by `signal` (`"SEGV"`, `"ABRT"`, `"KILL"`, `"TERM"`, ...).
    pub fn crash(self, signal: &str) -> Self {
        self.step(json!({"op": "crash", "signal": signal}))
    }

    /// Ignores `signal` (`"TERM"`, `"INT"`, `"HUP"`) from now on.
    pub fn ignore_signal(self, signal: &str) -> Self {
        self.step(json!({"op": "ignore_signal", "signal": signal}))
    }

    /// Stops doing anything, forever: no reads, no exit on EOF.
    pub fn hang(self) -> Self {
        self.step(json!({"op": "hang"}))
    }

    /// Starts a hanging child process in the same process group, with null
    /// stdio, writes its pid to `pid_file`, and does not wait for it.
    pub fn spawn_grandchild(self, pid_file: impl AsRef<Path>) -> Self {
        self.step(json!({"op": "spawn_grandchild", "pid_file": path_str(pid_file.as_ref())}))
    }

    /// Closes stdout (the host sees EOF) and carries on with the next steps.
    pub fn close_stdout(self) -> Self {
        self.step(json!({"op": "close_stdout"}))
    }

    /// From now on, answers any control request of `subtype` with `reply`,
    /// whichever step is reading stdin.
    pub fn auto_reply(self, subtype: &str, reply: Value) -> Self {
        self.step(json!({"op": "auto", "rules": [{"subtype": subtype, "reply": reply}]}))
    }

    /// Waits for the next user message, then emits `system/init`, an
    /// assistant message with `text`, and a successful `result`.
    pub fn turn(self, text: &str) -> Self {
        self.step(json!({"op": "turn", "text": text}))
    }

    /// Like [`Script::turn`], repeated until stdin EOF.
    pub fn loop_turns(self, text: &str) -> Self {
        self.step(json!({"op": "loop_turns", "text": text}))
    }

    /// Sends `count` `can_use_tool` requests for `tool`, one at a time,
    /// `interval_ms` apart, and writes each round trip (request written ->
    /// matching `control_response` read), in nanoseconds, one per line, to
    /// `out` once done.
    pub fn permission_rtt(
        self,
        count: u64,
        tool: &str,
        out: impl AsRef<Path>,
        interval_ms: u64,
    ) -> Self {
        self.step(json!({"op": "permission_rtt", "count": count, "tool": tool,
            "out": path_str(out.as_ref()), "interval_ms": interval_ms}))
    }

    /// Exits 0 right after the last step instead of waiting for stdin EOF.
    pub fn on_end_exit(mut self) -> Self {
        self.on_end = OnEnd::Exit;
        self
    }

    /// The script as JSON, as the fake CLI reads it.
    pub fn to_json(&self) -> String {
        // Serialising Values and unit enums cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn every_step() -> Script {
        let p = PathBuf::from("/tmp/x");
        Script::new()
            .step(json!({"op": "expect", "type": "user", "timeout_ms": 5}))
            .expect_initialize()
            .expect_initialize_reply(json!({"commands": []}))
            .expect("control_request", Some("interrupt"))
            .expect_control("set_model", json!({}))
            .expect_eof()
            .emit(json!({"type": "x"}))
            .emit_raw("raw")
            .emit_file(&p)
            .emit_big_line(100, Some("id"))
            .emit_big_line(100, None)
            .flood(Stream::Stderr, "l", 3)
            .sleep_ms(1)
            .stderr("e")
            .write_file(&p, "c")
            .exit(3)
            .crash("SEGV")
            .ignore_signal("TERM")
            .hang()
            .spawn_grandchild(&p)
            .close_stdout()
            .auto_reply("interrupt", json!({}))
            .turn("t")
            .loop_turns("l")
            .permission_rtt(2, "Bash", &p, 0)
            .on_end_exit()
    }

    #[test]
    fn to_json_round_trips() {
        let script = every_step();
        let back: Script = serde_json::from_str(&script.to_json()).unwrap();
        assert_eq!(back, script);
        assert_eq!(back.on_end, OnEnd::Exit);
        assert_eq!(back.steps.len(), 25);
    }

    #[test]
    fn every_builder_step_is_accepted_by_the_fake_cli() {
        let parsed = crate::cli::parse_script(&every_step().to_json()).unwrap();
        assert_eq!(parsed, 25);
        assert!(crate::cli::parse_script(r#"[{"op":"nope"}]"#).is_err());
    }
}
