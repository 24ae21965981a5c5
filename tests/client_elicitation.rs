//! The CLI's `elicitation` requests (an MCP server asking the user for
//! input) reach the builder's `on_elicitation` callback typed, and its
//! answer is the reply; without a callback each is declined. The fake CLI
//! (a real subprocess) asks and records what the SDK answered.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod callback_replies;
mod common;

use std::sync::{Arc, Mutex};

use callback_replies::{answer, ask, finish_turn};
use claude_agent::callbacks::CallbackError;
use claude_agent::callbacks::elicitation::{
    ElicitationContext, ElicitationMode, ElicitationRequest, ElicitationResult,
};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Value, json};

fn form(id: &str, server: &str) -> Value {
    cli_request(
        id,
        json!({"subtype": "elicitation", "mcp_server_name": server,
               "message": "Who are you?", "mode": "form",
               "requested_schema": {"type": "object",
                   "properties": {"name": {"type": "string"}}},
               "property_order": ["name"]}),
    )
}

fn url(id: &str) -> Value {
    cli_request(
        id,
        json!({"subtype": "elicitation", "mcp_server_name": "auth",
               "message": "Sign in", "mode": "url", "url": "https://example.invalid/login",
               "elicitation_id": "el-1"}),
    )
}

#[tokio::test]
async fn the_callback_answers_forms_and_urls_and_its_failure_is_an_error_reply() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[
            form("e1", "people"),
            url("e2"),
            form("e3", "untrusted"),
            form("e4", "broken"),
        ],
    ));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let callback = move |req: ElicitationRequest, ctx: ElicitationContext| {
        log.lock().unwrap().push((req.clone(), ctx.request_id));
        async move {
            match (req.server_name.as_str(), &req.mode) {
                ("people", _) => {
                    let mut values = serde_json::Map::new();
                    values.insert("name".into(), "Ada".into());
                    Ok(ElicitationResult::accept(values))
                }
                (_, Some(ElicitationMode::Url)) => Ok(ElicitationResult::cancel()),
                ("broken", _) => Err(CallbackError::new("no terminal to ask on")),
                _ => Ok(ElicitationResult::decline()),
            }
        }
    };
    let client = fake
        .builder()
        .on_elicitation(callback)
        .connect()
        .await
        .unwrap();
    finish_turn(&client).await;
    client.shutdown().await;

    assert_eq!(
        answer(&fake, "e1").unwrap(),
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
    assert_eq!(answer(&fake, "e2").unwrap(), json!({"action": "cancel"}));
    assert_eq!(answer(&fake, "e3").unwrap(), json!({"action": "decline"}));
    let error = answer(&fake, "e4").unwrap_err();
    assert!(error.contains("no terminal to ask on"), "{error}");

    let seen = seen.lock().unwrap();
    let (first, first_id) = &seen[0];
    assert_eq!(first_id, "e1");
    assert_eq!(first.message, "Who are you?");
    assert_eq!(
        first.property_order.as_deref(),
        Some(&["name".to_string()][..])
    );
    assert_eq!(
        first.requested_schema.as_ref().unwrap()["properties"]["name"]["type"],
        "string"
    );
    assert!(first.extra.is_empty(), "{:?}", first.extra);
    let (second, _) = &seen[1];
    assert_eq!(second.url.as_deref(), Some("https://example.invalid/login"));
    assert_eq!(second.elicitation_id.as_deref(), Some("el-1"));
}

#[tokio::test]
async fn without_a_callback_an_elicitation_is_declined() {
    let fake = fake(ask(
        Script::new().expect_initialize(),
        &[form("e1", "people")],
    ));
    let client = fake.builder().connect().await.unwrap();
    finish_turn(&client).await;
    client.shutdown().await;
    assert_eq!(answer(&fake, "e1").unwrap(), json!({"action": "decline"}));
}

#[tokio::test]
async fn an_undecodable_elicitation_gets_an_error_reply_naming_it() {
    let bad = cli_request("e1", json!({"subtype": "elicitation", "message": 7}));
    let fake = fake(ask(Script::new().expect_initialize(), &[bad]));
    let client = fake.builder().connect().await.unwrap();
    finish_turn(&client).await;
    client.shutdown().await;
    let error = answer(&fake, "e1").unwrap_err();
    assert!(
        error.contains("cannot decode elicitation request"),
        "{error}"
    );
}
