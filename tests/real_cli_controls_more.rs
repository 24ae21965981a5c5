//! The TypeScript-only controls against the real CLI: flag settings seen
//! in the next model request and in `get_settings`, the reloads' typed
//! replies, and the thinking-budget and background requests accepted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent_testkit::model::{ModelScript, Reply};
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
async fn thinking_budget_and_background_requests_are_accepted() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("ok"))).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    // An error reply (e.g. a malformed request) would be an Err here.
    client.set_max_thinking_tokens(Some(4096)).await.unwrap();
    client.set_max_thinking_tokens(None).await.unwrap();
    client.background_tasks(None).await.unwrap();
    client.send("still fine").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.result.as_deref(), Some("ok"));
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
