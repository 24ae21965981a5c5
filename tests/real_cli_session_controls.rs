//! The TypeScript SDK's session requests against the real CLI: each typed
//! call decodes the CLI's own answer, and the edits take effect (a rename
//! is the title the session helpers read back; a permission rule from
//! the command line is listed with its source; a file read is the file).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::time::SystemTime;

use claude_agent::Error;
use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher};
use claude_agent::protocol::{HookInput, HookOutput};
use claude_agent::sessions::{LocalSessions, SessionSource, session_info};
use claude_agent::store::project_key_for;
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn usage_models_styles_and_settings_decode_typed_from_the_real_cli() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("a"))).await else {
        return;
    };
    let client = rig.connect(rig.options().model("test-model-a")).await;
    client.send("one").await.unwrap();
    turn(&client).await;

    let usage = client.get_usage(true).await.unwrap();
    let session = usage.session.expect("session usage");
    assert!(session.total_cost_usd.unwrap() > 0.0, "{session:?}");
    let by_model = session.model_usage.unwrap();
    let (_, model) = by_model.iter().next().expect("one model used");
    assert!(model.input_tokens.unwrap() > 0, "{model:?}");
    assert_eq!(
        usage.rate_limits_available,
        Some(false),
        "an API-key session"
    );
    assert_eq!(usage.behaviors, None, "skipped");

    let models = client.list_models().await.unwrap();
    assert!(
        models.iter().any(|m| m.value.as_deref() == Some("default")),
        "{models:?}"
    );
    let styles = client.reload_output_styles().await.unwrap();
    assert!(styles.iter().any(|s| s == "default"), "{styles:?}");

    let settings = client.get_settings().await.unwrap();
    let applied = settings.applied.unwrap();
    assert_eq!(applied["model"], "test-model-a", "{applied:?}");
    assert!(settings.sources.is_some() && settings.effective.is_some());
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_rename_is_the_title_the_session_helpers_read_back() {
    let Some(rig) = Rig::start(ModelScript::new().reply(Reply::text("a"))).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("one").await.unwrap();
    let (_, result) = turn(&client).await;
    let id = result.session_id.unwrap();
    client.rename_session("Quarterly report").await.unwrap();
    assert!(
        !client
            .cancel_async_message("00000000-0000-4000-8000-000000000000")
            .await
            .unwrap(),
        "nothing was queued under that uuid"
    );
    shutdown(&client).await;

    let source = SessionSource::Local(LocalSessions::new(
        rig.home.path().join(".claude").join("projects"),
    ));
    let info = session_info(&source, &project_key_for(rig.cwd.path()), &id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(info.custom_title.as_deref(), Some("Quarterly report"));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn files_rules_and_hooks_are_listed_as_the_session_has_them() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    std::fs::write(rig.cwd.path().join("notes.txt"), "hello\n").unwrap();
    let hook = |_: HookInput, _: Option<String>, _: HookContext| async {
        Ok::<_, CallbackError>(HookOutput::default())
    };
    let client = rig
        .builder(rig.options().allowed_tools(["Bash(git status:*)"]))
        .hook(
            HookEventKind::PreToolUse,
            HookMatcher::tool("Bash").hook(hook),
        )
        .connect()
        .await
        .unwrap();

    let file = client.read_file("notes.txt").await.unwrap();
    assert_eq!(file.contents.as_deref(), Some("hello\n"));
    assert_eq!(file.lossy, Some(false));
    let modified = std::fs::metadata(rig.cwd.path().join("notes.txt"))
        .unwrap()
        .modified()
        .unwrap_or(SystemTime::UNIX_EPOCH);
    client.seed_read_state("notes.txt", modified).await.unwrap();

    let rules = client.list_permission_rules().await.unwrap();
    let rule = rules
        .rules
        .unwrap()
        .into_iter()
        .find(|r| r.rule.as_deref() == Some("Bash(git status:*)"))
        .expect("the --allowedTools rule is listed");
    assert_eq!(rule.behavior.as_deref(), Some("allow"));
    assert_eq!(rule.source.as_deref(), Some("cliArg"));

    let listing = client.get_hooks_listing().await.unwrap();
    let catalog = listing.event_catalog.unwrap();
    assert!(
        catalog
            .iter()
            .any(|e| e.name.as_deref() == Some("PreToolUse") && e.supports_matcher == Some(true)),
        "{catalog:?}"
    );
    assert_eq!(listing.policy.unwrap().disabled_by_policy, Some(false));

    // Refusals are the CLI's errors, typed as such.
    let err = client.get_task_output("b0000000").await.unwrap_err();
    assert!(matches!(err, Error::Control(_)), "{err}");
    let err = client
        .mcp_read_resource("nowhere", "ui://x")
        .await
        .unwrap_err();
    assert!(format!("{err:?}").contains("nowhere"), "{err}");
    shutdown(&client).await;
}
