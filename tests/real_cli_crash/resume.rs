#![allow(unreachable_pub)]
//! Resume after a crash: the session a SIGKILLed host cut mid-turn,
//! resumed by the real CLI from the store on a "machine" that never ran it
//! (a fresh HOME, so no local session file), sends the model what the store
//! kept: every prompt and every finished tool call.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::store::SessionStore;
use claude_agent::{client::ClientBuilder, options::Options};
use claude_agent_testkit::model::{ModelScript, ModelServer, Reply};
use serde_json::Value;

use super::real_cli::{TURN, real_cli, turn};
use super::rounds::Crashed;

pub async fn resume_on_a_fresh_machine(store: Arc<dyn SessionStore>, crashed: Crashed) {
    let Some(cli) = real_cli() else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let server = ModelServer::start(ModelScript::new().reply(Reply::text("resumed")))
        .await
        .unwrap();
    let mut options = Options::new()
        .cli_path(cli)
        .cwd(crashed.cwd.path())
        .env("HOME", home.path())
        .resume(&crashed.session);
    for (k, v) in server.env() {
        options = options.env(k, v);
    }
    let client = tokio::time::timeout(
        TURN,
        ClientBuilder::new(options)
            .session_store(store)
            .initialize_timeout(Duration::from_secs(60))
            .connect(),
    )
    .await
    .unwrap()
    .unwrap();
    client.send("after the crash").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.result.as_deref(), Some("resumed"), "{result:?}");
    tokio::time::timeout(TURN, client.shutdown()).await.unwrap();

    let main = server.main_requests();
    let history =
        main.first().expect("the resumed turn asked the model").body["messages"].to_string();
    let (prompts, finished_tools) = kept(&crashed.stored);
    assert!(!prompts.is_empty(), "the store kept a prompt");
    for part in prompts.iter().chain(&finished_tools) {
        assert!(
            history.contains(part.as_str()),
            "{part} (kept by the store) is not in the resumed history: {history:.1500}"
        );
    }
    eprintln!(
        "resumed {} from the store on a fresh HOME: {} prompts and {} finished tool calls sent",
        crashed.session,
        prompts.len(),
        finished_tools.len()
    );
}

/// The prompts (`turn N`) of the stored user entries, and the ids of the
/// tool calls whose call and result are both stored.
fn kept(stored: &[Value]) -> (Vec<String>, Vec<String>) {
    let mut prompts = Vec::new();
    let mut tools: HashMap<String, usize> = HashMap::new();
    for entry in stored {
        if entry["type"] == "user" {
            if let Some(text) = entry["message"]["content"].as_str() {
                prompts.push(text.to_owned());
            }
        }
        if entry["type"] != "user" && entry["type"] != "assistant" {
            continue;
        }
        let text = entry["message"]["content"].to_string();
        for (at, _) in text.match_indices("toolu_") {
            let id: String = text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            *tools.entry(id).or_default() += 1;
        }
    }
    let mut finished: Vec<String> = tools
        .into_iter()
        .filter(|(_, seen)| *seen >= 2)
        .map(|(id, _)| id)
        .collect();
    finished.sort();
    (prompts, finished)
}
