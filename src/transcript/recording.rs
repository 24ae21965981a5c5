//! Raw-frame recording: both directions of the wire, timestamped, as NDJSON.
//!
//! One record per frame: `{"t_ms": <ms since the recorder started>, "dir":
//! "in"|"out", "line": <the frame as JSON>}`, or `"raw": "<text>"` instead
//! of `line` when the frame is not JSON. Times come from a monotonic clock
//! and are taken under the writer's lock, so they never decrease down the
//! file.

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, LineWriter, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Direction, RecordingError};

/// One recorded frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedFrame {
    /// Milliseconds since the recorder started.
    pub t_ms: u64,
    /// `in` (from the CLI) or `out` (to the CLI).
    pub dir: Direction,
    /// The frame.
    #[serde(flatten)]
    pub payload: FramePayload,
}

/// A recorded frame's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FramePayload {
    /// A JSON frame (key order is not kept).
    #[serde(rename = "line")]
    Json(Value),
    /// A line that is not JSON, as (lossy UTF-8) text.
    #[serde(rename = "raw")]
    Raw(String),
}

impl RecordedFrame {
    /// A record for one wire line (a trailing `\n` or `\r\n` is dropped).
    pub fn from_line(t_ms: u64, dir: Direction, line: &[u8]) -> Self {
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let payload = match serde_json::from_slice::<Value>(line) {
            Ok(v) => FramePayload::Json(v),
            Err(_) => FramePayload::Raw(String::from_utf8_lossy(line).into_owned()),
        };
        Self { t_ms, dir, payload }
    }

    /// The frame as JSON, when it is JSON.
    pub fn json(&self) -> Option<&Value> {
        match &self.payload {
            FramePayload::Json(v) => Some(v),
            FramePayload::Raw(_) => None,
        }
    }
}

/// Writes a recording. Cheap to clone; clones share the writer and clock.
///
/// Each record is one `write` to a line-buffered writer: for a file that
/// is one small syscall per frame. A host recording to a slow sink should
/// give it a writer that hands records to a thread.
///
/// ```
/// use claude_agent::transcript::{read_recording_from, Direction, Recorder};
///
/// let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
/// # struct W(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
/// # impl std::io::Write for W {
/// #     fn write(&mut self, b: &[u8]) -> std::io::Result<usize> { self.0.lock().unwrap().write(b) }
/// #     fn flush(&mut self) -> std::io::Result<()> { Ok(()) }
/// # }
/// let rec = Recorder::new(W(buf.clone()));
/// rec.record_out(br#"{"type":"user"}"#).unwrap();
/// rec.record_in(b"not json\n").unwrap();
/// let text = buf.lock().unwrap().clone();
/// let frames = read_recording_from(&text[..]).unwrap();
/// assert_eq!(frames[0].dir, Direction::Outbound);
/// assert_eq!(frames[1].json(), None);
/// ```
#[derive(Clone)]
pub struct Recorder {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    start: Instant,
    out: LineWriter<Box<dyn Write + Send>>,
}

impl fmt::Debug for Recorder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Recorder").finish_non_exhaustive()
    }
}

impl Recorder {
    /// Records to `out`; the clock starts now.
    pub fn new(out: impl Write + Send + 'static) -> Self {
        Self {
            inner: Arc::new(Mutex::new(Inner {
                start: Instant::now(),
                out: LineWriter::new(Box::new(out)),
            })),
        }
    }

    /// Records to a new file at `path` (truncating an existing one).
    pub fn create(path: impl AsRef<Path>) -> Result<Self, RecordingError> {
        let path = path.as_ref();
        let file = File::create(path).map_err(|source| RecordingError::Open {
            path: path.to_owned(),
            source,
        })?;
        Ok(Self::new(file))
    }

    /// Records a line read from the CLI.
    pub fn record_in(&self, line: &[u8]) -> Result<(), RecordingError> {
        self.record(Direction::Inbound, line)
    }

    /// Records a line written to the CLI.
    pub fn record_out(&self, line: &[u8]) -> Result<(), RecordingError> {
        self.record(Direction::Outbound, line)
    }

    /// Records a line going `dir`.
    pub fn record(&self, dir: Direction, line: &[u8]) -> Result<(), RecordingError> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let t_ms = u64::try_from(inner.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let frame = RecordedFrame::from_line(t_ms, dir, line);
        let mut text = serde_json::to_vec(&frame).map_err(|e| RecordingError::Write(e.into()))?;
        text.push(b'\n');
        inner.out.write_all(&text).map_err(RecordingError::Write)
    }

    /// Flushes the writer.
    pub fn flush(&self) -> Result<(), RecordingError> {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        inner.out.flush().map_err(RecordingError::Write)
    }

    /// A wire tap for the runtime: records every line, logging (not
    /// returning) write errors so recording can never break a session.
    pub fn tap(&self) -> impl Fn(Direction, &[u8]) + Send + Sync + 'static {
        let rec = self.clone();
        move |dir, line| {
            if let Err(e) = rec.record(dir, line) {
                tracing::warn!(
                    error = &e as &dyn std::error::Error,
                    "raw-frame recording failed"
                );
            }
        }
    }
}

/// Reads a recording file.
pub fn read_recording(path: impl AsRef<Path>) -> Result<Vec<RecordedFrame>, RecordingError> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|source| RecordingError::Open {
        path: path.to_owned(),
        source,
    })?;
    read_recording_from(BufReader::new(file))
}

/// Reads a recording from any reader; blank lines are skipped.
pub fn read_recording_from(reader: impl BufRead) -> Result<Vec<RecordedFrame>, RecordingError> {
    let mut frames = Vec::new();
    for (i, line) in reader.lines().enumerate() {
        let line_no = i + 1;
        let line = line.map_err(|source| RecordingError::Read { line_no, source })?;
        if line.trim().is_empty() {
            continue;
        }
        let frame = serde_json::from_str(&line).map_err(|source| RecordingError::Malformed {
            line_no,
            prefix: line.chars().take(120).collect(),
            source,
        })?;
        frames.push(frame);
    }
    Ok(frames)
}
