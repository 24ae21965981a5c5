//! Output ops: `emit`, `emit_raw`, `emit_file`, `emit_big_line`, `flood`,
//! `stderr`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent_testkit::{Script, Stream};
use common::Running;
use serde_json::json;

#[test]
fn emit_writes_frames_as_single_lines() {
    let script = Script::new()
        .emit(json!({"type": "system", "subtype": "init", "text": "a\nb"}))
        .step(json!({"op": "emit", "frames": [{"n": 1}, {"n": 2}]}))
        .on_end_exit();
    let mut run = Running::start(&script);
    let first = run.json();
    assert_eq!(first["subtype"], "init");
    assert_eq!(first["text"], "a\nb");
    assert_eq!(run.json()["n"], 1);
    assert_eq!(run.json()["n"], 2);
    run.expect_stdout_eof();
    assert!(run.wait().success());
}

#[test]
fn emit_raw_writes_exact_bytes_without_newline() {
    let script = Script::new()
        .emit_raw("{\"type\":\"trunc")
        .emit_raw("ated\"}\nnoise ")
        .step(json!({"op": "emit_raw", "base64": "/wD+Cg=="}))
        .on_end_exit();
    let mut run = Running::start(&script);
    assert_eq!(run.line(), "{\"type\":\"truncated\"}\n");
    assert_eq!(run.next_raw().unwrap(), b"noise \xff\x00\xfe\n");
    run.expect_stdout_eof();
    assert!(run.wait().success());
}

#[test]
fn emit_big_line_is_exactly_the_requested_size() {
    for (bytes, id) in [(1_000_000u64, None), (3 * 1024 * 1024 + 7, Some("big_1"))] {
        let script = Script::new().emit_big_line(bytes, id).on_end_exit();
        let mut run = Running::start(&script);
        let line = run.next_raw().unwrap();
        assert_eq!(line.len() as u64, bytes);
        assert_eq!(line.last(), Some(&b'\n'));
        let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
        match id {
            Some(id) => {
                assert_eq!(v["type"], "control_request");
                assert_eq!(v["request_id"], id);
                assert_eq!(v["request"]["subtype"], "can_use_tool");
            }
            None => assert_eq!(v["type"], "assistant"),
        }
        run.expect_stdout_eof();
        assert!(run.wait().success());
    }
}

#[test]
fn emit_file_repeats_every_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.ndjson");
    std::fs::write(&file, "{\"n\":1}\n{\"n\":2}").unwrap();
    let script = Script::new()
        .step(json!({"op": "emit_file", "path": file, "repeat": 3}))
        .emit_file(&file)
        .on_end_exit();
    let mut run = Running::start(&script);
    let ns: Vec<i64> = (0..8).map(|_| run.json()["n"].as_i64().unwrap()).collect();
    assert_eq!(ns, [1, 2, 1, 2, 1, 2, 1, 2]);
    run.expect_stdout_eof();
    assert!(run.wait().success());
}

#[test]
fn flood_writes_exact_counts_to_each_stream() {
    let script = Script::new()
        .flood(Stream::Stderr, "err line", 20_000)
        .flood(Stream::Stdout, "{\"type\":\"flood\"}", 50_000)
        .step(json!({"op": "flood", "frame": {"k": "v"}, "count": 3}))
        .stderr("last words")
        .on_end_exit();
    let mut run = Running::start(&script);
    for _ in 0..50_000 {
        assert_eq!(run.line(), "{\"type\":\"flood\"}\n");
    }
    for _ in 0..3 {
        assert_eq!(run.json(), json!({"k": "v"}));
    }
    run.expect_stdout_eof();
    assert!(run.wait().success());
    let stderr = run.stderr_after_exit();
    assert_eq!(stderr.lines().filter(|l| *l == "err line").count(), 20_000);
    assert!(stderr.ends_with("last words\n"));
}
