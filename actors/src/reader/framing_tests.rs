//! Read sizing: big reads while the input keeps the buffer full, a small
//! buffer again once it slows down.

use super::*;

/// Serves `chunks` in order; one read never crosses a chunk boundary, so a
/// chunk smaller than the room offered is a short read.
struct Chunks(std::collections::VecDeque<Vec<u8>>);

impl std::io::Read for Chunks {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let Some(front) = self.0.front_mut() else {
            return Ok(0);
        };
        let n = out.len().min(front.len());
        out[..n].copy_from_slice(&front[..n]);
        front.drain(..n);
        if front.is_empty() {
            self.0.pop_front();
        }
        Ok(n)
    }
}

fn lines(n: usize) -> Vec<u8> {
    b"{\"type\":\"assistant\",\"n\":12345}\n".repeat(n)
}

fn drain(r: &mut SyncLineReader<Chunks>, count: usize) {
    for _ in 0..count {
        assert!(matches!(r.next_line().unwrap(), Some(Line::Complete(_))));
    }
}

#[test]
fn a_flood_is_read_in_big_reads_and_a_trickle_in_small_ones() {
    let flood = lines(10_000);
    let mut r = SyncLineReader::new(Chunks([flood].into()), DEFAULT_MAX_LINE_BYTES);
    drain(&mut r, 10_000);
    assert!(
        r.peak_buffer_capacity() >= HOT_BUF,
        "{}",
        r.peak_buffer_capacity()
    );

    let trickle = (0..1000).map(|_| lines(1)).collect();
    let mut r = SyncLineReader::new(Chunks(trickle), DEFAULT_MAX_LINE_BYTES);
    drain(&mut r, 1000);
    assert_eq!(r.peak_buffer_capacity(), DEFAULT_BUF);
}

#[test]
fn the_buffer_shrinks_back_when_a_flood_ends() {
    let mut chunks: std::collections::VecDeque<_> = [lines(10_000)].into();
    chunks.extend((0..100).map(|_| lines(1)));
    let mut r = SyncLineReader::new(Chunks(chunks), DEFAULT_MAX_LINE_BYTES);
    drain(&mut r, 10_000 + 50);
    assert!(r.peak_buffer_capacity() >= HOT_BUF);
    assert!(
        r.buffer_capacity() <= 2 * DEFAULT_BUF,
        "{}",
        r.buffer_capacity()
    );
    drain(&mut r, 50);
    assert_eq!(r.next_line().unwrap(), None);
}

#[test]
fn a_small_line_limit_caps_the_hot_buffer() {
    let mut r = SyncLineReader::new(Chunks([lines(10_000)].into()), 100);
    drain(&mut r, 10_000);
    assert!(r.peak_buffer_capacity() <= DEFAULT_BUF + MIN_SPARE);
}
