//! Reading stdin one line at a time, only while a step asks for it: a fake
//! that is sleeping or hung must not drain the pipe, or hosts could never
//! observe a full stdin pipe. Every line is recorded, and control requests
//! matching an `auto` rule are answered wherever they arrive.

use serde_json::Value;
use std::fs::File;
use std::io::Write;
use std::time::Instant;

use super::steps::AutoRule;
use super::{frames, output, sys};

/// What a wait on stdin ended with.
#[derive(Debug)]
pub(crate) enum Wait {
    /// A line matching the predicate.
    Matched(Value),
    /// stdin reached EOF.
    Eof,
    /// The deadline passed.
    Timeout,
}

/// Buffered stdin plus the record file and the auto rules.
#[derive(Debug, Default)]
pub(crate) struct Input {
    buf: Vec<u8>,
    /// Bytes of `buf` before `start` are consumed (avoids shifting per line).
    start: usize,
    eof: bool,
    record: Option<File>,
    rules: Vec<AutoRule>,
}

impl Input {
    /// `record`: the file every received line is appended to.
    pub(crate) fn new(record: Option<File>) -> Self {
        Self {
            record,
            ..Self::default()
        }
    }

    /// Adds rules; later rules for the same subtype win.
    pub(crate) fn add_rules(&mut self, rules: Vec<AutoRule>) {
        self.rules.splice(0..0, rules.into_iter().rev());
    }

    /// Reads until a JSON line satisfies `want`, EOF, or `deadline`.
    /// Other lines are answered by an auto rule or skipped with a note
    /// (unless `quiet`).
    pub(crate) fn wait_for(
        &mut self,
        deadline: Option<Instant>,
        quiet: bool,
        want: &dyn Fn(&Value) -> bool,
    ) -> Wait {
        loop {
            let line = match self.next_line(deadline) {
                Ok(Some(line)) => line,
                Ok(None) => return Wait::Eof,
                Err(()) => return Wait::Timeout,
            };
            let Ok(value) = serde_json::from_slice::<Value>(&line) else {
                if !quiet {
                    output::note("skipped a stdin line that is not JSON");
                }
                continue;
            };
            if want(&value) {
                return Wait::Matched(value);
            }
            if self.auto_reply(&value) || quiet {
                continue;
            }
            let ty = value.get("type").and_then(Value::as_str).unwrap_or("?");
            output::note(&format!("skipped a stdin line of type {ty:?}"));
        }
    }

    /// Answers `value` if it is a control request an auto rule covers.
    fn auto_reply(&self, value: &Value) -> bool {
        if value.get("type").and_then(Value::as_str) != Some("control_request") {
            return false;
        }
        let subtype = value.pointer("/request/subtype").and_then(Value::as_str);
        let Some(rule) = self
            .rules
            .iter()
            .find(|r| Some(r.subtype.as_str()) == subtype)
        else {
            return false;
        };
        let id = value.get("request_id").cloned().unwrap_or(Value::Null);
        let reply = match (&rule.reply_error, &rule.reply) {
            (Some(msg), _) => frames::error(&id, msg),
            (None, reply) => frames::success(
                &id,
                reply
                    .clone()
                    .unwrap_or_else(|| Value::Object(Default::default())),
            ),
        };
        output::frame(&reply);
        true
    }

    /// The next line without its `\n`; `Ok(None)` at EOF, `Err` on timeout.
    /// A final unterminated line counts as a line.
    fn next_line(&mut self, deadline: Option<Instant>) -> Result<Option<Vec<u8>>, ()> {
        loop {
            let pending = &self.buf[self.start..];
            if let Some(pos) = pending.iter().position(|&b| b == b'\n') {
                let line = pending[..pos].to_vec();
                self.start += pos + 1;
                self.record(&line);
                return Ok(Some(line));
            }
            self.buf.drain(..self.start);
            self.start = 0;
            if self.eof {
                if self.buf.is_empty() {
                    return Ok(None);
                }
                let line = std::mem::take(&mut self.buf);
                self.record(&line);
                return Ok(Some(line));
            }
            let timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            match sys::wait_stdin_readable(timeout) {
                Ok(true) => {}
                Ok(false) => return Err(()),
                Err(e) => {
                    output::note(&format!("polling stdin failed: {e}"));
                    self.eof = true;
                    continue;
                }
            }
            let mut chunk = [0u8; 64 * 1024];
            match sys::read_stdin(&mut chunk) {
                Ok(0) => self.eof = true,
                Ok(n) => self.buf.extend_from_slice(&chunk[..n]),
                Err(e) => {
                    output::note(&format!("reading stdin failed: {e}"));
                    self.eof = true;
                }
            }
        }
    }

    /// Appends `line` + `\n` to the record file, flushed at once.
    fn record(&mut self, line: &[u8]) {
        if let Some(file) = &mut self.record {
            let ok = file.write_all(line).and_then(|()| file.write_all(b"\n"));
            if let Err(e) = ok.and_then(|()| file.flush()) {
                output::note(&format!("recording stdin failed: {e}"));
            }
        }
    }
}
