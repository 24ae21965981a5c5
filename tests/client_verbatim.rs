//! Verbatim prompts on the wire: `client_composed: true` per client
//! (`Options::verbatim_prompts`) and per message (`Prompt::verbatim`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::{client::ClientBuilder, client::Prompt};
use claude_agent_testkit::Script;
use common::*;
use serde_json::Value;

/// The `user` lines the fake CLI received, in order.
fn user_lines(fake: &Fake) -> Vec<Value> {
    fake.received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect()
}

async fn two_turns(client: &claude_agent::client::Client, first: Prompt, second: Prompt) {
    for prompt in [first, second] {
        client.send(prompt).await.unwrap();
        let mut turn = client.receive_response();
        while let Some(m) = tokio::time::timeout(SOON, futures::StreamExt::next(&mut turn))
            .await
            .expect("turn hung")
        {
            m.unwrap();
        }
    }
}

#[tokio::test]
async fn verbatim_option_marks_every_user_message() {
    let fake = fake(Script::new().expect_initialize().loop_turns("ok"));
    let client = ClientBuilder::new(fake.options().verbatim_prompts(true))
        .initialize_timeout(SOON)
        .connect()
        .await
        .unwrap();
    let pid = client.pid().unwrap();
    two_turns(&client, "@/etc/hostname".into(), "/help".into()).await;
    let lines = user_lines(&fake);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for l in &lines {
        assert_eq!(l["client_composed"], true, "{l}");
    }
    client.shutdown().await;
    fake.assert_gone(pid).await;
}

#[tokio::test]
async fn verbatim_prompt_marks_only_that_message() {
    let fake = fake(Script::new().expect_initialize().loop_turns("ok"));
    let client = fake.builder().connect().await.unwrap();
    let pid = client.pid().unwrap();
    two_turns(
        &client,
        Prompt::from("@/etc/hostname").verbatim(),
        "@/etc/hostname".into(),
    )
    .await;
    let lines = user_lines(&fake);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(lines[0]["client_composed"], true, "{}", lines[0]);
    assert!(lines[1].get("client_composed").is_none(), "{}", lines[1]);
    assert_eq!(lines[0]["message"]["content"], "@/etc/hostname");
    client.shutdown().await;
    fake.assert_gone(pid).await;
}
