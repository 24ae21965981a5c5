//! The permission callback deciding real tool calls of the real CLI,
//! observed on the file system and in the next model request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::{Arc, Mutex};

use claude_agent::callbacks::{CallbackError, PermissionContext, allow, allow_with_input, deny};
use claude_agent::protocol::{PermissionRequest, PermissionResult, ResultSubtype};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Value, json};

/// A Bash tool call, then a closing text.
fn touch_script(file: &str) -> ModelScript {
    ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_1",
            "Bash",
            json!({"command": format!("touch {file}"), "description": "touch"}),
        ))
        .reply(Reply::text("Finished."))
}

/// Runs one turn with `decide` as the permission callback; returns the
/// tool names and inputs it was asked about.
async fn run(
    rig: &Rig,
    decide: impl Fn(&Value) -> PermissionResult + Send + Sync + 'static,
) -> Vec<(String, Value)> {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let decide = Arc::new(decide);
    let callback = move |req: PermissionRequest, _ctx: PermissionContext| {
        let input = req.input.clone().unwrap_or(Value::Null);
        seen.lock()
            .unwrap()
            .push((req.tool_name.clone().unwrap_or_default(), input.clone()));
        let answer = decide(&input);
        async move { Ok::<_, CallbackError>(answer) }
    };
    let client = rig
        .builder(rig.options())
        .can_use_tool(callback)
        .connect()
        .await
        .unwrap();
    client.send("touch a file").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.result.as_deref(), Some("Finished."));
    shutdown(&client).await;
    asked.lock().unwrap().clone()
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_allowed_bash_call_runs() {
    let Some(rig) = Rig::start(touch_script("allowed.txt")).await else {
        return;
    };
    let asked = run(&rig, |_| allow()).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(asked[0].0, "Bash");
    assert_eq!(asked[0].1["command"], "touch allowed.txt");
    assert!(rig.cwd_has("allowed.txt"));
    let results = rig.server.main_requests()[1].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_1");
    assert!(!results[0].is_error, "{results:?}");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_denied_bash_call_does_not_run_and_the_model_hears_why() {
    let Some(rig) = Rig::start(touch_script("denied.txt")).await else {
        return;
    };
    let asked = run(&rig, |_| deny("not in this test")).await;
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(!rig.cwd_has("denied.txt"));
    let results = rig.server.main_requests()[1].tool_results();
    assert_eq!(results[0].tool_use_id, "toolu_1");
    assert!(results[0].is_error, "{results:?}");
    assert!(
        results[0].text().contains("not in this test"),
        "{results:?}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn updated_input_changes_what_the_tool_does() {
    let Some(rig) = Rig::start(touch_script("original.txt")).await else {
        return;
    };
    run(&rig, |input| {
        let mut input = input.clone();
        input["command"] = json!("touch rewritten.txt");
        allow_with_input(input)
    })
    .await;
    assert!(rig.cwd_has("rewritten.txt"));
    assert!(!rig.cwd_has("original.txt"));
    let results = rig.server.main_requests()[1].tool_results();
    assert!(!results[0].is_error, "{results:?}");
}
