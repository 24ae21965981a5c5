//! "Did this turn fail?" has one answer, `ResultMessage::is_error()`: the
//! CLI's `is_error` flag OR a subtype other than `success`. It is checked
//! over every `result` line the real CLI printed in the fixtures, over every
//! subtype this crate knows (and one it does not), and end to end: the turn
//! span and the transcript report the same verdict for the same turns (the
//! host's job verdict is covered in `host_admission.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod telemetry_common;

use std::path::Path;

use claude_agent::protocol::{Message, ResultMessage, ResultSubtype, parse_message};
use claude_agent::telemetry::TURN_SPAN;
use claude_agent_testkit::Script;
use common::*;
use opentelemetry::trace::Status;
use telemetry_common::*;

fn results_in(file: &Path) -> Vec<ResultMessage> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| l.contains(r#""type":"result""#))
        .map(|l| match parse_message(l.as_bytes()).unwrap() {
            Message::Result(r) => *r,
            other => panic!("{}: not a result: {}", file.display(), other.kind()),
        })
        .collect()
}

#[test]
fn every_result_the_real_cli_printed_gets_the_expected_verdict() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/claude-code-2.1.332");
    let mut seen = 0;
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let stdout = dir.join("stdout.ndjson");
        if !stdout.exists() {
            continue;
        }
        // Only the max_turns recording ends a turn in error.
        let failing = dir.file_name().unwrap() == "max_turns";
        for r in results_in(&stdout) {
            seen += 1;
            assert_eq!(r.is_error(), failing, "{}: {r:?}", dir.display());
            assert_eq!(r.subtype == ResultSubtype::Success, !failing);
        }
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample-session.ndjson");
    for r in results_in(&sample) {
        seen += 1;
        assert!(!r.is_error(), "{r:?}");
    }
    assert!(seen >= 10, "only {seen} result lines found");
}

#[test]
fn every_subtype_and_flag_combination_gets_one_verdict() {
    let subtypes = [
        ("success", false),
        ("error_max_turns", true),
        ("error_max_budget_usd", true),
        ("error_during_execution", true),
        ("error_from_a_future_cli", true),
    ];
    for (subtype, subtype_fails) in subtypes {
        for (flag, flag_fails) in [
            ("", false),
            (r#","is_error":false"#, false),
            (r#","is_error":true"#, true),
        ] {
            let line = format!(r#"{{"type":"result","subtype":"{subtype}"{flag}}}"#);
            let Message::Result(r) = parse_message(line.as_bytes()).unwrap() else {
                panic!("{line} is a result");
            };
            assert_eq!(r.is_error(), subtype_fails || flag_fails, "{line}");
        }
    }
}

#[tokio::test]
async fn the_turn_span_and_the_transcript_agree_on_each_verdict() {
    let mut max_turns = result("error_max_turns", "");
    max_turns.as_object_mut().unwrap().remove("is_error");
    let mut api_error = result("success", "API Error: 529");
    api_error["is_error"] = true.into();
    let script = Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(max_turns)
        .expect("user", None)
        .emit(api_error)
        .expect("user", None)
        .emit(result("success", "fine"));
    let mem = in_memory();
    let fake = fake(script);
    let client = fake
        .builder()
        .telemetry(mem.telemetry())
        .transcript(true)
        .connect()
        .await
        .unwrap();
    for prompt in ["one", "two", "three"] {
        client.send(prompt).await.unwrap();
        finish_turn(&client).await;
    }
    let transcript = client.transcript().unwrap();
    client.shutdown().await;

    let want = [true, true, false];
    let recorded: Vec<bool> = transcript
        .turns
        .iter()
        .map(|t| t.result.as_ref().expect("a result").is_error)
        .collect();
    assert_eq!(recorded, want);

    let spans = mem.finished_spans();
    let turns = named(&spans, TURN_SPAN);
    let traced: Vec<bool> = turns
        .iter()
        .map(|t| matches!(t.status, Status::Error { .. }))
        .collect();
    assert_eq!(traced, want, "{turns:#?}");
    let flags: Vec<_> = turns
        .iter()
        .map(|t| attr(t, "claude_agent.turn.is_error"))
        .collect();
    assert_eq!(
        flags,
        want.map(|b| Some(b.into())),
        "the span attribute is the verdict too"
    );
}
