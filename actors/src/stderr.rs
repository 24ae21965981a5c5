//! A bounded ring of the CLI's last stderr lines.
//!
//! The CLI's stderr must be drained continuously (a full pipe blocks the
//! CLI), yet a flood must not grow memory: [`drain_into`] reads as fast as it
//! can and keeps only the last `max_lines` lines, each cut at
//! `max_line_bytes`. The tail ends up in error reports.
//!
//! ```
//! # use claude_agent_actors::stderr::StderrRing;
//! let ring = StderrRing::new(2, 8);
//! for line in ["one", "two", "three and more"] {
//!     ring.push_line(line.as_bytes());
//! }
//! assert_eq!(ring.tail(), ["two", "three an"]);
//! assert_eq!(ring.total_lines(), 3);
//! ```

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::io::{AsyncRead, AsyncReadExt};

/// Default number of stderr lines kept.
pub const DEFAULT_STDERR_LINES: usize = 100;
/// Default cap on one kept stderr line, in bytes.
pub const DEFAULT_STDERR_LINE_BYTES: usize = 4096;

/// The last N lines of the CLI's stderr (each line capped at M bytes).
///
/// Cheap to clone: clones share the same ring.
#[derive(Clone, Debug)]
pub struct StderrRing {
    inner: Arc<Mutex<Ring>>,
}

#[derive(Debug)]
struct Ring {
    lines: VecDeque<String>,
    max_lines: usize,
    max_line_bytes: usize,
    total: u64,
}

impl StderrRing {
    /// A ring keeping `max_lines` lines of at most `max_line_bytes` bytes.
    pub fn new(max_lines: usize, max_line_bytes: usize) -> Self {
        let ring = Ring {
            // Grows with the first lines: most CLIs write little or nothing.
            lines: VecDeque::new(),
            max_lines,
            max_line_bytes,
            total: 0,
        };
        Self {
            inner: Arc::new(Mutex::new(ring)),
        }
    }

    // The lock is only held for a push or a copy, never across an await; a
    // poisoned ring is still a valid ring.
    fn lock(&self) -> MutexGuard<'_, Ring> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends one line (without its `\n`), cut at the byte cap and decoded
    /// as lossy UTF-8; the oldest line falls out when the ring is full.
    pub fn push_line(&self, line: &[u8]) {
        let mut ring = self.lock();
        ring.total += 1;
        if ring.max_lines == 0 {
            return;
        }
        let cut = &line[..line.len().min(ring.max_line_bytes)];
        let text = String::from_utf8_lossy(cut).into_owned();
        if ring.lines.len() == ring.max_lines {
            ring.lines.pop_front();
        }
        ring.lines.push_back(text);
    }

    /// The kept lines, oldest first.
    pub fn tail(&self) -> Vec<String> {
        self.lock().lines.iter().cloned().collect()
    }

    /// The kept lines joined with `'\n'`.
    pub fn tail_string(&self) -> String {
        let ring = self.lock();
        let mut out = String::new();
        for (i, line) in ring.lines.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(line);
        }
        out
    }

    /// How many lines were ever pushed (kept or not).
    pub fn total_lines(&self) -> u64 {
        self.lock().total
    }

    fn max_line_bytes(&self) -> usize {
        self.lock().max_line_bytes
    }
}

impl Default for StderrRing {
    fn default() -> Self {
        Self::new(DEFAULT_STDERR_LINES, DEFAULT_STDERR_LINE_BYTES)
    }
}

/// The stderr read buffer of a quiet CLI.
const SMALL_READ: usize = 256;
/// The read buffer once the CLI wrote a burst.
const BULK_READ: usize = 8 * 1024;

/// A per-line callback for [`drain_into`].
pub type OnLine = Arc<dyn Fn(&str) + Send + Sync>;

/// Drains `reader` into `ring` until EOF.
///
/// Reads as fast as the reader delivers, so the writer never blocks on a full
/// pipe; memory is bounded by one read buffer plus one capped line. A line
/// longer than the ring's cap is truncated, the rest skipped unbuffered. A
/// final line without `\n` is kept too. `on_line`, if given, sees every
/// (truncated) line as it arrives.
pub async fn drain_into(
    mut reader: impl AsyncRead + Unpin,
    ring: StderrRing,
    on_line: Option<OnLine>,
) -> std::io::Result<()> {
    let cap = ring.max_line_bytes();
    // Small while the CLI is quiet (most sessions, most of the time): an
    // idle session should not hold 8 KiB per pipe. A read that fills the
    // buffer means a burst; grow once to the bulk size.
    let mut chunk = vec![0u8; SMALL_READ];
    let mut line: Vec<u8> = Vec::new();
    let emit = |line: &mut Vec<u8>| {
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        line.truncate(cap);
        ring.push_line(line);
        if let Some(cb) = &on_line {
            // A panicking callback must not end the drain: the CLI would
            // then block (or die of SIGPIPE) on its next stderr write.
            let text = String::from_utf8_lossy(line);
            let call = std::panic::AssertUnwindSafe(|| cb(&text));
            if std::panic::catch_unwind(call).is_err() {
                tracing::warn!("stderr callback panicked");
            }
        }
        line.clear();
    };
    loop {
        let n = match reader.read(&mut chunk).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let grow = n == chunk.len() && chunk.len() < BULK_READ;
        let mut rest = &chunk[..n];
        while !rest.is_empty() {
            let (piece, done) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], i + 1),
                None => (rest, rest.len()),
            };
            // Keep one byte past the cap so a trailing '\r' can be told apart.
            let room = (cap + 1).saturating_sub(line.len());
            line.extend_from_slice(&piece[..piece.len().min(room)]);
            if done > piece.len() {
                emit(&mut line);
            }
            rest = &rest[done..];
        }
        if grow {
            chunk.resize(BULK_READ, 0);
        }
    }
    if !line.is_empty() {
        emit(&mut line);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[tokio::test]
    async fn drains_lines_caps_length_and_keeps_last() {
        let ring = StderrRing::new(3, 5);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        let cb: OnLine = Arc::new(move |l: &str| seen2.lock().unwrap().push(l.to_owned()));
        let long = "x".repeat(100_000);
        let input = format!("a\r\nbb\n{long}\nccc\nddd\ne");
        drain_into(input.as_bytes(), ring.clone(), Some(cb))
            .await
            .unwrap();
        assert_eq!(ring.tail(), ["ccc", "ddd", "e"]);
        assert_eq!(ring.total_lines(), 6);
        assert_eq!(ring.tail_string(), "ccc\nddd\ne");
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0], "a");
        assert_eq!(seen[2], "xxxxx");
    }

    #[test]
    fn zero_lines_counts_but_keeps_nothing() {
        let ring = StderrRing::new(0, 10);
        ring.push_line(b"x");
        assert!(ring.tail().is_empty());
        assert_eq!(ring.total_lines(), 1);
    }

    #[test]
    fn lossy_utf8() {
        let ring = StderrRing::new(1, 100);
        ring.push_line(&[b'o', 0xff, b'k']);
        assert_eq!(ring.tail(), ["o\u{fffd}k"]);
    }
}
