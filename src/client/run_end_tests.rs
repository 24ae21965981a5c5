//! Event sequences for [`RunEnd`], after the reference SDKs' semantics.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;
use crate::protocol::parse_message;
use serde_json::json;

const CEILING: Duration = Duration::from_secs(60);

fn msg(v: serde_json::Value) -> Message {
    parse_message(v.to_string().as_bytes()).unwrap()
}

fn state(s: &str) -> Message {
    msg(
        json!({"type": "system", "subtype": "session_state_changed", "state": s,
        "sdk_host_only": true, "session_id": "s", "uuid": "u"}),
    )
}

fn started(id: &str, task_type: &str) -> Message {
    msg(
        json!({"type": "system", "subtype": "task_started", "task_id": id,
        "task_type": task_type, "session_id": "s", "uuid": "u"}),
    )
}

fn notified(id: &str) -> Message {
    msg(
        json!({"type": "system", "subtype": "task_notification", "task_id": id,
        "status": "completed", "session_id": "s", "uuid": "u"}),
    )
}

fn updated(id: &str, status: &str) -> Message {
    msg(
        json!({"type": "system", "subtype": "task_updated", "task_id": id,
        "patch": {"status": status}, "session_id": "s", "uuid": "u"}),
    )
}

fn assistant(parent: Option<&str>) -> Message {
    msg(
        json!({"type": "assistant", "parent_tool_use_id": parent, "session_id": "s",
        "uuid": "u", "message": {"id": "m", "type": "message", "role": "assistant",
        "model": "x", "content": [{"type": "text", "text": "hi"}], "stop_reason": null,
        "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    )
}

/// A run with callbacks whose one prompt was sent.
fn run() -> RunEnd {
    let mut r = RunEnd::new(true, Some(CEILING));
    r.prompt_sent();
    r
}

#[test]
fn a_cli_reporting_no_state_ends_the_run_at_the_result() {
    let t = Instant::now();
    let mut r = run();
    assert!(!r.ended(), "nothing ends before a result");
    r.on_result(t);
    assert!(r.ended());
    assert_eq!(r.deadline(), None);
}

#[test]
fn a_running_cli_holds_the_run_open_past_the_result_until_idle() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&state("running"), t);
    r.on_result(t);
    assert!(
        !r.ended(),
        "running after the result: a turn may still be owed"
    );
    assert_eq!(r.deadline(), Some(t + CEILING));
    r.on_message(&state("idle"), t);
    assert!(r.ended());
    assert_eq!(r.deadline(), None);
}

#[test]
fn idle_reported_just_before_the_result_ends_the_run_at_the_result() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&state("running"), t);
    r.on_message(&state("idle"), t);
    assert!(!r.ended(), "idle before any result ends nothing");
    r.on_result(t);
    assert!(r.ended());
}

#[test]
fn requires_action_stops_the_ceiling_and_running_restarts_it() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&state("running"), t);
    r.on_result(t);
    r.on_message(&state("requires_action"), t);
    assert_eq!(r.deadline(), None, "the host is answering a request");
    let later = t + Duration::from_secs(5);
    r.on_message(&state("running"), later);
    assert_eq!(r.deadline(), Some(later + CEILING));
    assert!(!r.ended());
}

#[test]
fn the_ceiling_ends_a_run_that_never_reports_idle() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&state("running"), t);
    r.on_result(t);
    r.ceiling_passed(t + CEILING - Duration::from_millis(1));
    assert!(!r.ended(), "not before the deadline");
    r.ceiling_passed(t + CEILING);
    assert!(r.ended());
}

#[test]
fn a_main_thread_turn_stops_the_ceiling_and_its_result_rearms_it() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&state("running"), t);
    r.on_result(t);
    r.on_message(&assistant(None), t);
    assert_eq!(r.deadline(), None, "a turn under way is not between turns");
    r.on_message(&assistant(Some("toolu_1")), t);
    let later = t + Duration::from_secs(1);
    r.on_result(later);
    assert_eq!(r.deadline(), Some(later + CEILING));
}

#[test]
fn subagent_frames_do_not_count_as_main_thread_turns() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&state("running"), t);
    r.on_result(t);
    r.on_message(&assistant(Some("toolu_1")), t);
    assert_eq!(r.deadline(), Some(t + CEILING));
}

#[test]
fn an_agent_task_in_flight_holds_the_run_even_past_idle_and_the_ceiling() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&started("a1", "local_agent"), t);
    r.on_result(t);
    assert!(!r.ended(), "no state, but an agent is in flight");
    r.on_message(&state("running"), t);
    r.ceiling_passed(t + CEILING);
    assert!(!r.ended(), "the ceiling leaves a live agent alone");
    let later = t + CEILING + Duration::from_secs(1);
    r.on_message(&notified("a1"), later);
    assert_eq!(
        r.deadline(),
        Some(later + CEILING),
        "the wait starts over once it settles"
    );
    r.on_message(&state("idle"), later);
    assert!(r.ended());
}

#[test]
fn a_terminal_task_update_settles_the_task_and_a_running_one_does_not() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&started("w1", "local_workflow"), t);
    r.on_result(t);
    r.on_message(&updated("w1", "running"), t);
    r.on_message(&state("idle"), t);
    assert!(!r.ended());
    r.on_message(&updated("w1", "killed"), t);
    r.on_message(&state("idle"), t);
    assert!(r.ended());
}

#[test]
fn background_shells_are_not_waited_for() {
    let t = Instant::now();
    let mut r = run();
    r.on_message(&started("b1", "local_bash"), t);
    r.on_result(t);
    assert!(
        r.ended(),
        "a shell may run forever; the CLI bounds it after EOF"
    );
}

#[test]
fn work_after_the_run_ended_reopens_it_until_the_next_idle() {
    let t = Instant::now();
    let mut r = run();
    r.on_result(t);
    assert!(r.ended());
    r.on_message(&state("running"), t);
    assert!(!r.ended());
    r.on_message(&state("idle"), t);
    assert!(r.ended());
}

#[test]
fn a_new_prompt_owes_its_own_result() {
    let t = Instant::now();
    let mut r = run();
    r.on_result(t);
    assert!(r.ended());
    r.prompt_sent();
    assert!(!r.ended());
    r.on_result(t);
    assert!(r.ended());
}

#[test]
fn without_callbacks_the_result_ends_the_run_even_while_running() {
    let t = Instant::now();
    let mut r = RunEnd::new(false, Some(CEILING));
    r.prompt_sent();
    r.on_message(&state("running"), t);
    r.on_result(t);
    assert!(r.ended());
    assert_eq!(r.deadline(), None);
}

#[test]
fn a_zero_ceiling_never_arms() {
    let t = Instant::now();
    let mut r = RunEnd::new(true, None);
    r.prompt_sent();
    r.on_message(&state("running"), t);
    r.on_result(t);
    assert_eq!(r.deadline(), None);
    assert!(!r.ended());
}

#[test]
fn the_ceiling_env_prefers_the_session_value_and_falls_back_on_junk() {
    let os = |s: &'static str| Some(OsStr::new(s));
    assert_eq!(ceiling(None, None), Some(DEFAULT_CEILING));
    assert_eq!(
        ceiling(os("250"), os("9000")),
        Some(Duration::from_millis(250))
    );
    assert_eq!(ceiling(None, os("9000")), Some(Duration::from_millis(9000)));
    assert_eq!(ceiling(os("0"), None), None);
    assert_eq!(ceiling(os("-5"), None), Some(DEFAULT_CEILING));
    assert_eq!(ceiling(os("1e6"), None), Some(DEFAULT_CEILING));
    assert_eq!(
        ceiling(os("99999999999999"), None),
        Some(Duration::from_millis(MAX_CEILING_MS))
    );
}

#[test]
fn query_sessions_ask_for_session_state_unless_a_value_was_chosen() {
    let mut asked = Options::new();
    ask_for_session_state(&mut asked, None);
    assert_eq!(
        env_value(&asked, READS_SESSION_STATE_ENV),
        Some(OsString::from("1"))
    );

    let mut chosen = Options::new().env("claude_code_sdk_reads_session_state", "0");
    ask_for_session_state(&mut chosen, None);
    assert_eq!(chosen.env.len(), 1, "the caller's own value stays alone");

    let mut inherited = Options::new();
    ask_for_session_state(&mut inherited, Some(OsStr::new("0")));
    assert!(
        inherited.env.is_empty(),
        "the inherited value reaches the CLI"
    );
}

#[test]
fn background_work_is_pending_while_an_agent_runs_or_the_cli_is_busy() {
    let t = Instant::now();
    let mut r = RunEnd::new(false, Some(CEILING));
    r.prompt_sent();
    r.on_result(t);
    assert!(!r.background_pending(), "nothing reported: nothing pending");
    r.on_message(&state("running"), t);
    assert!(r.background_pending());
    r.on_message(&state("idle"), t);
    assert!(!r.background_pending());
}
