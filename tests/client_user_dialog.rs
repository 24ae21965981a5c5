//! The CLI's `request_user_dialog` reaches the builder's `on_user_dialog`
//! for the kinds it declared in `initialize`; any other kind, and any
//! dialog with no callback, gets an error reply (never a `cancelled`,
//! which would count as the user's answer). The fake CLI records replies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod callback_replies;
mod common;

use callback_replies::{answer, ask, finish_turn};
use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::user_dialog::{
    UserDialogContext, UserDialogRequest, UserDialogResult,
};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn dialog(id: &str, kind: &str, choice: &str) -> Value {
    cli_request(
        id,
        json!({"subtype": "request_user_dialog", "dialog_kind": kind,
               "payload": {"choice": choice}, "tool_use_id": "toolu_1"}),
    )
}

#[tokio::test]
async fn declared_kinds_reach_the_callback_and_others_get_an_error_reply() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[
            dialog("d1", "pick_one", "b"),
            dialog("d2", "pick_one", "none"),
            dialog("d3", "pick_one", "fail"),
            dialog("d4", "unknown_kind", "a"),
        ],
    ));
    let callback = |req: UserDialogRequest, _ctx: UserDialogContext| async move {
        assert_eq!(req.tool_use_id.as_deref(), Some("toolu_1"));
        match req.payload["choice"].as_str() {
            Some("none") => Ok(UserDialogResult::Cancelled),
            Some("fail") => Err(CallbackError::new("no screen")),
            other => Ok(UserDialogResult::Completed(json!({"picked": other}))),
        }
    };
    let client = fake
        .builder()
        .on_user_dialog(["pick_one"], callback)
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.shutdown().await;

    let init = &fake.received()[0];
    assert_eq!(init["request"]["supportedDialogKinds"], json!(["pick_one"]));
    assert_eq!(
        answer(&fake, "d1").unwrap(),
        json!({"behavior": "completed", "result": {"picked": "b"}})
    );
    assert_eq!(
        answer(&fake, "d2").unwrap(),
        json!({"behavior": "cancelled"})
    );
    assert!(answer(&fake, "d3").unwrap_err().contains("no screen"));
    let undeclared = answer(&fake, "d4").unwrap_err();
    assert!(undeclared.contains("not declared"), "{undeclared}");
}

#[tokio::test]
async fn without_a_callback_a_dialog_gets_an_error_reply_and_no_kinds_are_declared() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[dialog("d1", "pick_one", "a")],
    ));
    let client = fake.builder().connect().await.unwrap();
    finish_turn(&client).await;
    client.shutdown().await;
    assert!(
        fake.received()[0]["request"]
            .get("supportedDialogKinds")
            .is_none()
    );
    let error = answer(&fake, "d1").unwrap_err();
    assert!(error.contains("no user-dialog callback"), "{error}");
}
