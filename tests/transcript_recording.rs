//! Raw-frame recording: written as NDJSON, read back, both directions,
//! non-JSON lines kept, timestamps never decreasing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use claude_agent::transcript::{
    Direction, FramePayload, RecordedFrame, Recorder, RecordingError, read_recording,
};
use serde_json::{Value, json};

#[test]
fn writes_and_reads_back_both_directions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.ndjson");
    let rec = Recorder::create(&path).unwrap();
    rec.record_out(
        br#"{"type":"control_request","request_id":"r1","request":{"subtype":"initialize"}}"#,
    )
    .unwrap();
    rec.record_in(b"{\"type\":\"control_response\",\"response\":{\"subtype\":\"success\",\"request_id\":\"r1\"}}\r\n")
        .unwrap();
    rec.record_in(b"\x1b[31mnot json\xff\n").unwrap();
    // Mark a visible gap in time without sleeping: spin on the clock.
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(3) {
        std::hint::spin_loop();
    }
    let tap = rec.tap();
    tap(
        Direction::Outbound,
        br#"{"type":"user","message":{"role":"user","content":"hi"}}"#,
    );
    rec.flush().unwrap();
    drop((rec, tap));

    let frames = read_recording(&path).unwrap();
    assert_eq!(frames.len(), 4);
    let dirs: Vec<_> = frames.iter().map(|f| f.dir).collect();
    use Direction::{Inbound, Outbound};
    assert_eq!(dirs, [Outbound, Inbound, Inbound, Outbound]);
    assert_eq!(
        frames[0].json().unwrap()["request"]["subtype"],
        "initialize"
    );
    assert_eq!(
        frames[1].json().unwrap()["response"]["request_id"],
        "r1",
        "\\r\\n stripped"
    );
    assert_eq!(
        frames[2].payload,
        FramePayload::Raw("\u{1b}[31mnot json\u{fffd}".into())
    );
    assert!(frames.windows(2).all(|w| w[0].t_ms <= w[1].t_ms));
    assert!(frames[3].t_ms >= frames[2].t_ms + 3, "{frames:?}");

    // The on-disk format.
    let text = std::fs::read_to_string(&path).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(first["dir"], "out");
    assert!(first["t_ms"].is_u64());
    assert_eq!(first["line"]["type"], "control_request");
    let third: Value = serde_json::from_str(text.lines().nth(2).unwrap()).unwrap();
    assert_eq!(third["dir"], "in");
    assert!(third.get("line").is_none());
    assert!(third["raw"].is_string());
}

#[test]
fn concurrent_writers_keep_whole_lines_and_ordered_times() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rec.ndjson");
    let rec = Recorder::create(&path).unwrap();
    std::thread::scope(|s| {
        for w in 0..4 {
            let rec = rec.clone();
            s.spawn(move || {
                for i in 0..250 {
                    let line = json!({"type": "user", "w": w, "i": i, "pad": "x".repeat(300)});
                    let dir = if w % 2 == 0 {
                        Direction::Inbound
                    } else {
                        Direction::Outbound
                    };
                    rec.record(dir, line.to_string().as_bytes()).unwrap();
                }
            });
        }
    });
    rec.flush().unwrap();
    let frames = read_recording(&path).unwrap();
    assert_eq!(frames.len(), 1000);
    assert!(frames.windows(2).all(|w| w[0].t_ms <= w[1].t_ms));
    for w in 0..4 {
        let is: Vec<_> = frames
            .iter()
            .filter_map(RecordedFrame::json)
            .filter(|v| v["w"] == w)
            .map(|v| v["i"].as_u64().unwrap())
            .collect();
        assert_eq!(
            is,
            (0..250).collect::<Vec<_>>(),
            "writer {w} in order, nothing lost"
        );
    }
}

#[test]
fn a_malformed_record_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.ndjson");
    std::fs::write(
        &path,
        "{\"t_ms\":0,\"dir\":\"in\",\"line\":{}}\n\n{\"t_ms\":1,\"dir\":\"sideways\"}\n",
    )
    .unwrap();
    let err = read_recording(&path).unwrap_err();
    assert!(
        matches!(err, RecordingError::Malformed { line_no: 3, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("sideways"), "{err}");

    let err = read_recording(dir.path().join("missing")).unwrap_err();
    assert!(matches!(err, RecordingError::Open { .. }));
    assert!(
        err.to_string().starts_with("cannot open recording"),
        "{err}"
    );
}
