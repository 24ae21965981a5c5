//! `ClientBuilder::prewarm` against the real CLI 2.1.332: a spare parked
//! with `--await-claim` in a private directory is claimed for a directory
//! chosen later, reads that directory's `CLAUDE.md` for its first turn and
//! leaves no parking directory; a refused claim leaves nothing running;
//! a parked spare reports its slash commands and their changes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent::client::Claim;
use claude_agent::options::AgentDefinition;
use claude_agent::protocol::ResultSubtype;
use claude_agent::{Error, runtime::ControlError};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, assert_gone, shutdown, turn};

/// The CLI's working directory as the kernel has it.
fn cwd_of(pid: u32) -> std::path::PathBuf {
    std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap()
}

/// A spare prewarmed from `options`, which name no working directory
/// (`Rig::options_without_cwd`), so it waits in a parking directory until
/// claimed.
async fn park(rig: &Rig, options: claude_agent::options::Options) -> claude_agent::client::Spare {
    rig.builder(options).prewarm().await.unwrap()
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_spare_claimed_for_a_later_directory_runs_its_first_turn_there() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("done"))).await else {
        return;
    };
    let marker = format!("claimed-project-marker-{}", std::process::id());
    std::fs::write(rig.cwd.path().join("CLAUDE.md"), &marker).unwrap();
    let spare = park(&rig, rig.options_without_cwd()).await;
    let pid = spare.client().pid().unwrap();
    let parked = cwd_of(pid);
    let temp = std::fs::canonicalize(std::env::temp_dir()).unwrap();
    assert!(
        parked.starts_with(temp.join("claude-agent-spares")),
        "{parked:?}"
    );

    let (client, reply) = spare
        .claim(Claim::new(rig.cwd.path()).title("Claimed"))
        .await
        .unwrap();
    assert_eq!(reply.status.as_deref(), Some("ok"), "{reply:?}");
    let cwd = std::fs::canonicalize(rig.cwd.path()).unwrap();
    assert_eq!(reply.cwd.as_deref(), Some(cwd.to_str().unwrap()));
    assert!(reply.session_id.is_some_and(|id| !id.is_empty()));
    assert!(reply.initialize.is_some());
    assert!(
        !parked.exists(),
        "the parking directory is left: {parked:?}"
    );

    client.send("hi").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    let main = rig.server.main_requests();
    let body = main[0].body.to_string();
    assert!(
        body.contains(&marker),
        "the claimed directory's CLAUDE.md is not in the request"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_refused_claim_is_the_clis_error_and_leaves_nothing_running() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let spare = park(&rig, rig.options_without_cwd()).await;
    let pid = spare.client().pid().unwrap();
    let parked = cwd_of(pid);
    // Not on the CLI's claim allow-list.
    let claim = Claim::new(rig.cwd.path()).env("SOME_OTHER_KEY", "v");
    let err = spare.claim(claim).await.unwrap_err();
    assert!(
        matches!(err, Error::Control(ControlError::Remote { .. })),
        "{err}"
    );
    assert_gone(pid).await;
    assert!(
        !parked.exists(),
        "the parking directory is left: {parked:?}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_closed_spare_leaves_no_process_and_no_parking_directory() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let spare = park(&rig, rig.options_without_cwd()).await;
    let pid = spare.client().pid().unwrap();
    let parked = cwd_of(pid);
    let report = spare.close().await;
    assert!(report.exit.is_some(), "{report:?}");
    assert_gone(pid).await;
    assert!(
        !parked.exists(),
        "the parking directory is left: {parked:?}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_claims_model_and_thinking_budget_reach_the_first_request() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("done"))).await else {
        return;
    };
    let spare = park(&rig, rig.options_without_cwd().model("test-model-a")).await;
    let claim = Claim::new(rig.cwd.path())
        .model("claude-sonnet-4-5")
        .max_thinking_tokens(4096);
    let (client, _) = spare.claim(claim).await.unwrap();
    client.send("hi").await.unwrap();
    turn(&client).await;
    let main = rig.server.main_requests();
    assert_eq!(main[0].model(), Some("claude-sonnet-4-5"));
    assert_eq!(
        main[0].body["thinking"]["budget_tokens"], 4096,
        "{:?}",
        main[0].body["thinking"]
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_claims_agents_are_offered_by_the_claimed_session() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let spare = park(&rig, rig.options_without_cwd()).await;
    let claim = Claim::new(rig.cwd.path()).agent(
        "claim-reviewer",
        AgentDefinition::new("Reviews code at claim", "You review."),
    );
    let (client, reply) = spare.claim(claim).await.unwrap();
    let initialize = reply.initialize.expect("the claim asked for initialize");
    let names: Vec<&str> = initialize["agents"]
        .as_array()
        .expect("the payload lists agents")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert!(names.contains(&"claim-reviewer"), "{names:?}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_claims_settings_overlay_is_in_force_for_the_first_turn() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("done"))).await else {
        return;
    };
    let spare = park(&rig, rig.options_without_cwd().model("test-model-a")).await;
    let overlay = serde_json::json!({"model": "test-model-b"});
    let claim = Claim::new(rig.cwd.path()).settings(overlay.as_object().unwrap().clone());
    let (client, _) = spare.claim(claim).await.unwrap();
    let settings = client.get_settings().await.unwrap();
    let effective = settings.effective.unwrap_or_default();
    assert_eq!(effective["model"], "test-model-b", "{effective:?}");
    client.send("hi").await.unwrap();
    turn(&client).await;
    assert_eq!(rig.server.main_requests()[0].model(), Some("test-model-b"));
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_parked_spare_reports_its_commands_and_each_change_before_the_claim() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let mut spare = park(&rig, rig.options_without_cwd()).await;
    let names = |list: &[claude_agent::protocol::SlashCommand]| -> Vec<String> {
        list.iter().filter_map(|c| c.name.clone()).collect()
    };
    let initial = names(&spare.commands().unwrap());
    assert!(initial.iter().any(|n| n == "compact"), "{initial:?}");
    assert!(!initial.iter().any(|n| n == "parked-skill"), "{initial:?}");

    // A user skill that appears while the spare is parked.
    let skill = rig.home.path().join(".claude/skills/parked-skill");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: parked-skill\ndescription: Found while parked.\n---\nSay hello.\n",
    )
    .unwrap();
    spare.client().reload_skills().await.unwrap();
    let changed = tokio::time::timeout(real_cli::TURN, spare.next_commands_change())
        .await
        .expect("a commands_changed frame")
        .unwrap()
        .expect("the spare is still running");
    assert!(
        names(&changed).iter().any(|n| n == "parked-skill"),
        "{changed:?}"
    );
    assert_eq!(
        spare.commands().unwrap(),
        changed,
        "the latest list replaces the first"
    );

    let (client, reply) = spare.claim(Claim::new(rig.cwd.path())).await.unwrap();
    assert_eq!(reply.status.as_deref(), Some("ok"), "{reply:?}");
    shutdown(&client).await;
}
