//! The TypeScript-only controls against the real CLI: flag settings seen
//! in the next model request and in `get_settings`, the reloads' typed
//! replies, a thinking budget seen in the next model request, and a
//! running command moved to the background.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::time::Duration;

use claude_agent::protocol::{Message, SystemMessage};
use claude_agent_testkit::model::{ModelScript, Reply};
use futures::StreamExt;
use real_cli::{Rig, shutdown, turn};
use serde_json::json;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn apply_flag_settings_changes_the_next_turn_and_get_settings_shows_it() {
    let script = ModelScript::new()
        .reply(Reply::text("a"))
        .reply(Reply::text("b"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options().model("test-model-a")).await;
    client.send("one").await.unwrap();
    turn(&client).await;
    let flags = json!({"model": "test-model-b"});
    client
        .apply_flag_settings(flags.as_object().unwrap().clone())
        .await
        .unwrap();
    let settings = client.get_settings().await.unwrap();
    let applied = settings.applied.unwrap();
    assert_eq!(applied["model"], "test-model-b", "{applied:?}");
    client.send("two").await.unwrap();
    turn(&client).await;
    let models: Vec<_> = rig
        .server
        .main_requests()
        .iter()
        .map(|r| r.model().map(str::to_owned))
        .collect();
    assert_eq!(
        models,
        [
            Some("test-model-a".to_owned()),
            Some("test-model-b".to_owned())
        ]
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn reloads_return_the_sessions_skills_commands_agents_and_plugins() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let skills = client.reload_skills().await.unwrap().skills.unwrap();
    assert!(
        skills.iter().any(|s| s.name.as_deref() == Some("init")),
        "{skills:?}"
    );
    let reply = client.reload_plugins().await.unwrap();
    assert_eq!(reply.error_count, Some(0), "{:?}", reply.extra);
    assert_eq!(reply.held, None, "not asked to hold");
    let commands = reply.commands.unwrap();
    assert!(
        commands
            .iter()
            .any(|c| c.name.as_deref() == Some("compact"))
    );
    let agents = reply.agents.unwrap();
    assert!(
        agents
            .iter()
            .any(|a| a.name.as_deref() == Some("general-purpose")),
        "{agents:?}"
    );
    assert!(reply.mcp_servers.is_some());
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_thinking_budget_reaches_the_next_model_request_and_none_restores_the_default() {
    let script = ModelScript::new()
        .reply(Reply::text("a"))
        .reply(Reply::text("b"))
        .reply(Reply::text("c"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    // A model with a fixed thinking budget (adaptive models ignore one).
    let client = rig.connect(rig.options().model("claude-sonnet-4-5")).await;
    client.send("default").await.unwrap();
    turn(&client).await;
    client.set_max_thinking_tokens(Some(4096)).await.unwrap();
    client.send("budgeted").await.unwrap();
    turn(&client).await;
    client.set_max_thinking_tokens(None).await.unwrap();
    client.send("reset").await.unwrap();
    turn(&client).await;
    let budgets: Vec<_> = rig
        .server
        .main_requests()
        .iter()
        .map(|r| r.body["thinking"]["budget_tokens"].as_u64())
        .collect();
    assert_eq!(budgets.len(), 3, "{budgets:?}");
    assert_eq!(budgets[1], Some(4096), "{budgets:?}");
    assert!(budgets[0].is_some_and(|b| b != 4096), "{budgets:?}");
    assert_eq!(budgets[2], budgets[0], "None restores the default");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn background_tasks_moves_a_running_command_and_its_output_stays_readable() {
    // The command prints, then blocks on a FIFO the test holds shut, so it
    // is certainly still running when it is moved.
    let script = |cwd: &Path| {
        let gate = cwd.join("gate");
        let command = format!("echo started; cat {} > /dev/null", gate.display());
        ModelScript::new()
            .reply(Reply::tool_use(
                "toolu_b",
                "Bash",
                json!({"command": command, "description": "wait at the gate"}),
            ))
            .reply(Reply::text("Moved."))
    };
    let Some(rig) = Rig::start_with(script).await else {
        return;
    };
    let gate = rig.cwd.path().join("gate");
    let made = std::process::Command::new("mkfifo").arg(&gate).status();
    assert!(made.unwrap().success());
    let client = rig.connect(rig.options().allowed_tools(["Bash"])).await;
    client.send("run it").await.unwrap();

    let mut stream = client.receive_response();
    let read = async {
        let mut task = None;
        let mut moved = None;
        let mut result = None;
        while let Some(m) = stream.next().await {
            match m.unwrap() {
                Message::System(SystemMessage::TaskStarted(t)) if task.is_none() => {
                    moved = Some(client.background_tasks(None).await.unwrap());
                    task = t.task_id.clone();
                }
                Message::Result(r) => result = r.result.clone(),
                _ => {}
            }
        }
        (task, moved, result)
    };
    let (task, moved, result) = tokio::time::timeout(Duration::from_secs(60), read)
        .await
        .unwrap();
    assert_eq!(moved, Some(true));
    assert_eq!(result.as_deref(), Some("Moved."), "the turn went on");
    let tool_result = rig.server.main_requests()[1].tool_results()[0].text();
    assert!(tool_result.contains("backgrounded"), "{tool_result}");

    let output = client.get_task_output(&task.unwrap()).await.unwrap();
    assert_eq!(output.output.as_deref(), Some("started\n"), "{output:?}");
    // Opening the FIFO for writing and closing it lets the command end.
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&gate);
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn update_settings_writes_the_projects_local_settings_file() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let settings = json!({"outputStyle": "Explanatory"});
    client
        .update_settings(
            claude_agent::client::SettingsFile::Local,
            settings.as_object().unwrap().clone(),
        )
        .await
        .unwrap();
    let path = rig.cwd.path().join(".claude/settings.local.json");
    let written = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let written: serde_json::Value = serde_json::from_str(&written).unwrap();
    assert_eq!(written["outputStyle"], "Explanatory", "{written}");
    shutdown(&client).await;
}
