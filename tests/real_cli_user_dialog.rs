//! `request_user_dialog` and the real CLI 2.1.332, offline. Of the dialog
//! kinds the CLI sends an SDK host (`refusal_fallback_prompt`,
//! `fable_overage_consent_prompt`, `auto_mode_server_fallback`,
//! `enum_prompt`, `send_to_project_remote_control_offer`), the refusal
//! prompt is the one a scripted model provokes with nonessential traffic
//! off (`auto_mode_server_fallback` needs it on; see docs/PARITY.md). It
//! needs a refusal
//! whose category has a route (`stop_details.category`, e.g. `cyber`), the
//! kind declared, `switchModelsOnFlag: false`, a fallback model armed for
//! the refusing one, and the first refusal not spent on the same-model
//! retry the CLI makes by default. Armed: the refusing model has the
//! `refusal_fallback` capability (served by the model catalog online; the
//! `CLAUDE_CODE_MODEL_CAPABILITIES` override offline), so the fallback is
//! the default Opus of the category's route. No retry:
//! `CLAUDE_CODE_DISABLE_REFUSAL_RETRY=1`. Without those two the CLI
//! retries once on the same model and opens no dialog (pinned below).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent::callbacks::user_dialog::{
    UserDialogContext, UserDialogRequest, UserDialogResult,
};
use claude_agent::options::{Options, Settings};
use claude_agent::protocol::{
    Message, ResultMessage, ResultSubtype, SystemMessage, TerminalReason,
};
use claude_agent_testkit::model::{Block, ModelScript, Reply};
use real_cli::{Rig, kinds, shutdown, turn};
use serde_json::json;

/// One turn of a session with the refusal dialog declared, its callback
/// answering `answer`: the dialogs the callback saw, the turn's messages
/// and its result.
async fn turn_with_refusal_dialog(
    rig: &Rig,
    options: Options,
    answer: UserDialogResult,
) -> (Vec<UserDialogRequest>, Vec<Message>, ResultMessage) {
    let dialogs: Arc<Mutex<Vec<UserDialogRequest>>> = Arc::default();
    let seen = dialogs.clone();
    let callback = move |req: UserDialogRequest, _: UserDialogContext| {
        let (seen, answer) = (seen.clone(), answer.clone());
        async move {
            seen.lock().unwrap().push(req);
            Ok(answer)
        }
    };
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
    let dialogs = dialogs.lock().unwrap().clone();
    (dialogs, messages, result)
}

/// By default (no capability override, same-model retry on) nothing is
/// armed on the first refusal: the CLI retries on the same model and opens
/// no dialog. Fails the day that changes.
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
    let options = rig
        .options()
        .model("claude-opus-4-5")
        .settings(Settings::Json(json!({"switchModelsOnFlag": false})));
    let (dialogs, messages, result) =
        turn_with_refusal_dialog(&rig, options, UserDialogResult::Cancelled).await;

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
    assert!(dialogs.is_empty(), "a dialog came: {dialogs:?}");
}

/// The refused model, and the fallback its `cyber` route arms.
const REFUSING: &str = "claude-opus-4-5";
const FALLBACK: &str = "claude-opus-4-8";

/// One turn whose first reply is a `cyber` refusal of [`REFUSING`], with a
/// fallback armed and the refusal dialog declared and answered `answer`.
/// Returns the dialogs the callback saw, the turn and the models asked.
async fn refused_turn_answering(
    answer: UserDialogResult,
) -> Option<(
    Vec<UserDialogRequest>,
    Vec<Message>,
    ResultMessage,
    Vec<Option<String>>,
)> {
    let script = ModelScript::new()
        .reply(Reply::refusal("I can't", Some("cyber")))
        .reply(Reply::text("answered on the fallback model"));
    let rig = Rig::start(script).await?;
    let options: Options = rig
        .options()
        .model(REFUSING)
        .settings(Settings::Json(json!({"switchModelsOnFlag": false})))
        .env("CLAUDE_CODE_MODEL_CAPABILITIES", "refusal_fallback")
        .env("CLAUDE_CODE_DISABLE_REFUSAL_RETRY", "1");
    let (dialogs, messages, result) = turn_with_refusal_dialog(&rig, options, answer).await;
    let models = rig
        .server
        .main_requests()
        .iter()
        .map(|r| r.model().map(str::to_owned))
        .collect();
    Some((dialogs, messages, result, models))
}

/// The uuid of the assistant message that streamed the refused text.
fn refused_message_uuid(messages: &[Message]) -> String {
    messages
        .iter()
        .find_map(|m| match m {
            Message::Assistant(a) if a.message.model.as_deref() == Some(REFUSING) => a.uuid.clone(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no refused assistant message in {:?}", kinds(messages)))
}

/// The one dialog seen is the refusal prompt, its payload naming both
/// models, the category and the streamed message it retracts.
fn assert_refusal_prompt(dialogs: &[UserDialogRequest], messages: &[Message]) {
    assert_eq!(dialogs.len(), 1, "{dialogs:?}");
    let d = &dialogs[0];
    assert_eq!(d.dialog_kind, "refusal_fallback_prompt");
    assert_eq!(d.tool_use_id, None);
    assert_eq!(d.payload["originalModel"], REFUSING);
    assert_eq!(d.payload["fallbackModel"], FALLBACK);
    assert_eq!(d.payload["apiRefusalCategory"], "cyber");
    assert_eq!(
        d.payload["retractedMessageUuids"],
        json!([refused_message_uuid(messages)])
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_armed_refusal_asks_the_declared_dialog_and_retry_fallback_reruns_the_turn_on_the_fallback_model()
 {
    let answer = UserDialogResult::Completed(json!("retry_fallback"));
    let Some((dialogs, messages, result, models)) = refused_turn_answering(answer).await else {
        return;
    };
    assert_refusal_prompt(&dialogs, &messages);
    assert_eq!(
        models,
        [Some(REFUSING.to_owned()), Some(FALLBACK.to_owned())]
    );
    let switched = messages.iter().find_map(|m| match m {
        Message::System(SystemMessage::ModelRefusalFallback(f)) => Some(f),
        _ => None,
    });
    let switched = switched.unwrap_or_else(|| panic!("no switch notice in {:?}", kinds(&messages)));
    assert_eq!(switched.original_model.as_deref(), Some(REFUSING));
    assert_eq!(switched.fallback_model.as_deref(), Some(FALLBACK));
    assert_eq!(switched.api_refusal_category.as_deref(), Some("cyber"));
    assert_eq!(
        switched.retracted_message_uuids,
        Some(vec![refused_message_uuid(&messages)])
    );
    assert_eq!(result.subtype, ResultSubtype::Success, "{result:?}");
    assert!(!result.is_error(), "{result:?}");
    assert_eq!(
        result.result.as_deref(),
        Some("answered on the fallback model")
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_cancelled_refusal_dialog_ends_the_turn_on_the_refusal_without_asking_the_fallback_model()
{
    let Some((dialogs, messages, result, models)) =
        refused_turn_answering(UserDialogResult::Cancelled).await
    else {
        return;
    };
    assert_refusal_prompt(&dialogs, &messages);
    assert_eq!(models, [Some(REFUSING.to_owned())]);
    let switched = messages
        .iter()
        .any(|m| matches!(m, Message::System(SystemMessage::ModelRefusalFallback(_))));
    assert!(!switched, "a switch in {:?}", kinds(&messages));
    assert!(result.is_error(), "{result:?}");
    assert_eq!(result.stop_reason.as_deref(), Some("refusal"));
    assert_eq!(result.terminal_reason, Some(TerminalReason::ApiError));
    let text = result.result.as_deref().unwrap_or_default();
    assert!(text.contains("safeguards flagged"), "{text}");
}
