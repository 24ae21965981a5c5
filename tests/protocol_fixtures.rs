//! Every line the real CLI 2.1.332 printed (and every line the SDK wrote to
//! it) parses into a known kind and round-trips losslessly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use claude_agent::protocol::{
    ContentBlock, ControlRequestPayload, ControlResponseBody, HookEvent, Message, PermissionUpdate,
    ServerInfo, StdoutFrame, SystemMessage, parse_line,
};
use serde_json::Value;

fn fixtures_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/claude-code-2.1.332");
    assert!(
        dir.is_dir(),
        "fixture folder {} is missing: the protocol tests need the real CLI transcripts",
        dir.display()
    );
    dir
}

/// `(file name, line number, line)` for every non-empty fixture line.
fn fixture_lines() -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    let mut scenarios: Vec<_> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scenarios.sort();
    for dir in scenarios {
        for file in ["stdout.ndjson", "stdin.ndjson"] {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            for (i, line) in text.lines().enumerate() {
                if !line.trim().is_empty() {
                    out.push((path.display().to_string(), i + 1, line.to_owned()));
                }
            }
        }
    }
    assert!(
        out.len() > 100,
        "expected the whole fixture set, found {} lines",
        out.len()
    );
    out
}

fn blocks_known(blocks: &[ContentBlock], at: &str) {
    for b in blocks {
        if let ContentBlock::Unknown { kind, .. } = b {
            panic!("{at}: unknown block type {kind}");
        }
        if let ContentBlock::ToolResult(r) = b {
            if let Some(claude_agent::protocol::Content::Blocks(inner)) = &r.content {
                blocks_known(inner, at);
            }
        }
    }
}

/// No `Unknown`/`Other` anywhere we model.
fn assert_known(frame: &StdoutFrame, at: &str) {
    let kind = frame.kind();
    assert!(!kind.starts_with("unknown/"), "{at}: unknown type: {kind}");
    match frame {
        StdoutFrame::Message(Message::System(SystemMessage::Other { subtype, .. })) => {
            panic!("{at}: unknown system subtype {subtype}")
        }
        StdoutFrame::Message(Message::Assistant(a)) => blocks_known(a.message.blocks(), at),
        StdoutFrame::Message(Message::User(u)) => {
            if let Some(claude_agent::protocol::Content::Blocks(b)) = &u.message.content {
                blocks_known(b, at);
            }
        }
        StdoutFrame::ControlRequest(r) => match &r.request {
            ControlRequestPayload::Other { subtype, .. } => {
                panic!("{at}: unknown request {subtype}")
            }
            ControlRequestPayload::CanUseTool(p) => {
                for s in p.permission_suggestions.as_deref().unwrap_or_default() {
                    assert!(
                        !matches!(s, PermissionUpdate::Other { .. }),
                        "{at}: unknown update"
                    );
                }
            }
            ControlRequestPayload::HookCallback(h) => {
                let input = h.input.as_ref().expect("hook input");
                assert!(
                    !matches!(input.event, HookEvent::Other { .. }),
                    "{at}: unknown hook event"
                );
            }
            _ => {}
        },
        StdoutFrame::ControlResponse(r) => {
            assert!(
                !matches!(r.response, ControlResponseBody::Other { .. }),
                "{at}: unknown reply"
            );
        }
        _ => {}
    }
}

#[test]
fn every_fixture_line_parses_to_a_known_kind() {
    for (file, n, line) in fixture_lines() {
        let at = format!("{file}:{n}");
        let frame = parse_line(line.as_bytes()).unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_known(&frame, &at);
    }
}

#[test]
fn every_fixture_line_round_trips_losslessly() {
    for (file, n, line) in fixture_lines() {
        let at = format!("{file}:{n}");
        let frame = parse_line(line.as_bytes()).unwrap();
        let written = frame.to_json().unwrap();
        let original: Value = serde_json::from_str(&line).unwrap();
        let back: Value = serde_json::from_str(&written).unwrap();
        assert_eq!(back, original, "{at}: serialized form differs");
        let again = parse_line(written.as_bytes()).unwrap();
        assert_eq!(again, frame, "{at}: reparse differs");
    }
}

#[test]
fn fixture_kinds_cover_the_session_shapes() {
    let mut kinds: Vec<String> = fixture_lines()
        .iter()
        .map(|(_, _, l)| parse_line(l.as_bytes()).unwrap().kind())
        .collect();
    kinds.sort();
    kinds.dedup();
    for expected in [
        "assistant",
        "user",
        "result/success",
        "result/error_max_turns",
        "stream_event",
        "system/init",
        "system/status",
        "system/session_state_changed",
        "system/compact_boundary",
        "control_request/initialize",
        "control_request/can_use_tool",
        "control_request/hook_callback",
        "control_request/mcp_message",
        "control_request/set_model",
        "control_request/set_permission_mode",
        "control_response/success",
    ] {
        assert!(
            kinds.iter().any(|k| k == expected),
            "no fixture line of kind {expected}: {kinds:?}"
        );
    }
}

#[test]
fn typed_fields_of_real_lines() {
    let dir = fixtures_dir();
    let perm = std::fs::read_to_string(dir.join("perm_allow/stdout.ndjson")).unwrap();
    let req = perm
        .lines()
        .map(|l| parse_line(l.as_bytes()).unwrap())
        .find_map(|f| match f {
            StdoutFrame::ControlRequest(r) => match r.request {
                ControlRequestPayload::CanUseTool(p) => Some(p),
                _ => None,
            },
            _ => None,
        })
        .expect("a can_use_tool request");
    assert_eq!(req.tool_name.as_deref(), Some("Bash"));
    let s = req.permission_suggestions.unwrap();
    assert!(
        matches!(&s[0], PermissionUpdate::AddRules(r) if r.rules.as_ref().unwrap()[0].tool_name.as_deref() == Some("Bash"))
    );
    assert!(matches!(&s[1], PermissionUpdate::AddDirectories(_)));
    assert!(
        matches!(&s[2], PermissionUpdate::SetMode(m) if m.mode.as_deref() == Some("acceptEdits"))
    );

    // The initialize reply decodes into ServerInfo from its raw payload.
    let basic = std::fs::read_to_string(dir.join("basic/stdout.ndjson")).unwrap();
    let first = parse_line(basic.lines().next().unwrap().as_bytes()).unwrap();
    let StdoutFrame::ControlResponse(resp) = first else {
        panic!("first line is the init reply")
    };
    let ControlResponseBody::Success(ok) = resp.response else {
        panic!("success")
    };
    let info: ServerInfo = ok.response.unwrap().decode().unwrap();
    assert_eq!(info.pid, Some(12305));
    assert_eq!(info.claude_code_version.as_deref(), Some("2.1.332"));
    assert!(info.commands.unwrap().len() > 5);
}
