//! Replaying recordings through the fake CLI: every fixture's stdin and
//! stdout merged into a recording, turned into a script, run by the real
//! fake CLI binary fed the recorded stdin, gives back the recorded stdout.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use claude_agent::transcript::{
    Direction, RecordedFrame, ReplayOptions, merge_captures, recording_to_script_json,
};
use serde_json::{Value, json};

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/claude-code-2.1.332")
}

fn capture(name: &str) -> (String, String) {
    let dir = fixtures_dir().join(name);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    (read("stdin.ndjson"), read("stdout.ndjson"))
}

fn values(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn kind(v: &Value) -> String {
    let sub = v["request"]["subtype"]
        .as_str()
        .or(v["subtype"].as_str())
        .unwrap_or("");
    format!("{}/{}", v["type"].as_str().unwrap_or(""), sub)
}

#[test]
fn merge_orders_the_mcp_capture_by_cause_and_effect() {
    let (stdin, stdout) = capture("mcp");
    let merged = merge_captures(&stdin, &stdout);
    assert_eq!(merged.len(), values(&stdin).len() + values(&stdout).len());
    assert!(merged.windows(2).all(|w| w[0].t_ms < w[1].t_ms));
    let outline: Vec<String> = merged
        .iter()
        .take(6)
        .map(|f| {
            format!(
                "{} {}",
                if f.dir == Direction::Inbound {
                    "in"
                } else {
                    "out"
                },
                kind(f.json().unwrap())
            )
        })
        .collect();
    assert_eq!(
        outline,
        [
            "out control_request/initialize",
            "in control_request/mcp_message",
            "out control_response/",
            "in control_response/",
            "out user/",
            "in control_request/mcp_message",
        ]
    );
}

#[test]
fn script_expects_our_writes_in_order_and_answers_our_requests() {
    let (stdin, stdout) = capture("mcp");
    let script =
        recording_to_script_json(&merge_captures(&stdin, &stdout), &ReplayOptions::default());
    let steps = script["steps"].as_array().unwrap();
    assert_eq!(script["on_end"], "wait_eof");
    // Our initialize: answered with the recorded server info.
    assert_eq!(steps[0]["op"], "expect");
    assert_eq!(steps[0]["subtype"], "initialize");
    assert!(steps[0]["reply"]["commands"].is_array());
    assert_eq!(steps[0]["timeout_ms"], 10_000);
    // The CLI's request, then the expectation of our answer to it.
    assert_eq!(steps[1]["op"], "emit");
    let id = steps[1]["frame"]["request_id"].clone();
    assert_eq!(
        steps[2],
        json!({"op": "expect", "type": "control_response", "request_id": id, "timeout_ms": 10_000})
    );
    assert_eq!(steps[3]["type"], "user");
    // The recorded initialize reply is not emitted a second time.
    let emitted_replies = steps
        .iter()
        .filter(|s| s["op"] == "emit" && s["frame"]["type"] == "control_response")
        .count();
    assert_eq!(emitted_replies, 0);
    let expects = steps.iter().filter(|s| s["op"] == "expect").count();
    assert_eq!(
        expects,
        values(&stdin).len(),
        "one expect per line we wrote"
    );
}

#[test]
fn error_unanswered_and_raw_frames_become_the_right_steps() {
    let f = |t, dir, v: Value| RecordedFrame::from_line(t, dir, v.to_string().as_bytes());
    let frames = vec![
        f(
            0,
            Direction::Outbound,
            json!({"type": "control_request", "request_id": "a", "request": {"subtype": "set_model"}}),
        ),
        RecordedFrame::from_line(1, Direction::Inbound, b"garbage"),
        f(
            2,
            Direction::Inbound,
            json!({"type": "control_response", "response": {"subtype": "error", "request_id": "a", "error": "bad model"}}),
        ),
        f(
            3,
            Direction::Outbound,
            json!({"type": "control_request", "request_id": "b", "request": {"subtype": "interrupt"}}),
        ),
        f(
            4,
            Direction::Outbound,
            json!({"type": "control_cancel_request", "request_id": "c"}),
        ),
        RecordedFrame::from_line(5, Direction::Outbound, b"not json"),
    ];
    let opts = ReplayOptions {
        expect_timeout_ms: None,
    };
    let steps = recording_to_script_json(&frames, &opts)["steps"].clone();
    assert_eq!(
        steps,
        json!([
            {"op": "expect", "type": "control_request", "subtype": "set_model", "reply_error": "bad model"},
            {"op": "emit_raw", "data": "garbage\n"},
            {"op": "expect", "type": "control_request", "subtype": "interrupt", "no_reply": true},
            {"op": "expect", "type": "control_cancel_request", "request_id": "c"},
        ])
    );
}

/// Runs the real fake CLI binary.
mod fake_cli {
    use super::*;
    use claude_agent::transcript::read_recording;

    /// What the fake should print for `merged`: the CLI's frames in order,
    /// except that the answer to each of our requests comes when it is read
    /// (and carries only what the fake's reply carries).
    fn expected_output(merged: &[RecordedFrame]) -> Vec<Value> {
        let mut used = vec![false; merged.len()];
        let mut out = Vec::new();
        for (i, f) in merged.iter().enumerate() {
            let v = f.json().unwrap();
            match f.dir {
                Direction::Outbound if v["type"] == "control_request" => {
                    let reply = (i + 1..merged.len()).find(|&j| {
                        let r = merged[j].json().unwrap();
                        merged[j].dir == Direction::Inbound
                            && r["type"] == "control_response"
                            && r["response"]["request_id"] == v["request_id"]
                    });
                    if let Some(j) = reply {
                        used[j] = true;
                        // The fake builds the reply itself: members of the
                        // recorded `response` beyond these three are not sent.
                        let r = &merged[j].json().unwrap()["response"];
                        let mut body = serde_json::Map::new();
                        for k in ["subtype", "request_id", "response", "error"] {
                            if let Some(x) = r.get(k) {
                                body.insert(k.into(), x.clone());
                            }
                        }
                        if r["subtype"] == "success" && !body.contains_key("response") {
                            body.insert("response".into(), json!({}));
                        }
                        out.push(json!({"type": "control_response", "response": body}));
                    }
                }
                Direction::Inbound if !used[i] => out.push(v.clone()),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn every_fixture_replays_through_the_fake_cli() {
        use std::io::{BufRead, BufReader, Write};
        use std::process::Stdio;

        let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(names.len() >= 10, "{names:?}");
        let tmp = tempfile::tempdir().unwrap();
        for name in names {
            let (stdin, stdout) = capture(&name);
            let merged = merge_captures(&stdin, &stdout);

            // Through the on-disk format and back.
            let path = tmp.path().join(format!("{name}.ndjson"));
            let text: String = merged
                .iter()
                .map(|f| serde_json::to_string(f).unwrap() + "\n")
                .collect();
            std::fs::write(&path, text).unwrap();
            let frames = read_recording(&path).unwrap();
            assert_eq!(frames, merged);

            let dir = tmp.path().join(&name);
            std::fs::create_dir(&dir).unwrap();
            // The library's plain JSON becomes the testkit's `Script`.
            let script: claude_agent_testkit::Script = serde_json::from_value(
                recording_to_script_json(&frames, &ReplayOptions::default()),
            )
            .unwrap();
            let fake = script.install(&dir).unwrap();
            let mut child = fake
                .command()
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let mut pipe = child.stdin.take().unwrap();
            let input = stdin.clone();
            // Written from a thread: the fake only reads while a step reads.
            let writer = std::thread::spawn(move || {
                for line in input.lines().filter(|l| !l.trim().is_empty()) {
                    writeln!(pipe, "{line}").unwrap();
                }
            });
            let got: Vec<Value> = BufReader::new(child.stdout.take().unwrap())
                .lines()
                .map(|l| serde_json::from_str(&l.unwrap()).unwrap())
                .collect();
            writer.join().unwrap();
            let status = child.wait().unwrap();
            assert!(status.success(), "{name}: fake exited {status}");

            let want = expected_output(&frames);
            assert_eq!(
                got.len(),
                values(&stdout).len(),
                "{name}: every recorded line comes back"
            );
            let outline = |vs: &[Value]| -> Vec<String> {
                vs.iter()
                    .map(|v| {
                        format!(
                            "{} {}",
                            kind(v),
                            v["response"]["request_id"].as_str().unwrap_or("")
                        )
                    })
                    .collect()
            };
            assert_eq!(outline(&got), outline(&want), "{name}: frame order");
            for (g, w) in got.iter().zip(&want) {
                assert!(g == w, "{name}: frame differs:\n{g}\n{w}");
            }
            assert_eq!(
                fake.recorded_lines(),
                values(&stdin),
                "{name}: the fake read what we wrote"
            );
        }
    }
}
