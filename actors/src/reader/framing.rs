//! Newline-delimited framing with a hard bound on line length.
//!
//! The CLI speaks NDJSON on stdout. A misbehaving CLI can print a line of any
//! length, so the readers here never buffer more than `max_line_bytes` (plus
//! one read's worth of slack): a line past the limit is discarded chunk by
//! chunk as it streams in, keeping only its first [`PREFIX_KEEP`] bytes for
//! diagnostics. Memory follows: a line of any length costs at most the limit
//! plus one read buffer (for limits of 1 MiB and up; a buffer jumps to the
//! full limit, whose untouched pages cost nothing, rather than double by
//! copying). Both readers share one scanner ([`LineReader`] for async
//! streams, [`SyncLineReader`] for files read by the `replay` command), so the
//! two cannot disagree on what a line is.
//!
//! ```
//! # use claude_agent_actors::framing::{Line, SyncLineReader};
//! let mut r = SyncLineReader::new(&b"{\"a\":1}\r\n\n{\"b\":2"[..], 1024);
//! assert_eq!(r.next_line().unwrap(), Some(Line::Complete("{\"a\":1}".into())));
//! assert_eq!(r.next_line().unwrap(), Some(Line::TruncatedAtEof("{\"b\":2".into())));
//! assert_eq!(r.next_line().unwrap(), None);
//! ```

use bytes::{Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt};

/// How many leading bytes of an oversized line are kept for diagnostics.
pub const PREFIX_KEEP: usize = 4096;
/// The default bound on one line (64 MiB): large tool results fit, a runaway
/// line does not exhaust memory.
pub const DEFAULT_MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// Initial buffer size: idle sessions stay small (a read burst grows it,
/// see `HOT_BUF`).
const DEFAULT_BUF: usize = 2 * 1024;
/// Never read into less free space than this.
const MIN_SPARE: usize = 1024;
/// A buffer larger than this is replaced by a fresh small one once drained.
const SHRINK_ABOVE: usize = 64 * 1024;
/// Buffer size while the input keeps coming faster than it is read (the
/// last read filled all the room it was given): one read per pipe-full
/// instead of per 8 KiB, so fewer syscalls and fewer, larger bursts.
const HOT_BUF: usize = 64 * 1024;
/// A line growing past this gets a buffer of the full limit at once
/// instead of doubling: growing by copying holds the old and the new buffer
/// together (1.5-2x the line), while a fresh allocation of the limit costs
/// only the pages written (the kernel maps the rest on first touch).
const JUMP_ABOVE: usize = 1024 * 1024;

/// One frame read from a newline-delimited stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// A complete line within the limit (without `\n` and a trailing `\r`).
    Complete(Bytes),
    /// A line longer than the limit: skipped without buffering it; `prefix`
    /// holds its first [`PREFIX_KEEP`] bytes, `len` its full length (the bytes
    /// before the `\n`).
    Oversized {
        /// The first [`PREFIX_KEEP`] bytes of the line.
        prefix: Bytes,
        /// The full length of the line in bytes.
        len: u64,
    },
    /// The stream ended in the middle of a line (no final `\n`).
    TruncatedAtEof(Bytes),
}

/// The state shared by the async and the blocking reader: everything except
/// the actual read call.
#[derive(Debug)]
struct Scanner {
    buf: BytesMut,
    /// `buf[..scanned]` is known to hold no `\n` (one pass over the bytes).
    scanned: usize,
    /// `Some` while skipping the rest of an oversized line.
    discard: Option<(BytesMut, u64)>,
    max: usize,
    bytes_read: u64,
    eof: bool,
    peak_capacity: usize,
    /// Newline terminators consumed so far (blank lines included).
    newlines: u64,
    /// 1-based number of the line last returned.
    last_line: u64,
    /// The last read filled all the room it was given: more is waiting.
    hot: bool,
}

impl Scanner {
    fn new(max: usize) -> Self {
        Self {
            buf: BytesMut::with_capacity(DEFAULT_BUF),
            scanned: 0,
            discard: None,
            max,
            bytes_read: 0,
            eof: false,
            peak_capacity: DEFAULT_BUF,
            newlines: 0,
            last_line: 0,
            hot: false,
        }
    }

    /// The next line already in the buffer, or at EOF the trailing partial one.
    fn next_buffered(&mut self) -> Option<Line> {
        loop {
            if let Some((prefix, len)) = &mut self.discard {
                let Some(i) = memchr::memchr(b'\n', &self.buf) else {
                    keep_prefix(prefix, &self.buf);
                    *len += self.buf.len() as u64;
                    self.buf.clear();
                    if self.eof {
                        self.last_line = self.newlines + 1;
                        return self.discard.take().map(oversized);
                    }
                    return None;
                };
                keep_prefix(prefix, &self.buf[..i]);
                *len += i as u64;
                let _ = self.buf.split_to(i + 1);
                self.newlines += 1;
                self.last_line = self.newlines;
                return self.discard.take().map(oversized);
            }
            let Some(i) = memchr::memchr(b'\n', &self.buf[self.scanned..]) else {
                self.scanned = self.buf.len();
                let limit = self.max.saturating_add(1);
                if self.buf.len() > limit
                    || (self.buf.len() == limit && self.buf.last() != Some(&b'\r'))
                {
                    // Too long already: stop buffering, keep only the prefix.
                    let mut prefix = BytesMut::new();
                    keep_prefix(&mut prefix, &self.buf);
                    self.discard = Some((prefix, self.buf.len() as u64));
                    self.buf.clear();
                    self.scanned = 0;
                    continue;
                }
                if self.eof && !self.buf.is_empty() {
                    self.scanned = 0;
                    self.last_line = self.newlines + 1;
                    let line = strip_cr(self.buf.split());
                    return match self.check_len(line) {
                        Line::Complete(b) if b.is_empty() => None,
                        Line::Complete(b) => Some(Line::TruncatedAtEof(b)),
                        other => Some(other),
                    };
                }
                return None;
            };
            let mut line = self.buf.split_to(self.scanned + i + 1);
            self.scanned = 0;
            line.truncate(line.len() - 1);
            let line = strip_cr(line);
            self.newlines += 1;
            if line.is_empty() {
                continue; // blank lines carry nothing
            }
            self.last_line = self.newlines;
            return Some(self.check_len(line));
        }
    }

    fn check_len(&self, line: BytesMut) -> Line {
        if line.len() > self.max {
            let len = line.len() as u64;
            let mut prefix = BytesMut::new();
            keep_prefix(&mut prefix, &line);
            Line::Oversized {
                prefix: prefix.freeze(),
                len,
            }
        } else {
            Line::Complete(line.freeze())
        }
    }

    /// Makes room for the next read without letting capacity run past
    /// `max + 2 + MIN_SPARE`, and gives a big idle buffer back. Returns the
    /// room offered to the read.
    fn prepare_read(&mut self) -> usize {
        let len = self.buf.len();
        let cap = self.buf.capacity();
        // Once the input slows down, a hot-sized buffer goes back too, so
        // an idle session keeps a small one.
        let big = if self.hot {
            SHRINK_ABOVE
        } else {
            2 * DEFAULT_BUF
        };
        let shrink = cap > big && len <= DEFAULT_BUF / 2;
        if cap - len >= MIN_SPARE && !shrink {
            return cap - len;
        }
        // A limit below the default buffer size must not invert the clamp.
        let ceiling = self.max.saturating_add(2 + MIN_SPARE).max(DEFAULT_BUF);
        let floor = if self.hot {
            HOT_BUF.min(ceiling)
        } else {
            DEFAULT_BUF
        };
        let target = if 2 * len > JUMP_ABOVE {
            ceiling
        } else {
            (2 * len).clamp(floor, ceiling)
        };
        // `with_capacity` allocates exactly; `reserve` would double.
        let mut fresh = BytesMut::with_capacity(target.max(len + MIN_SPARE));
        fresh.extend_from_slice(&self.buf);
        self.buf = fresh;
        self.peak_capacity = self.peak_capacity.max(self.buf.capacity());
        self.buf.capacity() - self.buf.len()
    }

    fn on_read(&mut self, n: usize, offered: usize) {
        self.hot = n > 0 && n >= offered;
        self.bytes_read += n as u64;
        if n == 0 {
            self.eof = true;
        }
    }
}

fn keep_prefix(prefix: &mut BytesMut, bytes: &[u8]) {
    let room = PREFIX_KEEP.saturating_sub(prefix.len());
    prefix.extend_from_slice(&bytes[..room.min(bytes.len())]);
}

fn oversized((prefix, len): (BytesMut, u64)) -> Line {
    Line::Oversized {
        prefix: prefix.freeze(),
        len,
    }
}

fn strip_cr(mut line: BytesMut) -> BytesMut {
    if line.last() == Some(&b'\r') {
        line.truncate(line.len() - 1);
    }
    line
}

/// Reads newline-delimited frames with a hard bound on line length.
///
/// Memory stays below `max_line_bytes` plus a few KiB whatever the input.
///
/// Cancellation: [`next_line`](Self::next_line) only changes state after a
/// read completes, so dropping its future loses no bytes (it is cancel-safe
/// in practice, though callers should not need to rely on it).
#[derive(Debug)]
pub struct LineReader<R> {
    inner: R,
    scanner: Scanner,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// Wraps `inner`; lines longer than `max_line_bytes` become
    /// [`Line::Oversized`].
    pub fn new(inner: R, max_line_bytes: usize) -> Self {
        Self {
            inner,
            scanner: Scanner::new(max_line_bytes),
        }
    }

    /// Next line, without the trailing `\n` (and a trailing `\r` stripped).
    /// Blank lines are skipped. `Ok(None)` at end of stream.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            if let Some(line) = self.scanner.next_buffered() {
                return Ok(Some(line));
            }
            if self.scanner.eof {
                return Ok(None);
            }
            let offered = self.scanner.prepare_read();
            let n = self.inner.read_buf(&mut self.scanner.buf).await?;
            self.scanner.on_read(n, offered);
        }
    }

    /// Total bytes read from the inner stream so far.
    pub fn bytes_read(&self) -> u64 {
        self.scanner.bytes_read
    }

    /// The 1-based number of the line last returned, counting blank lines
    /// (for diagnostics that point into a file).
    pub fn line_number(&self) -> u64 {
        self.scanner.last_line
    }

    /// Current capacity of the internal buffer, in bytes.
    pub fn buffer_capacity(&self) -> usize {
        self.scanner.buf.capacity()
    }

    /// The largest internal buffer capacity reached so far, in bytes.
    pub fn peak_buffer_capacity(&self) -> usize {
        self.scanner.peak_capacity
    }

    /// Gives back the inner stream (buffered bytes are lost).
    pub fn into_inner(self) -> R {
        self.inner
    }
}

/// The blocking twin of [`LineReader`], with the same semantics.
#[derive(Debug)]
pub struct SyncLineReader<R: std::io::Read> {
    inner: R,
    scanner: Scanner,
}

impl<R: std::io::Read> SyncLineReader<R> {
    /// Wraps `inner`; lines longer than `max` bytes become [`Line::Oversized`].
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner,
            scanner: Scanner::new(max),
        }
    }

    /// Next line, as [`LineReader::next_line`]. `Ok(None)` at end of stream.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        loop {
            if let Some(line) = self.scanner.next_buffered() {
                return Ok(Some(line));
            }
            if self.scanner.eof {
                return Ok(None);
            }
            let offered = self.scanner.prepare_read();
            let buf = &mut self.scanner.buf;
            let len = buf.len();
            buf.resize(buf.capacity(), 0); // within capacity: no reallocation
            let n = loop {
                match self.inner.read(&mut buf[len..]) {
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    other => break other,
                }
            };
            buf.truncate(len + *n.as_ref().unwrap_or(&0));
            self.scanner.on_read(n?, offered);
        }
    }

    /// Total bytes read from the inner stream so far.
    pub fn bytes_read(&self) -> u64 {
        self.scanner.bytes_read
    }

    /// The 1-based number of the line last returned, counting blank lines
    /// (for diagnostics that point into a file).
    pub fn line_number(&self) -> u64 {
        self.scanner.last_line
    }

    /// Current capacity of the internal buffer, in bytes.
    pub fn buffer_capacity(&self) -> usize {
        self.scanner.buf.capacity()
    }

    /// The largest internal buffer capacity reached so far, in bytes.
    pub fn peak_buffer_capacity(&self) -> usize {
        self.scanner.peak_capacity
    }
}

#[cfg(test)]
#[path = "framing_tests.rs"]
mod tests;
