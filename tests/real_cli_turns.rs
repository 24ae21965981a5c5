//! Two turns on one connection against the real CLI, and control requests
//! between turns (`set_model`, `set_permission_mode`) seen in what the CLI
//! does next.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::path::Path;

use claude_agent::options::PermissionMode;
use claude_agent::protocol::ResultSubtype;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, assistant_text, shutdown, turn};
use serde_json::json;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_second_turn_carries_the_first_turns_history() {
    let script = ModelScript::new()
        .reply(Reply::text("First answer."))
        .reply(Reply::text("Second answer."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("first question").await.unwrap();
    let (m1, r1) = turn(&client).await;
    assert_eq!(r1.result.as_deref(), Some("First answer."), "{r1:?}");
    assert_eq!(assistant_text(&m1), "First answer.");
    client.send("second question").await.unwrap();
    let (_, r2) = turn(&client).await;
    assert_eq!(r2.subtype, ResultSubtype::Success);
    assert_eq!(r2.result.as_deref(), Some("Second answer."));
    assert_eq!(r1.session_id, r2.session_id, "one session");

    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2, "one model call per turn");
    let history = main[1].body["messages"].to_string();
    for part in ["first question", "First answer.", "second question"] {
        assert!(history.contains(part), "{part} missing: {history:.600}");
    }
    assert!(
        !main[0].body["messages"]
            .to_string()
            .contains("second question")
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn set_model_between_turns_changes_the_requested_model() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options().model("test-model-a")).await;
    client.send("one").await.unwrap();
    turn(&client).await;
    client.set_model(Some("test-model-b")).await.unwrap();
    client.send("two").await.unwrap();
    turn(&client).await;
    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2);
    assert_eq!(main[0].model(), Some("test-model-a"));
    assert_eq!(main[1].model(), Some("test-model-b"));
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn set_permission_mode_between_turns_changes_what_the_cli_does() {
    // Turn 1 in plan mode: a Write is refused without running. Turn 2 after
    // switching to acceptEdits: a Write in the cwd runs unasked. (Switching
    // to bypassPermissions is refused unless the CLI was started with
    // --dangerously-skip-permissions.)
    let script = |cwd: &Path| {
        let planned = cwd.join("planned.txt");
        let accepted = cwd.join("accepted.txt");
        ModelScript::new()
            .reply(Reply::tool_use(
                "toolu_1",
                "Write",
                json!({"file_path": planned, "content": "x"}),
            ))
            .reply(Reply::text("Could not."))
            .reply(Reply::tool_use(
                "toolu_2",
                "Write",
                json!({"file_path": accepted, "content": "x"}),
            ))
            .reply(Reply::text("Done."))
    };
    let Some(rig) = Rig::start_with(script).await else {
        return;
    };
    let client = rig
        .connect(rig.options().permission_mode(PermissionMode::Plan))
        .await;
    client.send("touch a file").await.unwrap();
    turn(&client).await;
    assert!(!rig.cwd_has("planned.txt"), "plan mode ran a write");
    client
        .set_permission_mode(PermissionMode::AcceptEdits)
        .await
        .unwrap();
    client.send("touch another").await.unwrap();
    turn(&client).await;
    assert!(rig.cwd_has("accepted.txt"), "acceptEdits did not run it");
    let main = rig.server.main_requests();
    assert!(
        main[1].tool_results()[0].is_error,
        "{:?}",
        main[1].tool_results()
    );
    assert!(
        !main[3].tool_results()[0].is_error,
        "{:?}",
        main[3].tool_results()
    );
    shutdown(&client).await;
}
