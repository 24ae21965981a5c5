//! The later options against the real CLI 2.1.332, where it shows them:
//! system-prompt blocks and an in-process server's instructions reach the
//! model, plan-mode instructions reach the plan reminder, `debug_file`
//! receives the CLI's log, `permission_prompts(None)` denies without asking,
//! managed settings deny a tool an allow rule allows, and
//! `project_config_root` supplies the project's commands.
//!
//! Needs the real CLI named by `CLAUDE_AGENT_CLI`, so `#[ignore]`d.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use claude_agent::callbacks::mcp::{SdkMcpServer, Tool, ToolResult};
use claude_agent::callbacks::{CallbackError, PermissionContext, allow};
use claude_agent::options::{
    PermissionMode, PermissionPrompts, SYSTEM_PROMPT_DYNAMIC_BOUNDARY, SystemPrompt,
};
use claude_agent::protocol::PermissionRequest;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::{Map, Value, json};

/// Every main request's body, as one text.
fn sent(rig: &Rig) -> String {
    rig.server
        .main_requests()
        .iter()
        .map(|r| r.body.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn system_prompt_blocks_are_the_models_system_prompt() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("ok"))).await else {
        return;
    };
    let prompt = SystemPrompt::blocks([
        "You are BLOCK-ONE-4411.",
        SYSTEM_PROMPT_DYNAMIC_BOUNDARY,
        "Session note BLOCK-TWO-4412.",
    ]);
    let client = rig.connect(rig.options().system_prompt(prompt)).await;
    client.send("hi").await.unwrap();
    turn(&client).await;
    let first = rig.server.main_requests().into_iter().next().unwrap();
    let system = first.system().unwrap_or_default();
    assert!(system.contains("BLOCK-ONE-4411"), "{system:.400}");
    assert!(system.contains("BLOCK-TWO-4412"), "{system:.400}");
    assert!(!system.contains("__SYSTEM_PROMPT_DYNAMIC_BOUNDARY__"));
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_in_process_servers_instructions_reach_the_model() {
    let Some(rig) = Rig::start(ModelScript::new().fallback(Reply::text("ok"))).await else {
        return;
    };
    let ping = Tool::new(
        "ping",
        "Answers pong",
        json!({"type": "object"}),
        |_a: Value, _c| async { Ok::<_, CallbackError>(ToolResult::text("pong")) },
    );
    // `always_load` makes the CLI wait for the server before the first
    // request, so its instructions are there from the start.
    let server = SdkMcpServer::new("box", "1.0.0")
        .instructions("BOX-INSTRUCTIONS-7731: call ping first.")
        .always_load(true)
        .tool(ping);
    let client = rig
        .builder(rig.options())
        .mcp_server(server)
        .connect()
        .await
        .unwrap();
    client.send("hi").await.unwrap();
    turn(&client).await;
    client.send("again").await.unwrap();
    turn(&client).await;
    let text = sent(&rig);
    assert!(text.contains("BOX-INSTRUCTIONS-7731"), "{text:.600}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn plan_mode_instructions_replace_the_plan_reminders_workflow() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("planned"))).await else {
        return;
    };
    let options = rig
        .options()
        .permission_mode(PermissionMode::Plan)
        .plan_mode_instructions("PLAN-BODY-5150: list three steps.");
    let client = rig.connect(options).await;
    client.send("plan a refactor").await.unwrap();
    turn(&client).await;
    let text = sent(&rig);
    assert!(text.contains("PLAN-BODY-5150"), "{text:.600}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn debug_file_receives_the_clis_debug_log() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("ok"))).await else {
        return;
    };
    let log = rig.home.path().join("cli-debug.log");
    let client = rig.connect(rig.options().debug_file(&log)).await;
    client.send("hi").await.unwrap();
    turn(&client).await;
    shutdown(&client).await;
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.trim().is_empty(), "the debug log is empty");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn permission_prompts_none_denies_without_calling_the_callback() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_touch",
            "Bash",
            json!({"command": "touch made-by-bash"}),
        ))
        .reply(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&asked);
    let client = rig
        .builder(
            rig.options()
                .permission_mode(PermissionMode::Default)
                .permission_prompts(PermissionPrompts::None),
        )
        .can_use_tool(move |_req: PermissionRequest, _ctx: PermissionContext| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, CallbackError>(allow()) }
        })
        .connect()
        .await
        .unwrap();
    client.send("make the file").await.unwrap();
    turn(&client).await;
    assert_eq!(asked.load(Ordering::SeqCst), 0, "the callback was asked");
    assert!(!rig.cwd_has("made-by-bash"), "the command ran");
    let results = rig.server.main_requests()[1].tool_results();
    assert!(results[0].is_error, "{results:?}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn managed_settings_deny_a_tool_an_allow_rule_allows() {
    let script = ModelScript::new()
        .reply(Reply::tool_use(
            "toolu_touch",
            "Bash",
            json!({"command": "touch made-by-bash"}),
        ))
        .reply(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let mut managed = Map::new();
    managed.insert("permissions".into(), json!({"deny": ["Bash"]}));
    let options = rig
        .options()
        .allowed_tools(["Bash"])
        .managed_settings(managed);
    let client = rig.connect(options).await;
    client.send("make the file").await.unwrap();
    turn(&client).await;
    assert!(!rig.cwd_has("made-by-bash"), "the denied command ran");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn project_config_root_supplies_the_projects_commands() {
    let Some(rig) = Rig::start(ModelScript::new().fallback(Reply::text("ok"))).await else {
        return;
    };
    let root = tempfile::tempdir().unwrap();
    let commands = root.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("rootcmd8820.md"),
        "---\ndescription: from the config root\n---\nSay hi.\n",
    )
    .unwrap();
    let client = rig
        .connect(rig.options().project_config_root(root.path()))
        .await;
    let names: Vec<String> = client
        .supported_commands()
        .unwrap()
        .into_iter()
        .filter_map(|c| c.name)
        .collect();
    assert!(names.iter().any(|n| n.contains("rootcmd8820")), "{names:?}");
    shutdown(&client).await;
}
