//! Framing: line boundaries across reads, CRLF, blank lines, limits, EOF,
//! and bounded memory for huge lines (async and blocking readers agree).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::io::Read;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use claude_agent_actors::framing::{Line, LineReader, PREFIX_KEEP, SyncLineReader};
use tokio::io::{AsyncRead, ReadBuf};

/// Yields the given chunks, at most one per read call.
struct Chunks(VecDeque<Vec<u8>>);

impl Chunks {
    fn new(chunks: Vec<Vec<u8>>) -> Self {
        // An empty read means EOF, so empty chunks are dropped.
        Self(chunks.into_iter().filter(|c| !c.is_empty()).collect())
    }

    fn next_into(&mut self, out: &mut [u8]) -> usize {
        let Some(mut chunk) = self.0.pop_front() else {
            return 0;
        };
        let n = chunk.len().min(out.len());
        out[..n].copy_from_slice(&chunk[..n]);
        if n < chunk.len() {
            self.0.push_front(chunk.split_off(n));
        }
        n
    }
}

impl AsyncRead for Chunks {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = self.next_into(buf.initialize_unfilled());
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl Read for Chunks {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        Ok(self.next_into(out))
    }
}

/// Reads every line with both readers and checks they agree.
fn lines(chunks: Vec<Vec<u8>>, max: usize) -> Vec<Line> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let async_lines = rt.block_on(async {
        let mut r = LineReader::new(Chunks::new(chunks.clone()), max);
        let mut out = Vec::new();
        while let Some(line) = r.next_line().await.unwrap() {
            out.push(line);
        }
        out
    });
    let mut r = SyncLineReader::new(Chunks::new(chunks), max);
    let mut sync_lines = Vec::new();
    while let Some(line) = r.next_line().unwrap() {
        sync_lines.push(line);
    }
    assert_eq!(
        async_lines, sync_lines,
        "async and blocking readers disagree"
    );
    async_lines
}

fn complete(s: &str) -> Line {
    Line::Complete(Bytes::copy_from_slice(s.as_bytes()))
}

#[test]
fn lines_split_across_reads_at_every_boundary() {
    let input = b"{\"a\":1}\r\n\n\r\n{\"b\":22}\nlast";
    let expected = vec![
        complete("{\"a\":1}"),
        complete("{\"b\":22}"),
        Line::TruncatedAtEof("last".into()),
    ];
    for cut in 0..=input.len() {
        let chunks = vec![input[..cut].to_vec(), input[cut..].to_vec()];
        assert_eq!(lines(chunks, 64), expected, "split at {cut}");
    }
    let bytewise = input.iter().map(|b| vec![*b]).collect();
    assert_eq!(lines(bytewise, 64), expected);
}

#[test]
fn crlf_and_blank_lines() {
    let got = lines(vec![b"\n\r\n\n a \r\n\r\nb\n\n".to_vec()], 64);
    assert_eq!(got, vec![complete(" a "), complete("b")]);
}

#[test]
fn empty_stream_and_final_newline() {
    assert_eq!(lines(vec![], 64), vec![]);
    assert_eq!(lines(vec![b"x\n".to_vec()], 64), vec![complete("x")]);
}

#[test]
fn exactly_at_limit_is_complete_one_more_is_oversized() {
    let max = 10;
    let at = "a".repeat(max);
    let over = "b".repeat(max + 1);
    let input = format!("{at}\n{at}\r\n{over}\n{at}");
    for cut in 0..=input.len() {
        let bytes = input.as_bytes();
        let got = lines(vec![bytes[..cut].to_vec(), bytes[cut..].to_vec()], max);
        let expected = vec![
            complete(&at),
            complete(&at),
            Line::Oversized {
                prefix: over.clone().into(),
                len: (max + 1) as u64,
            },
            Line::TruncatedAtEof(at.clone().into()),
        ];
        assert_eq!(got, expected, "split at {cut}");
    }
}

#[test]
fn truncated_oversized_last_line_is_oversized() {
    let big = "z".repeat(5000);
    let got = lines(vec![b"ok\n".to_vec(), big.as_bytes().to_vec()], 100);
    assert_eq!(got[0], complete("ok"));
    match &got[1] {
        Line::Oversized { prefix, len } => {
            assert_eq!(*len, 5000);
            assert_eq!(prefix.len(), PREFIX_KEEP);
        }
        other => panic!("expected oversized, got {other:?}"),
    }
    assert_eq!(got.len(), 2);
}

#[test]
fn oversized_prefix_keeps_first_bytes_even_with_a_small_limit() {
    let line: String = (0..6000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    let input = format!("{line}\nnext\n").into_bytes();
    let chunks = input.chunks(7).map(<[u8]>::to_vec).collect();
    let got = lines(chunks, 16);
    assert_eq!(
        got,
        vec![
            Line::Oversized {
                prefix: line.as_bytes()[..PREFIX_KEEP].to_vec().into(),
                len: 6000
            },
            complete("next"),
        ]
    );
}

/// An endless-looking source: `len` bytes of `x`, a newline, then a small line.
struct HugeLine {
    left: u64,
    tail: &'static [u8],
}

impl HugeLine {
    fn fill(&mut self, out: &mut [u8]) -> usize {
        if self.left > 0 {
            let n = (self.left.min(out.len() as u64)) as usize;
            out[..n].fill(b'x');
            self.left -= n as u64;
            return n;
        }
        let n = self.tail.len().min(out.len());
        out[..n].copy_from_slice(&self.tail[..n]);
        self.tail = &self.tail[n..];
        n
    }
}

impl AsyncRead for HugeLine {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = self.fill(buf.initialize_unfilled());
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl Read for HugeLine {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        Ok(self.fill(out))
    }
}

const HUNDRED_MB: u64 = 100 * 1024 * 1024;
const ONE_MIB: usize = 1024 * 1024;

fn check_huge(first: Line, second: Line) {
    match first {
        Line::Oversized { prefix, len } => {
            assert_eq!(len, HUNDRED_MB);
            assert_eq!(prefix.len(), PREFIX_KEEP);
        }
        other => panic!("expected oversized, got {other:?}"),
    }
    assert_eq!(second, complete("{\"ok\":true}"));
}

#[tokio::test]
async fn hundred_mb_line_with_one_mib_limit_stays_bounded() {
    let src = HugeLine {
        left: HUNDRED_MB,
        tail: b"\n{\"ok\":true}\n",
    };
    let mut r = LineReader::new(src, ONE_MIB);
    let first = r.next_line().await.unwrap().unwrap();
    let second = r.next_line().await.unwrap().unwrap();
    check_huge(first, second);
    assert_eq!(r.next_line().await.unwrap(), None);
    assert_eq!(r.bytes_read(), HUNDRED_MB + 13);
    assert!(
        r.peak_buffer_capacity() <= ONE_MIB + 64 * 1024,
        "peak {}",
        r.peak_buffer_capacity()
    );
}

#[test]
fn hundred_mb_line_blocking_reader_stays_bounded() {
    let src = HugeLine {
        left: HUNDRED_MB,
        tail: b"\n{\"ok\":true}\n",
    };
    let mut r = SyncLineReader::new(src, ONE_MIB);
    let first = r.next_line().unwrap().unwrap();
    let second = r.next_line().unwrap().unwrap();
    check_huge(first, second);
    assert!(
        r.peak_buffer_capacity() <= ONE_MIB + 64 * 1024,
        "peak {}",
        r.peak_buffer_capacity()
    );
}

#[tokio::test]
async fn buffer_shrinks_back_after_one_big_legal_line() {
    let src = HugeLine {
        left: 3 * ONE_MIB as u64,
        tail: b"\n{}\n{}\n",
    };
    let mut r = LineReader::new(src, 4 * ONE_MIB);
    match r.next_line().await.unwrap().unwrap() {
        Line::Complete(b) => assert_eq!(b.len(), 3 * ONE_MIB),
        other => panic!("expected a complete line, got {other:?}"),
    }
    assert!(r.peak_buffer_capacity() >= 3 * ONE_MIB);
    assert_eq!(r.next_line().await.unwrap(), Some(complete("{}")));
    assert_eq!(r.next_line().await.unwrap(), Some(complete("{}")));
    assert_eq!(r.next_line().await.unwrap(), None);
    assert!(
        r.buffer_capacity() <= 64 * 1024,
        "capacity {}",
        r.buffer_capacity()
    );
}

#[tokio::test]
async fn idle_reader_starts_small() {
    let (_tx, rx) = tokio::io::duplex(64);
    let r = LineReader::new(rx, claude_agent_actors::framing::DEFAULT_MAX_LINE_BYTES);
    assert!(r.buffer_capacity() <= 16 * 1024);
}

#[tokio::test]
async fn next_line_is_cancel_safe() {
    use tokio::io::AsyncWriteExt;
    let (mut tx, rx) = tokio::io::duplex(64);
    let mut r = LineReader::new(rx, 1024);
    tx.write_all(b"{\"par").await.unwrap();
    // Polled once: reads the partial line, then is dropped while pending.
    assert!(
        futures::FutureExt::now_or_never(r.next_line()).is_none(),
        "no complete line yet"
    );
    tx.write_all(b"tial\":1}\n").await.unwrap();
    assert_eq!(
        r.next_line().await.unwrap(),
        Some(complete("{\"partial\":1}"))
    );
}

#[test]
fn a_limit_below_the_default_buffer_reads_long_input() {
    // Regression: a limit under the reader's default buffer size used to
    // invert a clamp and panic on the first refill.
    let mut input = Vec::new();
    for _ in 0..2_000 {
        input.extend_from_slice(b"{\"a\":1}\nnot-a-frame-but-long-enough-to-count\n");
    }
    let mut r = SyncLineReader::new(&input[..], 100);
    let mut n = 0;
    while let Some(line) = r.next_line().unwrap() {
        assert!(matches!(line, Line::Complete(_)));
        n += 1;
    }
    assert_eq!(n, 4_000);
}

#[test]
fn line_numbers_count_blank_and_skipped_lines() {
    let input = b"a\n\n\nbbbbbbbbbbbbbbbbbbbb\r\n\nc\nd";
    let mut r = SyncLineReader::new(&input[..], 8);
    let mut seen = Vec::new();
    while let Some(line) = r.next_line().unwrap() {
        let tag = match line {
            Line::Complete(b) => String::from_utf8(b.to_vec()).unwrap(),
            Line::Oversized { len, .. } => format!("oversized {len}"),
            Line::TruncatedAtEof(b) => format!("eof {}", String::from_utf8_lossy(&b)),
        };
        seen.push((r.line_number(), tag));
    }
    assert_eq!(
        seen,
        vec![
            (1, "a".to_owned()),
            (4, "oversized 20".to_owned()),
            (6, "c".to_owned()),
            (7, "eof d".to_owned()),
        ]
    );
}
