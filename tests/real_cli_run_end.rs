//! `query()` against the real CLI: background work that asks for a
//! permission after the first result still gets an answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
use claude_agent::protocol::{Message, PermissionRequest};
use claude_agent_testkit::model::{ModelScript, Reply};
use futures::StreamExt;
use real_cli::{Rig, TURN, kinds};
use serde_json::json;

/// `reply` streamed slowly, so it lands after the main thread's result.
fn delayed(reply: Reply) -> Reply {
    match reply {
        Reply::Message {
            blocks,
            stop_reason,
            ..
        } => Reply::Message {
            blocks,
            stop_reason,
            chunk_delay: std::time::Duration::from_millis(700),
        },
        other => other,
    }
}

/// The main thread's model: start a background agent given `prompt`, say
/// so, and answer its completion with a follow-up turn ("Finished.").
fn background_agent(prompt: &str) -> ModelScript {
    ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_agent",
            "Agent",
            json!({"description": "later", "subagent_type": "general-purpose",
                   "prompt": prompt, "run_in_background": true}),
        ))
        .reply(Reply::text("Started in the background."))
        .reply(Reply::text("Finished."))
}

/// The run's results: the main turn's, then the follow-up the agent's
/// completion woke (see [`background_agent`]).
fn assert_main_turn_and_follow_up(messages: &[Message]) {
    let results: Vec<_> = messages
        .iter()
        .filter_map(|m| match m {
            Message::Result(r) => r.result.clone(),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        ["Started in the background.", "Finished."],
        "{:?}",
        kinds(messages)
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_background_agent_asking_after_the_first_result_gets_an_answer() {
    let script = background_agent("SUBAGENT-7: touch late.txt")
        .reply_for_prompt(
            "SUBAGENT-7",
            delayed(Reply::tool_use(
                "toolu_late",
                "Bash",
                json!({"command": "touch late.txt", "description": "touch"}),
            )),
        )
        .reply_for_prompt("SUBAGENT-7", Reply::text("Touched late.txt."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    // How many results the caller had seen when each permission was asked.
    let results_seen = Arc::new(AtomicUsize::new(0));
    let asked = Arc::new(Mutex::new(Vec::new()));
    let (seen, log) = (results_seen.clone(), asked.clone());
    let mut q = rig
        .builder(rig.options())
        .can_use_tool(move |req: PermissionRequest, _c: PermissionContext| {
            let command = req.input.as_ref().map(|i| i["command"].clone());
            log.lock()
                .unwrap()
                .push((seen.load(Ordering::SeqCst), command));
            async move { Ok::<_, CallbackError>(allow()) }
        })
        .query("start a background agent");
    let mut messages = Vec::new();
    let read = async {
        while let Some(m) = q.next().await {
            let m = m.unwrap();
            if matches!(m, Message::Result(_)) {
                results_seen.fetch_add(1, Ordering::SeqCst);
            }
            messages.push(m);
        }
    };
    tokio::time::timeout(TURN, read)
        .await
        .expect("the run ends");

    let asked = asked.lock().unwrap().clone();
    assert_eq!(
        asked,
        [(1, Some(json!("touch late.txt")))],
        "one permission request, after the first result"
    );
    assert!(rig.cwd_has("late.txt"), "the allowed command ran");
    assert_main_turn_and_follow_up(&messages);
    assert!(
        !kinds(&messages).contains(&"system/session_state_changed".to_owned()),
        "host-only state frames stay out of the caller's stream"
    );
    let report = q.shutdown_report().expect("a report once the stream ended");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)), "{report:?}");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn without_callbacks_a_background_agents_follow_up_turn_completes() {
    // No callback: stdin closes at the first result, as under the official
    // SDKs, and the CLI finishes the agent and its follow-up turn on its
    // own, which takes longer than the grace set here.
    let script = background_agent("SUBAGENT-8: take your time")
        .reply_for_prompt("SUBAGENT-8", delayed(Reply::text("Done, slowly.")));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let mut q = rig
        .builder(rig.options())
        .grace(std::time::Duration::from_millis(500))
        .query("start a background agent");
    let mut messages = Vec::new();
    let read = async {
        while let Some(m) = q.next().await {
            messages.push(m.unwrap());
        }
    };
    tokio::time::timeout(TURN, read)
        .await
        .expect("the run ends");
    assert_main_turn_and_follow_up(&messages);
    let report = q.shutdown_report().expect("a report once the stream ended");
    assert_eq!(report.exit.map(|e| e.code), Some(Some(0)), "{report:?}");
    assert!(
        report.steps.is_empty(),
        "no signal was needed: {:?}",
        report.steps
    );
}
