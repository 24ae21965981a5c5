//! `claude-agent replay`: every documented outcome, through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn fixtures() -> PathBuf {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/claude-code-2.1.332"
    ));
    assert!(dir.is_dir(), "fixtures missing at {}", dir.display());
    dir
}

fn replay(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .arg("replay")
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn json_lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn write_temp(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

#[test]
fn every_fixture_replays_strictly_with_one_line_per_frame() {
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path().join("stdout.ndjson");
        let text = std::fs::read_to_string(&path).unwrap();
        let non_blank = text.lines().filter(|l| !l.trim().is_empty()).count();
        let out = replay(&["--json", "--strict", path.to_str().unwrap()], None);
        assert!(out.status.success(), "{}: {:?}", path.display(), out);
        let lines = json_lines(&out);
        assert_eq!(lines.len(), non_blank + 1, "{}", path.display());
        for (i, frame) in lines[..non_blank].iter().enumerate() {
            assert_eq!(frame["line"], i as u64 + 1);
            let kind = frame["kind"].as_str().unwrap();
            assert!(kind != "error" && !kind.starts_with("unknown/"), "{kind}");
        }
        let summary = &lines[non_blank];
        assert_eq!(summary["frames"], non_blank as u64);
        assert_eq!(summary["unknown"], 0);
        assert_eq!(summary["errors"], 0);
    }
}

#[test]
fn kinds_name_subtypes_and_control_directions() {
    let path = fixtures().join("perm_allow/stdout.ndjson");
    let out = replay(&["--json", path.to_str().unwrap()], None);
    let kinds: Vec<String> = json_lines(&out)
        .iter()
        .filter_map(|l| l["kind"].as_str().map(str::to_owned))
        .collect();
    for expected in [
        "control_response/success",
        "system/init",
        "system/session_state_changed",
        "assistant",
        "control_request/can_use_tool",
        "user",
        "result/success",
    ] {
        assert!(
            kinds.iter().any(|k| k == expected),
            "{expected} in {kinds:?}"
        );
    }
}

#[test]
fn bad_lines_are_counted_errors_and_replay_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = b"{\"type\":\"brand_new\",\"x\":1}\n\n   \nnot json\n\xff\xfe\x00binary\n{\"type\":\"assistant\"}\n{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"result\",\"subtype\":\"success\"";
    let file = write_temp(&dir, "bad.ndjson", input);
    let out = replay(&["--json", &file], None);
    assert!(out.status.success(), "without --strict the replay succeeds");
    let lines = json_lines(&out);
    let kinds: Vec<(u64, &str)> = lines[..lines.len() - 1]
        .iter()
        .map(|l| (l["line"].as_u64().unwrap(), l["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (1, "unknown/brand_new"),
            (4, "error"),
            (5, "error"),
            (6, "error"),
            (7, "system/init"),
            (8, "error"),
        ]
    );
    let missing = lines.iter().find(|l| l["line"] == 6).unwrap();
    let why = missing["error"].as_str().unwrap();
    assert!(
        why.contains("assistant") && why.contains("message"),
        "{why}"
    );
    let summary = lines.last().unwrap();
    assert_eq!(
        (&summary["frames"], &summary["unknown"], &summary["errors"]),
        (&Value::from(2), &Value::from(1), &Value::from(4))
    );
}

#[test]
fn strict_exits_one_on_unknown_or_error_and_zero_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let unknown = write_temp(&dir, "u.ndjson", b"{\"type\":\"brand_new\"}\n");
    let noise = write_temp(&dir, "n.ndjson", b"noise\n");
    let empty = write_temp(&dir, "e.ndjson", b"");
    assert_eq!(replay(&["--strict", &unknown], None).status.code(), Some(1));
    assert_eq!(replay(&["--strict", &noise], None).status.code(), Some(1));
    assert_eq!(replay(&["--strict", &empty], None).status.code(), Some(0));
    assert_eq!(replay(&[&unknown, &noise], None).status.code(), Some(0));
}

#[test]
fn empty_file_gives_only_a_zero_summary() {
    let dir = tempfile::tempdir().unwrap();
    let empty = write_temp(&dir, "empty.ndjson", b"");
    let lines = json_lines(&replay(&["--json", &empty], None));
    assert_eq!(lines.len(), 1);
    assert_eq!(
        lines[0],
        serde_json::json!({"frames": 0, "unknown": 0, "errors": 0, "unreadable": []})
    );
}

#[test]
fn a_missing_file_is_reported_the_next_file_still_replays_and_the_exit_is_2() {
    let dir = tempfile::tempdir().unwrap();
    let good = write_temp(&dir, "good.ndjson", b"{\"type\":\"conversation_reset\"}\n");
    let missing = dir.path().join("nope.ndjson");
    let out = replay(&["--json", missing.to_str().unwrap(), &good], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nope.ndjson"), "{stderr}");
    let lines = json_lines(&out);
    assert_eq!(lines[0]["kind"], "error");
    assert!(lines[0]["file"].as_str().unwrap().ends_with("nope.ndjson"));
    assert_eq!(lines[1]["kind"], "conversation_reset");
    assert!(lines[1]["file"].as_str().unwrap().ends_with("good.ndjson"));
    assert_eq!(lines[2]["errors"], 1);
    assert_eq!(lines[2]["frames"], 1);
    assert!(
        lines[2]["unreadable"][0]
            .as_str()
            .unwrap()
            .ends_with("nope.ndjson")
    );
    assert_eq!(out.status.code(), Some(2), "an input could not be read");
}

#[test]
fn a_directory_given_as_input_exits_2_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let good = write_temp(&dir, "good.ndjson", b"{\"type\":\"conversation_reset\"}\n");
    let out = replay(&[dir.path().to_str().unwrap(), &good], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("could not read"), "{stderr}");
    assert_eq!(out.status.code(), Some(2));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("conversation"),
        "the next file still replays: {stdout}"
    );
}

#[test]
fn a_line_over_the_limit_is_skipped_and_the_next_line_parses() {
    let mut input =
        b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\""
            .to_vec();
    input.extend(std::iter::repeat_n(b'x', 10_000));
    input.extend_from_slice(b"\"}]}}\n{\"type\":\"conversation_reset\"}\n");
    let out = replay(&["--json", "--max-line-bytes", "4096", "-"], Some(&input));
    let lines = json_lines(&out);
    assert_eq!(lines[0]["line"], 1);
    assert_eq!(lines[0]["kind"], "error");
    let why = lines[0]["error"].as_str().unwrap();
    assert!(why.contains("exceeds the limit of 4096"), "{why}");
    assert_eq!(lines[1]["line"], 2);
    assert_eq!(lines[1]["kind"], "conversation_reset");
}

#[test]
fn the_readable_transcript_shows_speakers_tools_and_the_result() {
    let path = fixtures().join("hook_allow/stdout.ndjson");
    let out = replay(&[path.to_str().unwrap()], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("[assistant] tool call Bash (toolu_1795993052607505)"),
        "{text}"
    );
    assert!(
        text.contains("tool result toolu_1795993052607505 (ok): hi-from-bash"),
        "{text}"
    );
    assert!(
        text.contains("[assistant] Tool finished; all done."),
        "{text}"
    );
    assert!(
        text.contains("[result] success after 2 turn(s), cost $"),
        "{text}"
    );
}

#[test]
fn no_file_replays_the_built_in_sample() {
    let out = replay(&["--json", "--strict"], None);
    assert!(out.status.success());
    let lines = json_lines(&out);
    assert!(lines.iter().any(|l| l["kind"] == "result/success"));
    assert_eq!(lines.last().unwrap()["errors"], 0);
}

#[test]
fn usage_errors_exit_64() {
    let out = Command::new(env!("CARGO_BIN_EXE_claude-agent"))
        .args(["replay", "--no-such-flag"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(64));
}

#[test]
fn json_marks_each_unknown_frame_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let mixed = write_temp(
        &dir,
        "mixed.ndjson",
        b"{\"type\":\"keep_alive\"}\n\
          {\"type\":\"brand_new\"}\n\
          {\"type\":\"system\",\"subtype\":\"hook_progress\",\"hook_id\":\"h\"}\n\
          {\"type\":\"system\",\"subtype\":\"brand_new_subtype\"}\n\
          {\"type\":\"control_request\",\"request_id\":\"r\",\"request\":{\"subtype\":\"teleport\"}}\n",
    );
    let lines = json_lines(&replay(&["--json", &mixed], None));
    let flags: Vec<_> = lines[..5]
        .iter()
        .map(|l| (l["kind"].as_str().unwrap(), l.get("unknown").cloned()))
        .collect();
    assert_eq!(
        flags,
        [
            ("keep_alive", None),
            ("unknown/brand_new", Some(Value::Bool(true))),
            ("system/hook_progress", None),
            ("system/brand_new_subtype", Some(Value::Bool(true))),
            ("control_request/teleport", Some(Value::Bool(true))),
        ]
    );
    assert_eq!(lines[5]["unknown"], 3, "the summary counts the same frames");
}

#[test]
fn every_fixture_replays_with_zero_unknown_frames() {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(fixtures()).unwrap() {
        let path = entry.unwrap().path().join("stdout.ndjson");
        files.push(path.to_str().unwrap().to_owned());
    }
    let args: Vec<&str> = ["--json"]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .collect();
    let lines = json_lines(&replay(&args, None));
    let (summary, frames) = lines.split_last().unwrap();
    assert!(frames.len() > 100, "{} frames", frames.len());
    let marked: Vec<_> = frames
        .iter()
        .filter(|l| l.get("unknown").is_some())
        .collect();
    assert!(marked.is_empty(), "{marked:?}");
    assert_eq!(summary["unknown"], 0);
    assert_eq!(summary["errors"], 0);
}
