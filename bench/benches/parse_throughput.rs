//! Parse throughput: our typed one-pass `parse_line` against a bare
//! `serde_json::from_slice::<Value>` over the same bytes.
//!
//! Run: `cargo bench -p claude-agent-bench --bench parse_throughput`. Builds ~64 MB of
//! fixture-shaped lines (every line of the real CLI transcripts, weighted
//! like a session: many assistant / stream_event / user lines, fewer
//! init / result / control lines), then an assistant-only set (~470 B lines).
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use claude_agent::protocol::parse_line;
use serde_json::Value;

const TARGET_BYTES: usize = 64 << 20;
const ROUNDS: usize = 5;

/// Lines stored back to back in one buffer.
struct Corpus {
    buf: Vec<u8>,
    spans: Vec<(usize, usize)>,
}

impl Corpus {
    fn build(lines: &[(String, usize)]) -> Self {
        let mut c = Corpus {
            buf: Vec::with_capacity(TARGET_BYTES + (1 << 20)),
            spans: Vec::new(),
        };
        while c.buf.len() < TARGET_BYTES {
            for (line, weight) in lines {
                for _ in 0..*weight {
                    let start = c.buf.len();
                    c.buf.extend_from_slice(line.as_bytes());
                    c.spans.push((start, c.buf.len()));
                }
            }
        }
        c
    }
    fn lines(&self) -> impl Iterator<Item = &[u8]> {
        self.spans.iter().map(|&(a, b)| &self.buf[a..b])
    }
}

/// One timed pass of `f` over the whole corpus.
fn pass(corpus: &Corpus, f: &dyn Fn(&[u8]) -> bool) -> Duration {
    let t = Instant::now();
    let mut ok = 0usize;
    for l in corpus.lines() {
        ok += usize::from(f(black_box(l)));
    }
    assert_eq!(ok, corpus.spans.len(), "every line must parse");
    t.elapsed()
}

fn typed(l: &[u8]) -> bool {
    parse_line(l).map(black_box).is_ok()
}

fn value(l: &[u8]) -> bool {
    serde_json::from_slice::<Value>(l).map(black_box).is_ok()
}

/// Best of `ROUNDS` passes each, the two parsers alternating so that load
/// from elsewhere on the machine hits both alike.
fn report(name: &str, corpus: &Corpus) {
    // PARSE_BENCH_ONLY=typed|value runs one side only (for profiling).
    let only = std::env::var("PARSE_BENCH_ONLY").unwrap_or_default();
    let (mut t, mut v) = (Duration::MAX, Duration::MAX);
    for _ in 0..ROUNDS {
        if only != "value" {
            t = t.min(pass(corpus, &typed));
        }
        if only != "typed" {
            v = v.min(pass(corpus, &value));
        }
    }
    let mb = corpus.buf.len() as f64 / 1e6;
    let n = corpus.spans.len() as f64;
    println!(
        "{name}: {} lines, {:.1} MB, mean {:.0} B/line",
        corpus.spans.len(),
        mb,
        corpus.buf.len() as f64 / n
    );
    for (label, d) in [("typed parse_line", t), ("serde_json Value", v)] {
        let s = d.as_secs_f64();
        println!("  {label:<18} {:>8.1} MB/s {:>10.0} msgs/s", mb / s, n / s);
    }
    println!(
        "  ratio typed/Value: {:.2}x",
        v.as_secs_f64() / t.as_secs_f64()
    );
}

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../testdata/claude-code-2.1.332");
    assert!(dir.is_dir(), "fixtures missing at {}", dir.display());
    let mut weighted = Vec::new();
    let mut assistant = Vec::new();
    let mut scenarios: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scenarios.sort();
    for s in scenarios {
        let text = std::fs::read_to_string(s.join("stdout.ndjson")).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let kind = parse_line(line.as_bytes()).unwrap().kind();
            // A session has many model lines per init / result / control line.
            let weight = match kind.as_str() {
                "assistant" | "stream_event" | "user" => 12,
                "system/session_state_changed" | "system/status" => 2,
                _ => 1,
            };
            if kind == "assistant" {
                assistant.push((line.to_owned(), 1));
            }
            weighted.push((line.to_owned(), weight));
        }
    }
    if std::env::var("PARSE_BENCH_SET").as_deref() != Ok("assistant") {
        report("session mix", &Corpus::build(&weighted));
    }
    report("assistant only", &Corpus::build(&assistant));
}
