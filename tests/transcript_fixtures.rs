//! Transcripts built from the real CLI's fixtures: session id, tool calls
//! correlated with decisions and results, turns, partial messages, and
//! incomplete turns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use claude_agent::callbacks::Decision;
use claude_agent::protocol::{
    HookOutput, Message, PermissionResult, StdoutFrame, UserMessage, parse_line, parse_message,
};
use claude_agent::runtime::process::ExitInfo;
use claude_agent::runtime::{Escalation, ShutdownCause, ShutdownReport};
use claude_agent::transcript::{
    ControlOutcome, ControlRecord, DecisionRecord, Direction, EntryPoint, RunInfo, TokenUsage,
    Transcript, TranscriptRecorder, UsageSource,
};
use serde_json::{Value, json};

fn fixture(name: &str, file: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/claude-code-2.1.332")
        .join(name)
        .join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The messages of a fixture's stdout (control frames dropped).
fn messages(name: &str) -> Vec<Message> {
    fixture(name, "stdout.ndjson")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| match parse_line(l.as_bytes()).unwrap() {
            StdoutFrame::Message(m) => Some(m),
            _ => None,
        })
        .collect()
}

/// The prompts of a fixture's stdin.
fn prompts(name: &str) -> Vec<UserMessage> {
    fixture(name, "stdin.ndjson")
        .lines()
        .filter_map(|l| match parse_message(l.as_bytes()).ok()? {
            Message::User(u) => Some(*u),
            _ => None,
        })
        .collect()
}

fn recorder(partial: bool) -> TranscriptRecorder {
    TranscriptRecorder::new(RunInfo {
        include_partial_messages: partial,
        ..RunInfo::new(EntryPoint::Query, "subprocess")
    })
}

/// Prompt, then every message: one turn's worth.
fn one_turn(name: &str, rec: &TranscriptRecorder) {
    rec.record_sent_prompt(&prompts(name)[0]);
    for m in messages(name) {
        rec.record_message(&m);
    }
}

fn report(cause: ShutdownCause, exit: Option<ExitInfo>) -> ShutdownReport {
    ShutdownReport::new(cause, exit, Escalation::None)
}

fn clean_exit() -> ShutdownReport {
    let exit = ExitInfo {
        code: Some(0),
        signal: None,
    };
    report(ShutdownCause::CliExited { exit: Some(exit) }, Some(exit))
}

#[test]
fn perm_allow_correlates_tool_use_permission_and_result() {
    let rec = recorder(false);
    one_turn("perm_allow", &rec);
    // The CLI's can_use_tool request carries no tool_use_id: the decision
    // is matched by tool name.
    rec.record_decision(&Decision::Permission {
        tool_use_id: None,
        tool_name: Some("Bash".into()),
        result: PermissionResult::Allow {
            updated_input: Some(json!({"command": "touch made-by-agent.txt"})),
            updated_permissions: None,
            decision_classification: None,
        },
    });
    rec.record_close(&clean_exit());
    let t = rec.snapshot();

    assert_eq!(
        t.session_id.as_deref(),
        Some("aef17beb-2629-4d3e-addc-1164bad8095a")
    );
    assert_eq!(
        t.run.cli_version.as_deref(),
        Some("2.1.332"),
        "taken from system/init"
    );
    assert_eq!(t.tool_calls.len(), 1);
    let call = &t.tool_calls[0];
    assert_eq!(call.tool_use_id, "toolu_1795993054963249");
    assert_eq!(call.name, "Bash");
    assert_eq!(call.input["command"], "touch made-by-agent.txt");
    let Some(DecisionRecord::Permission {
        behavior, result, ..
    }) = &call.decision
    else {
        panic!("no permission decision: {call:?}");
    };
    assert_eq!(behavior, "allow");
    assert_eq!(result["updatedInput"]["command"], "touch made-by-agent.txt");
    let res = call.result.as_ref().expect("tool result");
    assert_eq!(res.content, json!("(Bash completed with no output)"));
    assert!(!res.is_error);

    assert_eq!(t.results.len(), 1);
    assert_eq!(t.results[0].subtype, "success");
    assert_eq!(t.turns.len(), 1);
    let turn = &t.turns[0];
    assert_eq!(
        turn.prompt.as_ref().unwrap()["message"]["content"],
        "please touch a file"
    );
    assert_eq!(turn.text, "Tool finished; all done.");
    assert_eq!(
        turn.messages,
        0..t.messages.len(),
        "idle state change joins the turn"
    );
    assert!(!turn.incomplete && !turn.in_progress && !t.incomplete);
    let close = t.close.as_ref().unwrap();
    assert_eq!(close.reason, "cli_exited");
    assert!(close.reaped);
}

#[test]
fn mcp_fixture_attaches_the_mcp_call_to_its_tool_call() {
    let rec = recorder(false);
    one_turn("mcp", &rec);
    rec.record_decision(&Decision::McpCall {
        server: "calc".into(),
        tool: "add".into(),
        tool_use_id: Some("toolu_1795993057541216".into()),
        is_error: false,
    });
    rec.record_decision(&Decision::Failed {
        subtype: "mcp_message".into(),
        error: "unknown server".into(),
    });
    let t = rec.snapshot();
    assert_eq!(t.tool_calls.len(), 1);
    let call = &t.tool_calls[0];
    assert_eq!(call.name, "mcp__calc__add");
    assert_eq!(call.input, json!({"a": 2, "b": 3}));
    assert!(matches!(
        &call.mcp_call,
        Some(DecisionRecord::McpCall { server, is_error: false, .. }) if server == "calc"
    ));
    assert!(call.decision.is_none());
    assert_eq!(
        call.result.as_ref().unwrap().content,
        json!([{"type": "text", "text": "5"}])
    );
    assert_eq!(t.decisions.len(), 2, "failed decisions are kept too");
    assert_eq!(
        t.results[0].result.as_deref(),
        Some("Tool finished; all done.")
    );
}

#[test]
fn hook_decisions_join_their_tool_call() {
    let rec = recorder(false);
    one_turn("hook_allow", &rec);
    rec.record_decision(&Decision::Hook {
        callback_id: "hook_0".into(),
        event: "PreToolUse".into(),
        tool_use_id: Some("toolu_1795993052607505".into()),
        output: Box::default(),
    });
    let t = rec.snapshot();
    let call = &t.tool_calls[0];
    assert_eq!(call.hook_decisions.len(), 1);
    let DecisionRecord::Hook { event, output, .. } = &call.hook_decisions[0] else {
        panic!("not a hook decision");
    };
    assert_eq!(event, "PreToolUse");
    assert_eq!(
        output,
        &serde_json::to_value(HookOutput::default()).unwrap()
    );
    assert_eq!(call.result.as_ref().unwrap().content, json!("hi-from-bash"));
}

#[test]
fn partial_messages_are_kept_apart_and_text_is_counted_once() {
    let rec = recorder(true);
    one_turn("partial", &rec);
    let t = rec.snapshot();
    assert!(t.run.include_partial_messages);
    assert_eq!(t.stream_events.len(), 6);
    assert!(t.stream_events.iter().all(|e| e["type"] == "stream_event"));
    assert!(t.messages.iter().all(|m| m["type"] != "stream_event"));
    let turn = &t.turns[0];
    assert_eq!(turn.stream_events, 0..6);
    assert_eq!(
        turn.text, "Hello from the mock model.",
        "not doubled by the delta"
    );
    assert!(!turn.got_deltas_only && !turn.incomplete);
    // The result's usage, not the deltas' (message_delta says 5 too, the
    // message_start 1; a sum would be 6 or 11).
    assert_eq!(turn.usage_source, Some(UsageSource::Result));
    assert_eq!(turn.usage.unwrap().output_tokens, 5);
    assert_eq!(turn.usage.unwrap().input_tokens, 10);
}

#[test]
fn a_turn_with_deltas_but_no_complete_message_is_incomplete() {
    // Cut the partial fixture before the complete assistant message.
    let rec = recorder(true);
    rec.record_sent_prompt(&prompts("partial")[0]);
    for m in messages("partial")
        .iter()
        .take_while(|m| m.kind() != "assistant")
    {
        rec.record_message(m);
    }
    let running = rec.snapshot();
    assert!(running.turns[0].in_progress);
    assert!(!running.incomplete, "still streaming is not incomplete");
    assert!(running.turns[0].got_deltas_only);

    rec.record_transport_error("reading stdout failed: connection reset");
    let t = rec.snapshot();
    let turn = &t.turns[0];
    assert!(turn.incomplete && t.incomplete);
    assert!(!turn.in_progress);
    assert!(turn.got_deltas_only);
    assert_eq!(turn.text, "", "deltas are never taken as the answer");
    assert_eq!(
        t.transport_error.as_deref(),
        Some("reading stdout failed: connection reset")
    );
}

#[test]
fn deltas_only_is_incomplete_even_with_a_result() {
    let rec = recorder(true);
    for m in messages("partial")
        .iter()
        .filter(|m| m.kind() != "assistant")
    {
        rec.record_message(m);
    }
    let t = rec.snapshot();
    assert!(t.turns[0].prompt.is_none(), "opened by the first message");
    assert!(t.turns[0].result.is_some());
    assert!(t.turns[0].got_deltas_only && t.turns[0].incomplete && t.incomplete);
}

#[test]
fn a_turn_cut_off_without_result_is_incomplete_after_close() {
    let rec = recorder(false);
    rec.record_sent_prompt(&prompts("perm_allow")[0]);
    for m in messages("perm_allow")
        .iter()
        .take_while(|m| !m.kind().starts_with("result"))
    {
        rec.record_message(m);
    }
    let running = rec.snapshot();
    assert!(running.turns[0].in_progress && !running.incomplete);

    let killed = ExitInfo {
        code: None,
        signal: Some(9),
    };
    rec.record_close(&report(ShutdownCause::Requested, Some(killed)));
    let t = rec.snapshot();
    assert!(t.turns[0].incomplete && t.incomplete);
    assert!(t.turns[0].result.is_none());
    assert_eq!(
        t.turns[0].text, "Tool finished; all done.",
        "partial text is still kept"
    );
    assert!(t.results.is_empty());
    let close = t.close.unwrap();
    assert_eq!((close.reason.as_str(), close.reaped), ("requested", true));
    assert_eq!(close.exit.unwrap().signal, Some(9));
}

#[test]
fn two_prompts_make_two_turns_and_local_command_output_opens_none() {
    let rec = recorder(false);
    let prompts = prompts("basic");
    let msgs = messages("basic");
    let split = msgs
        .iter()
        .position(|m| m.kind().starts_with("result"))
        .unwrap()
        + 1;
    rec.record_sent_prompt(&prompts[0]);
    msgs[..split].iter().for_each(|m| rec.record_message(m));
    // Between the turns: the idle state, a status change and the
    // `/model` command's echoed output (a `user` message).
    let second = msgs
        .iter()
        .rposition(|m| m.kind() == "system/session_state_changed")
        .unwrap();
    let second = msgs[..second]
        .iter()
        .rposition(|m| m.kind() == "system/session_state_changed")
        .unwrap();
    msgs[split..second]
        .iter()
        .for_each(|m| rec.record_message(m));
    rec.record_sent_prompt(&prompts[1]);
    msgs[second..].iter().for_each(|m| rec.record_message(m));
    rec.record_close(&clean_exit());

    let t = rec.snapshot();
    assert_eq!(t.turns.len(), 2, "{:#?}", t.turns);
    assert_eq!(t.results.len(), 2);
    assert!(!t.incomplete);
    assert_eq!(t.turns[0].messages.end, second);
    assert_eq!(t.turns[1].messages, second..msgs.len());
    assert_eq!(
        t.turns[1].prompt.as_ref().unwrap()["message"]["content"],
        "say hello again"
    );
    assert_eq!(
        t.turns[1].result.as_ref().unwrap().total_cost_usd,
        Some(0.000245)
    );
}

#[test]
fn assistant_usage_counts_each_api_message_once() {
    // Two lines (two blocks) of one API response share its usage.
    let line = |block: &str| {
        format!(
            r#"{{"type":"assistant","message":{{"id":"msg_1","content":[{block}],"usage":{{"input_tokens":7,"output_tokens":3}}}},"session_id":"s"}}"#
        )
    };
    let rec = recorder(false);
    rec.record_sent_prompt(&UserMessage::prompt("hi"));
    for l in [
        line(r#"{"type":"text","text":"a"}"#),
        line(r#"{"type":"text","text":"b"}"#),
    ] {
        rec.record_message(&parse_message(l.as_bytes()).unwrap());
    }
    let t = rec.snapshot();
    assert_eq!(t.turns[0].text, "a\nb");
    assert_eq!(t.turns[0].usage_source, Some(UsageSource::Assistant));
    assert_eq!(
        t.turns[0].usage,
        Some(TokenUsage {
            input_tokens: 7,
            output_tokens: 3,
            ..TokenUsage::default()
        })
    );
}

#[test]
fn transcript_round_trips_through_json() {
    let rec = TranscriptRecorder::new(RunInfo {
        model: Some("claude-opus-5-5".into()),
        permission_mode: Some("default".into()),
        tools: Some(vec!["Bash".into()]),
        allowed_tools: vec!["mcp__calc__add".into()],
        cwd: Some("/tmp".into()),
        ..RunInfo::new(EntryPoint::Client, "subprocess")
    });
    rec.set_cli_version("2.1.332");
    one_turn("partial", &rec);
    rec.record_decision(&Decision::Permission {
        tool_use_id: Some("t1".into()),
        tool_name: Some("Bash".into()),
        result: PermissionResult::Deny {
            message: "no".into(),
            interrupt: Some(true),
            decision_classification: None,
        },
    });
    rec.record_control(ControlRecord {
        request_id: "req_1".into(),
        subtype: "initialize".into(),
        direction: Direction::Outbound,
        started_at: UNIX_EPOCH + Duration::from_millis(1_790_000_000_000),
        duration: Duration::from_micros(2_500),
        outcome: ControlOutcome::Success,
    });
    rec.record_control(ControlRecord {
        request_id: "c1".into(),
        subtype: "can_use_tool".into(),
        direction: Direction::Inbound,
        started_at: UNIX_EPOCH + Duration::from_millis(1_790_000_000_100),
        duration: Duration::from_micros(40),
        outcome: ControlOutcome::Cancelled,
    });
    rec.record_close(&clean_exit());
    let t = rec.snapshot();

    let text = t.to_json_pretty();
    let back: Transcript = serde_json::from_str(&text).unwrap();
    assert_eq!(back, t);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["run"]["entry_point"], "client");
    assert_eq!(v["incomplete"], false);
    assert_eq!(
        v["control_requests"][0]["started_at_unix_ms"],
        1_790_000_000_000_u64
    );
    assert_eq!(v["control_requests"][1]["outcome"]["status"], "cancelled");
    assert_eq!(v["decisions"][0]["kind"], "permission");
    assert_eq!(v["close"]["escalation"], "none");
}
