//! `request_user_dialog` and the real CLI 2.1.332, offline. Of the dialog
//! kinds the CLI sends an SDK host (`refusal_fallback_prompt`,
//! `fable_overage_consent_prompt`, `auto_mode_server_fallback`,
//! `enum_prompt`, `send_to_project_remote_control_offer`), the refusal
//! prompt is the one a scripted model can provoke: it needs a refusal
//! (`stop_reason: "refusal"`), the kind declared, `switchModelsOnFlag`
//! off and a fallback model armed for the refusing one. Offline no
//! fallback is armed, so the CLI retries once on the same model and sends
//! no dialog; this test pins that, and fails the day a dialog comes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent::callbacks::user_dialog::{
    UserDialogContext, UserDialogRequest, UserDialogResult,
};
use claude_agent::options::Settings;
use claude_agent::protocol::{Message, ResultSubtype, SystemMessage};
use claude_agent_testkit::model::{Block, ModelScript, Reply};
use real_cli::{Rig, kinds, shutdown, turn};
use serde_json::json;

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_refusal_with_the_fallback_dialog_declared_retries_on_the_same_model_without_a_dialog() {
    let refusal = Reply::Message {
        blocks: vec![Block::text("I can't")],
        stop_reason: "refusal".into(),
        chunk_delay: Duration::ZERO,
    };
    let script = ModelScript::new()
        .reply(refusal)
        .reply(Reply::text("answered after the refusal"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let dialogs: Arc<Mutex<Vec<UserDialogRequest>>> = Arc::default();
    let seen = dialogs.clone();
    let callback = move |req: UserDialogRequest, _: UserDialogContext| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(req);
            Ok(UserDialogResult::Cancelled)
        }
    };
    let options = rig
        .options()
        .model("claude-opus-4-5")
        .settings(Settings::Json(json!({"switchModelsOnFlag": false})));
    let client = tokio::time::timeout(
        real_cli::TURN,
        rig.builder(options)
            .on_user_dialog(["refusal_fallback_prompt"], callback)
            .connect(),
    )
    .await
    .unwrap()
    .unwrap();
    client.send("hello").await.unwrap();
    let (messages, result) = turn(&client).await;
    shutdown(&client).await;

    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert_eq!(result.result.as_deref(), Some("answered after the refusal"));
    let noted = messages.iter().any(|m| {
        matches!(m, Message::System(SystemMessage::Informational(i))
            if i.content.as_deref().is_some_and(|c| c.contains("safeguards stopped")))
    });
    assert!(noted, "no refusal notice in {:?}", kinds(&messages));
    let models: Vec<_> = rig
        .server
        .main_requests()
        .iter()
        .map(|r| r.model().map(str::to_owned))
        .collect();
    assert_eq!(
        models,
        [
            Some("claude-opus-4-5".to_owned()),
            Some("claude-opus-4-5".to_owned())
        ]
    );
    assert!(
        dialogs.lock().unwrap().is_empty(),
        "a dialog came: {:?}",
        dialogs.lock().unwrap()
    );
}
