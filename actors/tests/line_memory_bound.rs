//! A line of any length costs a session at most its line limit plus one read
//! buffer: a real fake CLI prints lines of 2x and 10x the limit, and the
//! host process's peak resident memory grows by no more than that (plus a
//! fixed allowance for the runtime's own allocations, measured with a line
//! well inside the limit).
//!
//! Each test re-executes itself (that one test of this binary) so the peak
//! (`VmHWM`) belongs to a process that does nothing else: with
//! `ACTORS_TEST_LINE_MEMORY` set, the test function runs `host_role`
//! instead. The role is not a test of its own, so nothing passes without
//! doing its work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use claude_agent_actors::{Diagnostic, SessionEvent, SkipReason};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::json;

const ROLE_ENV: &str = "ACTORS_TEST_LINE_MEMORY";
const LIMIT: usize = 16 * 1024 * 1024;
/// One read buffer at its largest (framing's `HOT_BUF`).
const READ_BUF: usize = 64 * 1024;
/// The runtime's own allocations while a session runs (tasks, the fake's
/// pipes' buffers, the allocator's arenas): measured by the same process
/// reading small lines first.
const ALLOWANCE: usize = 4 * 1024 * 1024;

fn vm_hwm_bytes() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: usize = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// The re-executed host: reads one line of `factor` times the limit and
/// prints its peak memory before and after.
fn host_role(factor: &std::ffi::OsStr) {
    let factor: usize = factor.to_str().unwrap().parse().unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let fx = install(
            Script::new()
                .expect_initialize()
                .emit(json!({"type": "system", "subtype": "warm"}))
                .emit_big_line((factor * LIMIT) as u64, None)
                .emit(json!({"type": "system", "subtype": "after"}))
                .hang(),
        );
        let cfg = fx.config().max_line_bytes(LIMIT);
        let (session, mut stream) = fx.start_with(cfg).await.unwrap();
        let mut events = session.subscribe_events();
        // Warm up everything but the big line, then take the baseline.
        assert_eq!(stream.next().await.unwrap().unwrap().kind, "system");
        let before = vm_hwm_bytes();
        let after_frame = stream.next().await.unwrap().unwrap();
        assert_eq!(after_frame.kind, "system");
        let skipped = wait_event(&mut events, |e| {
            matches!(e, SessionEvent::Diagnostic(Diagnostic::LineSkipped { .. }))
        })
        .await;
        let SessionEvent::Diagnostic(Diagnostic::LineSkipped { reason, .. }) = skipped else {
            unreachable!()
        };
        assert!(matches!(reason, SkipReason::Oversized { .. }), "{reason:?}");
        let peak = vm_hwm_bytes();
        println!("HWM {before} {peak}");
        session.shutdown().await;
    });
}

/// The peak's growth in a re-executed run of `test` (the caller's own name).
fn growth_for(test: &str, factor: usize) -> usize {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(ROLE_ENV, factor.to_string())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "host failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let at = text.find("HWM ").expect("no HWM line");
    let nums: Vec<usize> = text[at + 4..]
        .split_whitespace()
        .take(2)
        .map(|n| n.parse().unwrap())
        .collect();
    nums[1].saturating_sub(nums[0])
}

#[test]
fn a_line_of_twice_the_limit_costs_at_most_the_limit_plus_one_read_buffer() {
    if let Some(factor) = std::env::var_os(ROLE_ENV) {
        return host_role(&factor);
    }
    let growth = growth_for(
        "a_line_of_twice_the_limit_costs_at_most_the_limit_plus_one_read_buffer",
        2,
    );
    assert!(
        growth <= LIMIT + READ_BUF + ALLOWANCE,
        "peak grew by {growth} bytes for a {}-byte line, limit {LIMIT}",
        2 * LIMIT
    );
}

#[test]
fn a_line_of_ten_times_the_limit_costs_at_most_the_limit_plus_one_read_buffer() {
    if let Some(factor) = std::env::var_os(ROLE_ENV) {
        return host_role(&factor);
    }
    let growth = growth_for(
        "a_line_of_ten_times_the_limit_costs_at_most_the_limit_plus_one_read_buffer",
        10,
    );
    assert!(
        growth <= LIMIT + READ_BUF + ALLOWANCE,
        "peak grew by {growth} bytes for a {}-byte line, limit {LIMIT}",
        10 * LIMIT
    );
}
