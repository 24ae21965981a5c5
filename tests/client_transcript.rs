//! Transcripts and raw-frame recordings through a real `Client` session,
//! and a recording replayed through the fake CLI re-running the host's
//! callbacks deterministically.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::callbacks::{PermissionContext, allow, deny};
use claude_agent::protocol::{PermissionRequest, PermissionResult};
use claude_agent::transcript::{ReplayOptions, read_recording, recording_to_script_json};
use claude_agent::{client::Client, client::ClientBuilder};
use claude_agent_testkit::Script;
use common::*;
use futures::StreamExt;
use serde_json::{Value, json};

fn tool_turn() -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(tool_use("toolu_1", "Bash", json!({"command": "ls"})))
        .emit(cli_request(
            "perm-1",
            json!({"subtype": "can_use_tool", "tool_name": "Bash",
                "input": {"command": "ls"}, "tool_use_id": "toolu_1"}),
        ))
        .step(expect_reply("perm-1"))
        .emit(tool_result("toolu_1", "file.txt"))
        .emit(assistant("there is one file"))
        .emit(result("success", "there is one file"))
}

async fn policy(
    req: PermissionRequest,
    _ctx: PermissionContext,
) -> Result<PermissionResult, claude_agent::callbacks::CallbackError> {
    Ok(if req.tool_name.as_deref() == Some("Bash") {
        allow()
    } else {
        deny("no")
    })
}

async fn run_turn(client: &Client) {
    client.send("list files").await.unwrap();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        m.unwrap();
    }
}

fn tool_call_summary(t: &claude_agent::transcript::Transcript) -> Value {
    let v = serde_json::to_value(&t.tool_calls).unwrap();
    json!(
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| json!({
                "id": c["tool_use_id"], "name": c["name"],
                "behavior": c["decision"]["behavior"], "result": c["result"]["content"],
            }))
            .collect::<Vec<_>>()
    )
}

#[tokio::test]
async fn a_client_transcript_correlates_tool_calls_and_records_the_run() {
    let fake = fake(tool_turn());
    let client = fake
        .builder()
        .can_use_tool(policy)
        .transcript(true)
        .connect()
        .await
        .unwrap();
    run_turn(&client).await;
    client.shutdown().await;
    let t = client.transcript().unwrap();
    assert_eq!(t.session_id.as_deref(), Some("s-1"));
    assert!(!t.incomplete);
    assert_eq!(t.results.len(), 1);
    assert_eq!(
        tool_call_summary(&t),
        json!([{"id": "toolu_1", "name": "Bash", "behavior": "allow", "result": "file.txt"}])
    );
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(v["run"]["entry_point"], "client");
    assert_eq!(v["run"]["cli_version"], "2.1.332");
    assert_eq!(v["run"]["transport"], "subprocess");
    let controls = v["control_requests"].as_array().unwrap();
    assert!(
        controls.iter().any(|c| c["subtype"] == "can_use_tool"
            && c["direction"] == "in"
            && c["outcome"]["status"] == "success"),
        "{controls:?}"
    );
    assert_eq!(v["close"]["reaped"], true);
    assert_eq!(v["close"]["escalation"], "none");
}

#[tokio::test]
async fn a_turn_cut_off_by_a_crash_is_incomplete_with_the_transport_error() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .emit(assistant("partial"))
            .crash("KILL"),
    );
    let client = fake.builder().transcript(true).connect().await.unwrap();
    client.send("go").await.unwrap();
    let mut turn = client.receive_response();
    while let Some(item) = turn.next().await {
        if item.is_err() {
            break;
        }
    }
    drop(turn);
    client.shutdown().await;
    let t = client.transcript().unwrap();
    assert!(t.incomplete);
    assert!(
        t.transport_error
            .as_deref()
            .unwrap()
            .contains("before the turn's result")
    );
    assert!(t.results.is_empty());
}

#[tokio::test]
async fn a_query_transcript_says_query() {
    let fake = fake(Script::new().expect_initialize().loop_turns("hello"));
    let mut q = fake.builder().transcript(true).query("hi");
    while let Some(m) = q.next().await {
        m.unwrap();
    }
    let v = serde_json::to_value(q.transcript().unwrap()).unwrap();
    assert_eq!(v["run"]["entry_point"], "query");
    assert_eq!(v["incomplete"], false);
    assert!(v["close"].is_object());
}

#[tokio::test]
async fn a_recording_replayed_through_the_fake_cli_reruns_the_callbacks_the_same_way() {
    // Record a real session of the host (callbacks and all)...
    let fake = fake(tool_turn());
    let recording = fake.dir.path().join("frames.ndjson");
    let client = fake
        .builder()
        .can_use_tool(policy)
        .transcript(true)
        .record_frames(&recording)
        .connect()
        .await
        .unwrap();
    run_turn(&client).await;
    client.shutdown().await;
    let first = client.transcript().unwrap();
    let frames = read_recording(&recording).unwrap();
    assert!(
        frames
            .iter()
            .any(|f| f.json().is_some_and(|v| v["type"] == "user"))
    );
    assert!(frames.iter().any(|f| {
        f.json()
            .is_some_and(|v| v["request"]["subtype"] == "can_use_tool")
    }));

    // ...then play the CLI's side back and run the same host code again.
    let dir = tempfile::tempdir().unwrap();
    let script: Script =
        serde_json::from_value(recording_to_script_json(&frames, &ReplayOptions::default()))
            .unwrap();
    let replay = script.install(dir.path()).unwrap();
    let mut options = claude_agent::options::Options::new().cli_path(&replay.program);
    for (k, v) in &replay.env {
        options = options.env(k, v);
    }
    let client = ClientBuilder::new(options)
        .can_use_tool(policy)
        .transcript(true)
        .grace(std::time::Duration::from_millis(300))
        .connect()
        .await
        .unwrap();
    run_turn(&client).await;
    client.shutdown().await;
    let second = client.transcript().unwrap();
    assert_eq!(tool_call_summary(&first), tool_call_summary(&second));
    let reply = replay
        .recorded_lines()
        .into_iter()
        .find(|l| l["type"] == "control_response" && l["response"]["request_id"] == "perm-1")
        .unwrap();
    assert_eq!(reply["response"]["response"]["behavior"], "allow");
}
