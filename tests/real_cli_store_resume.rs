//! Continue, fork and resume-at from a session store with the real CLI, on
//! a config dir that never held the session: the conversation exists only
//! in the store, and the next model request shows the earlier turns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::Arc;

use claude_agent::store::{FileStore, SessionKey, SessionStore, project_key_for};
use claude_agent::{client::Client, options::Options};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, TURN, turn};
use serde_json::Value;

/// A rig and a file store; `first_session` runs one turn mirrored into it
/// and deletes the CLI's whole config dir.
struct World {
    rig: Rig,
    _dir: tempfile::TempDir,
    store: Arc<FileStore>,
}

impl World {
    async fn start(script: ModelScript) -> Option<World> {
        let rig = Rig::start(script).await?;
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(FileStore::new(dir.path()));
        Some(World {
            rig,
            _dir: dir,
            store,
        })
    }

    async fn connect(&self, options: Options) -> Client {
        let builder = self.rig.builder(options).session_store(self.store.clone());
        tokio::time::timeout(TURN, builder.connect())
            .await
            .unwrap()
            .unwrap()
    }

    /// Runs `prompts` as turns of one session with the mirror on, then
    /// deletes the config dir; returns the session id.
    async fn first_session(&self, prompts: &[&str]) -> String {
        let client = self.connect(self.rig.options()).await;
        let mut id = None;
        for prompt in prompts {
            client.send(*prompt).await.unwrap();
            let (_, r) = turn(&client).await;
            id = r.session_id.clone();
        }
        let report = tokio::time::timeout(TURN, client.shutdown()).await.unwrap();
        assert_eq!(report.mirror_unpersisted, Some(0), "{report:?}");
        std::fs::remove_dir_all(self.rig.home.path().join(".claude")).unwrap();
        id.unwrap()
    }

    /// Sends `prompt` on a session connected with `options`; the session
    /// id the CLI reports, after an ordered shutdown.
    async fn next_turn(&self, options: Options, prompt: &str) -> String {
        let client = self.connect(options).await;
        client.send(prompt).await.unwrap();
        let (_, r) = turn(&client).await;
        let report = tokio::time::timeout(TURN, client.shutdown()).await.unwrap();
        assert_eq!(report.mirror_unpersisted, Some(0), "{report:?}");
        r.session_id.unwrap()
    }

    async fn stored(&self, session_id: &str) -> Vec<Value> {
        let key = SessionKey::new(project_key_for(self.rig.cwd.path()), session_id);
        let entries = self.store.load(&key).await.unwrap().unwrap_or_default();
        entries.iter().map(|e| e.to_value().unwrap()).collect()
    }

    /// The `messages` of the last main model request, as text.
    fn last_history(&self) -> String {
        let main = self.rig.server.main_requests();
        main.last().unwrap().body["messages"].to_string()
    }
}

fn mentions(entries: &[Value], text: &str) -> bool {
    entries.iter().any(|e| e.to_string().contains(text))
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn continue_on_an_empty_config_dir_resumes_the_stores_newest_session() {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: mango."))
        .reply(Reply::text("It was mango."));
    let Some(w) = World::start(script).await else {
        return;
    };
    let id = w.first_session(&["remember mango"]).await;
    let options = w.rig.options().continue_conversation(true);
    let continued = w.next_turn(options, "what was it?").await;
    assert_eq!(continued, id, "the same session continues");
    let history = w.last_history();
    for part in ["remember mango", "Noted: mango.", "what was it?"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
    assert!(mentions(&w.stored(&id).await, "It was mango."));
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_fork_of_a_store_only_session_is_mirrored_under_its_new_id() {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: kiwi."))
        .reply(Reply::text("Forked: kiwi."));
    let Some(w) = World::start(script).await else {
        return;
    };
    let id = w.first_session(&["remember kiwi"]).await;
    let options = w.rig.options().resume(&id).fork_session(true);
    let fork = w.next_turn(options, "fork question").await;
    assert_ne!(fork, id, "a fork gets a new session id");
    let history = w.last_history();
    for part in ["remember kiwi", "Noted: kiwi.", "fork question"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
    let forked = w.stored(&fork).await;
    assert!(mentions(&forked, "fork question"), "the fork is mirrored");
    assert!(mentions(&forked, "Forked: kiwi."));
    let original = w.stored(&id).await;
    assert!(
        !mentions(&original, "fork question"),
        "the original is untouched"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn resume_at_of_a_store_only_session_drops_the_later_turns() {
    let script = ModelScript::new()
        .reply(Reply::text("Answer one."))
        .reply(Reply::text("Answer two."))
        .reply(Reply::text("Answer three."));
    let Some(w) = World::start(script).await else {
        return;
    };
    let id = w.first_session(&["question one", "question two"]).await;
    let entries = w.stored(&id).await;
    let first_answer = entries
        .iter()
        .find(|e| e["type"] == "assistant" && e.to_string().contains("Answer one."))
        .and_then(|e| e["uuid"].as_str())
        .expect("the first answer in the store")
        .to_owned();
    let options = w.rig.options().resume(&id).resume_session_at(first_answer);
    w.next_turn(options, "question three").await;
    let history = w.last_history();
    for part in ["question one", "Answer one.", "question three"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
    for gone in ["question two", "Answer two."] {
        assert!(!history.contains(gone), "{gone} still sent: {history:.800}");
    }
}
