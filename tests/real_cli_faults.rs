//! The fault catalogue (docs/FAULTS.md), each fault against the real CLI
//! offline (the scripted model server): what the runtime does and what the
//! user sees, then the fault checks (no process left, one reply per
//! request, the report's signals accounted for).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use claude_agent::callbacks::AllowList;
use claude_agent::fault::{FaultPlan, FaultReport, check};
use claude_agent::protocol::Message;
use claude_agent::store::{MemoryStore, SessionKey, SessionStore};
use claude_agent::{
    Error, client::Client, client::ClientBuilder, extensions::SessionReport, runtime::Escalation,
};
use claude_agent_testkit::model::{ModelScript, Reply};
use futures::StreamExt;
use real_cli::{Rig, TURN};
use serde_json::json;

const KILL: i32 = libc::SIGKILL;

/// A model that asks for one Bash call (a permission prompt), then answers.
fn tool_script() -> ModelScript {
    ModelScript::new()
        .reply(Reply::tool_use(
            "t1",
            "Bash",
            json!({"command": "touch made-by-tool"}),
        ))
        .reply(Reply::text("done after the tool"))
}

fn text_script() -> ModelScript {
    ModelScript::new().reply(Reply::text("hello from the model"))
}

fn plan(specs: &[&str]) -> FaultPlan {
    specs
        .iter()
        .fold(FaultPlan::new(), |p, s| p.with(s).unwrap())
}

/// The rig's builder with the plan, a Bash-allowing permission callback
/// and a diagnostics counter.
fn builder(rig: &Rig, specs: &[&str], skipped: &Arc<AtomicU64>) -> ClientBuilder {
    let counted = skipped.clone();
    rig.builder(rig.options())
        .can_use_tool(AllowList::new(["Bash"], Vec::<String>::new()))
        .on_diagnostic(move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
        })
        .fault_plan(plan(specs))
}

/// Like [`builder`], with a permission callback that allows and tells
/// `asked` it was called.
fn builder_telling(rig: &Rig, specs: &[&str], asked: &Arc<tokio::sync::Notify>) -> ClientBuilder {
    let asked = asked.clone();
    rig.builder(rig.options())
        .can_use_tool(
            move |_: claude_agent::protocol::PermissionRequest,
                  _: claude_agent::callbacks::PermissionContext| {
                asked.notify_one();
                async { Ok(claude_agent::callbacks::allow()) }
            },
        )
        .fault_plan(plan(specs))
}

/// Sends `prompt`, waits until the permission callback ran, then reads
/// for `window`: a turn the fault keeps from ending shows nothing more.
async fn read_after_asked(
    client: &Client,
    prompt: &str,
    asked: &tokio::sync::Notify,
    window: Duration,
) -> Seen {
    client.send(prompt).await.unwrap();
    tokio::time::timeout(TURN, asked.notified()).await.unwrap();
    read_stream(client, window).await
}

async fn connect(b: ClientBuilder) -> Client {
    tokio::time::timeout(TURN, b.connect())
        .await
        .unwrap()
        .unwrap()
}

/// One turn as the user sees it: each message with when it arrived, and
/// the error that ended the stream early, if any.
struct Seen {
    messages: Vec<(Instant, Message)>,
    error: Option<Error>,
    /// False when `within` passed before the stream ended.
    ended: bool,
}

impl Seen {
    fn result(&self) -> Option<&claude_agent::protocol::ResultMessage> {
        self.messages.iter().find_map(|(_, m)| match m {
            Message::Result(r) => Some(&**r),
            _ => None,
        })
    }

    fn first(&self, kind: &str) -> Option<Instant> {
        self.messages
            .iter()
            .find(|(_, m)| {
                let k = m.kind();
                k == kind
                    || k.strip_prefix(kind)
                        .is_some_and(|rest| rest.starts_with('/'))
            })
            .map(|(t, _)| *t)
    }

    fn kinds(&self) -> Vec<String> {
        self.messages.iter().map(|(_, m)| m.kind()).collect()
    }
}

async fn read_turn(client: &Client, prompt: &str, within: Duration) -> Seen {
    client.send(prompt).await.unwrap();
    read_stream(client, within).await
}

/// The turn's messages until its end or `within`.
async fn read_stream(client: &Client, within: Duration) -> Seen {
    let mut stream = client.receive_response();
    let mut seen = Seen {
        messages: Vec::new(),
        error: None,
        ended: false,
    };
    let read = async {
        while let Some(item) = stream.next().await {
            match item {
                Ok(m) => seen.messages.push((Instant::now(), m)),
                Err(e) => {
                    seen.error = Some(e);
                    break;
                }
            }
        }
    };
    seen.ended = tokio::time::timeout(within, read).await.is_ok();
    seen
}

/// Connects with `specs`, runs one turn of `prompt` and asserts that it
/// completes: the faults at hand delay or disturb the session, never end it.
async fn completes(rig: &Rig, specs: &[&str], prompt: &str) -> (Client, Arc<AtomicU64>) {
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(rig, specs, &skipped)).await;
    let seen = read_turn(&client, prompt, TURN).await;
    assert!(
        seen.result().is_some_and(|r| !r.is_error()),
        "{:?}",
        seen.kinds()
    );
    (client, skipped)
}

/// Shuts down, then runs the three process/protocol checks.
async fn finish(client: &Client) -> (SessionReport, FaultReport) {
    let report = tokio::time::timeout(TURN, client.shutdown()).await.unwrap();
    let faults = FaultReport::from_report(&report).expect("the plan's report part");
    faults
        .no_process_left(Duration::from_secs(10))
        .await
        .unwrap();
    faults.one_reply_per_request().unwrap();
    faults.signals_match(&report.runtime).unwrap();
    (report, faults)
}

fn closed_by(seen: &Seen, signal: i32) {
    match &seen.error {
        Some(Error::Session(claude_agent::runtime::SessionError::ClosedBeforeResult {
            exit,
            ..
        })) => {
            assert_eq!(exit.and_then(|e| e.signal), Some(signal), "{exit:?}");
        }
        other => panic!(
            "expected ClosedBeforeResult, got {other:?} after {:?}",
            seen.kinds()
        ),
    }
}

macro_rules! rig {
    ($script:expr) => {
        match Rig::start($script).await {
            Some(rig) => rig,
            None => return,
        }
    };
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn kill_at_the_first_permission_request_ends_the_turn_with_sigkill() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(
        &rig,
        &["kill@control_request.can_use_tool:1"],
        &skipped,
    ))
    .await;
    let seen = read_turn(&client, "run echo", TURN).await;
    closed_by(&seen, KILL);
    let (report, faults) = finish(&client).await;
    assert_eq!(report.exit.and_then(|e| e.signal), Some(KILL));
    let kill = faults.fired("kill").next().expect("the kill fired");
    assert!(kill.applied && kill.signal == Some(KILL), "{kill:?}");
    assert_eq!(kill.target.as_deref(), Some("group"));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn stall_stdout_after_the_first_assistant_delays_the_result_by_its_duration() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["stall-stdout:3000@assistant:1"], &skipped)).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(
        seen.result().is_some_and(|r| !r.is_error()),
        "{:?}",
        seen.kinds()
    );
    let held = seen.first("result").unwrap() - seen.first("assistant").unwrap();
    assert!(
        held >= Duration::from_millis(2900),
        "result {held:?} after the assistant"
    );
    let (_, faults) = finish(&client).await;
    assert_eq!(faults.fired("stall-stdout").count(), 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn sigterm_after_the_first_assistant_ends_the_turn_and_the_report_accounts_for_it() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(
        &rig,
        &["kill:TERM@before:control_request:1"],
        &skipped,
    ))
    .await;
    let seen = read_turn(&client, "run echo", TURN).await;
    assert!(seen.result().is_none(), "{:?}", seen.kinds());
    assert!(
        seen.error.as_ref().is_some_and(Error::is_closed),
        "{:?}",
        seen.error
    );
    let (report, faults) = finish(&client).await;
    assert!(report.exit.is_some());
    let term = faults.fired("kill").next().unwrap();
    assert_eq!(term.signal, Some(libc::SIGTERM));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn kill_leader_only_still_leaves_no_process_of_the_group() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["kill-leader@control_request:1"], &skipped)).await;
    let seen = read_turn(&client, "run echo", TURN).await;
    closed_by(&seen, KILL);
    let (_, faults) = finish(&client).await;
    assert_eq!(
        faults
            .fired("kill-leader")
            .next()
            .unwrap()
            .target
            .as_deref(),
        Some("leader")
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn stop_with_resume_pauses_the_cli_and_the_turn_completes() {
    let rig = rig!(tool_script());
    let (client, _) = completes(&rig, &["stop:2000@control_request:1"], "run echo").await;
    // The escalation is not asserted: on a loaded machine the CLI may
    // take longer than the rig's short grace to exit.
    let (_, faults) = finish(&client).await;
    assert_eq!(
        faults.fired("stop").next().unwrap().signal,
        Some(libc::SIGSTOP)
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_cli_stopped_for_good_is_killed_by_the_shutdown_ladder() {
    let rig = rig!(tool_script());
    let asked = Arc::new(tokio::sync::Notify::new());
    // Stopped while it waits for the permission reply: it never reads it.
    let client = connect(builder_telling(&rig, &["stop@control_request:1"], &asked)).await;
    let seen = read_after_asked(&client, "run echo", &asked, Duration::from_secs(2)).await;
    assert!(!seen.ended && seen.result().is_none(), "{:?}", seen.kinds());
    let (report, _) = finish(&client).await;
    assert_eq!(report.escalation, Escalation::Kill);
    assert_eq!(report.exit.and_then(|e| e.signal), Some(KILL));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn cont_to_a_running_cli_changes_nothing() {
    let rig = rig!(text_script());
    let (client, _) = completes(&rig, &["cont@assistant:1"], "hello").await;
    // The escalation is not asserted: on a loaded machine the CLI may
    // take longer than the rig's short grace to exit.
    let (_, faults) = finish(&client).await;
    assert_eq!(
        faults.fired("cont").next().unwrap().signal,
        Some(libc::SIGCONT)
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn stall_stdin_holds_the_permission_reply_and_the_turn_completes() {
    let rig = rig!(tool_script());
    let (client, _) = completes(&rig, &["stall-stdin:2000@control_request:1"], "run echo").await;
    let (_, faults) = finish(&client).await;
    assert_eq!(faults.requests.len(), 1);
    assert_eq!(faults.requests[0].replies, 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn close_stdout_mid_turn_ends_the_turn_and_the_cli_is_stopped() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["close-stdout@control_request:1"], &skipped)).await;
    let seen = read_turn(&client, "run echo", TURN).await;
    assert!(seen.result().is_none(), "{:?}", seen.kinds());
    assert!(seen.error.is_some(), "the stream ends with an error");
    let (report, _) = finish(&client).await;
    assert!(report.exit.is_some());
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn close_stdin_mid_turn_lets_the_cli_end_and_nothing_is_left() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["close-stdin@control_request:1"], &skipped)).await;
    let seen = read_turn(&client, "run echo", TURN).await;
    assert!(seen.ended, "{:?}", seen.kinds());
    let (report, faults) = finish(&client).await;
    assert!(report.exit.is_some());
    assert_eq!(faults.fired("close-stdin").count(), 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_delayed_permission_reply_arrives_late_and_the_turn_completes() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(
        &rig,
        &["delay-reply:2000@control_request.can_use_tool:1"],
        &skipped,
    ))
    .await;
    let started = Instant::now();
    let seen = read_turn(&client, "run echo", TURN).await;
    assert!(
        seen.result().is_some_and(|r| !r.is_error()),
        "{:?}",
        seen.kinds()
    );
    assert!(started.elapsed() >= Duration::from_secs(2));
    let (_, faults) = finish(&client).await;
    assert_eq!(faults.requests[0].replies, 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_dropped_permission_reply_leaves_the_turn_waiting_until_shutdown() {
    let rig = rig!(tool_script());
    let asked = Arc::new(tokio::sync::Notify::new());
    let specs = ["drop-reply@control_request.can_use_tool:1"];
    let client = connect(builder_telling(&rig, &specs, &asked)).await;
    let seen = read_after_asked(&client, "run echo", &asked, Duration::from_secs(2)).await;
    assert!(!seen.ended && seen.result().is_none(), "{:?}", seen.kinds());
    let (_, faults) = finish(&client).await;
    // The runtime answered once; the fault kept it from the CLI.
    assert_eq!(faults.requests[0].replies, 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_corrupted_assistant_frame_is_skipped_with_a_diagnostic_and_the_turn_completes() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["corrupt@assistant:1"], &skipped)).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    assert!(seen.first("assistant").is_none(), "{:?}", seen.kinds());
    finish(&client).await;
    assert!(skipped.load(Ordering::Relaxed) >= 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_truncated_assistant_frame_is_skipped_with_a_diagnostic() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["truncate:10@assistant:1"], &skipped)).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    assert!(seen.first("assistant").is_none(), "{:?}", seen.kinds());
    finish(&client).await;
    assert!(skipped.load(Ordering::Relaxed) >= 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_injected_garbage_line_before_the_result_is_skipped() {
    let rig = rig!(text_script());
    let (client, skipped) = completes(&rig, &["inject@before:result"], "hello").await;
    finish(&client).await;
    assert!(skipped.load(Ordering::Relaxed) >= 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_injected_frame_of_an_unknown_type_reaches_the_user_as_unknown() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let spec = r#"inject:{"type":"hologram","x":1}@assistant:1"#;
    let client = connect(builder(&rig, &[spec], &skipped)).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    assert!(
        seen.first("unknown/hologram").is_some(),
        "{:?}",
        seen.kinds()
    );
    finish(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_hung_callback_is_answered_with_an_error_at_the_callback_timeout() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let b = builder(
        &rig,
        &["hang-callback@control_request.can_use_tool:1"],
        &skipped,
    )
    .callback_timeout(Duration::from_secs(2));
    let client = connect(b).await;
    let seen = read_turn(&client, "run echo", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    let (_, faults) = finish(&client).await;
    assert_eq!(faults.requests[0].replies, 1, "the timeout's error reply");
    assert!(!rig.cwd_has("never"), "the tool did not run unasked");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_panicking_callback_is_answered_with_an_error_and_the_turn_goes_on() {
    let rig = rig!(tool_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(
        &rig,
        &["panic-callback@control_request.can_use_tool:1"],
        &skipped,
    ))
    .await;
    let seen = read_turn(&client, "run echo", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    let (_, faults) = finish(&client).await;
    assert_eq!(faults.requests[0].replies, 1);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn kill_at_stdin_eof_is_the_reported_cause_of_the_cli_s_death() {
    let rig = rig!(text_script());
    let (client, _) = completes(&rig, &["kill@stdin-eof"], "hello").await;
    let (report, faults) = finish(&client).await;
    assert_eq!(report.exit.and_then(|e| e.signal), Some(KILL));
    assert!(faults.fired("kill").next().unwrap().applied);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn eof_held_past_the_grace_escalates_to_sigterm() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let client = connect(builder(&rig, &["stall-stdin:6000@stdin-eof"], &skipped)).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    let (report, _) = finish(&client).await;
    assert_ne!(report.escalation, Escalation::None, "{report:?}");
    assert!(
        report.steps.iter().any(|s| s.to == Escalation::Term),
        "{report:?}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn kill_after_the_result_keeps_the_turn_and_reports_the_signal() {
    let rig = rig!(text_script());
    let (client, _) = completes(&rig, &["kill@result"], "hello").await;
    let (report, _) = finish(&client).await;
    assert_eq!(report.exit.and_then(|e| e.signal), Some(KILL));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn random_corruption_with_a_seed_is_recorded_frame_by_frame() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let options = rig.options().include_partial_messages(true);
    let counted = skipped.clone();
    let b = rig
        .builder(options)
        .on_diagnostic(move |_| {
            counted.fetch_add(1, Ordering::Relaxed);
        })
        .fault_plan(plan(&["corrupt@random:stream_event:50"]).seed(7));
    let client = connect(b).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    let (_, faults) = finish(&client).await;
    assert_eq!(faults.seed, 7);
    let fired = faults.fired("corrupt").count() as u64;
    assert!(
        fired >= 1,
        "with 50 % per stream event, one fires: {faults:?}"
    );
    assert_eq!(
        skipped.load(Ordering::Relaxed),
        fired,
        "one skipped line per corruption"
    );
}

/// The CLI's own transcript of `session_id` under `home`.
fn local_transcript(home: &std::path::Path, session_id: &str) -> std::path::PathBuf {
    let projects = home.join(".claude").join("projects");
    for dir in std::fs::read_dir(&projects).unwrap() {
        let path = dir.unwrap().path().join(format!("{session_id}.jsonl"));
        if path.is_file() {
            return path;
        }
    }
    panic!("no {session_id}.jsonl under {}", projects.display());
}

async fn store_run(spec: &str) -> Option<(SessionReport, Arc<MemoryStore>, Rig, String)> {
    let rig = Rig::start(text_script()).await?;
    let store = Arc::new(MemoryStore::new());
    let skipped = Arc::new(AtomicU64::new(0));
    let b = builder(&rig, &[spec], &skipped).session_store(store.clone());
    let client = connect(b).await;
    let seen = read_turn(&client, "hello", TURN).await;
    let session_id = seen.result().unwrap().session_id.clone().unwrap();
    let (report, _) = finish(&client).await;
    Some((report, store, rig, session_id))
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_failing_store_loses_entries_the_report_owns_up_to() {
    let Some((report, store, rig, session_id)) = store_run("fail-store@init").await else {
        return;
    };
    assert!(report.mirror_unpersisted.unwrap() > 0, "{report:?}");
    let key = SessionKey::new(
        claude_agent::store::project_key_for(rig.cwd.path()),
        &session_id,
    );
    let local = local_transcript(rig.home.path(), &session_id);
    let bound = Duration::from_secs(1);
    let compared = check::no_store_entry_lost(&*store, &key, &local, bound, &report)
        .await
        .unwrap();
    assert!(!compared.missing.is_empty());
    assert!(
        store
            .load(&key)
            .await
            .unwrap()
            .unwrap_or_default()
            .is_empty()
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_store_stalled_mid_flush_still_persists_every_entry() {
    let Some((report, store, rig, session_id)) = store_run("stall-store:1500@mid-flush").await
    else {
        return;
    };
    assert_eq!(report.mirror_unpersisted, Some(0), "{report:?}");
    let key = SessionKey::new(
        claude_agent::store::project_key_for(rig.cwd.path()),
        &session_id,
    );
    let local = local_transcript(rig.home.path(), &session_id);
    let compared =
        check::no_store_entry_lost(&*store, &key, &local, Duration::from_secs(1), &report)
            .await
            .unwrap();
    assert!(compared.missing.is_empty(), "{compared:?}");
    assert!(compared.local > 0);
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn every_fault_is_in_the_transcript_too() {
    let rig = rig!(text_script());
    let skipped = Arc::new(AtomicU64::new(0));
    let b = builder(&rig, &["cont@init", "inject@result"], &skipped).transcript(true);
    let client = connect(b).await;
    let seen = read_turn(&client, "hello", TURN).await;
    assert!(seen.result().is_some(), "{:?}", seen.kinds());
    let (_, faults) = finish(&client).await;
    let transcript = client.transcript().unwrap();
    assert_eq!(transcript.faults.len(), faults.injected.len());
    assert_eq!(transcript.faults.len(), 2, "{:?}", transcript.faults);
}
