//! Hibernation with a session store and the real CLI: a hosted session's
//! first turn is mirrored into a file store, the session hibernates, its
//! HOME is emptied (a fresh machine: no session file, no CLI config), and
//! the next prompt revives it from the store. The scripted model's request
//! for that prompt carries the first turn, prompt and answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::sync::Arc;
use std::time::Duration;

use claude_agent::host::Host;
use claude_agent::host::{DrainOptions, HostConfig, HostEvent};
use claude_agent::store::{FileStore, SessionStore};
use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, TURN, turn};

const AFTER: Duration = Duration::from_millis(300);

// Multi-threaded: the model server answers while the host runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_hibernated_session_revives_from_the_store_on_a_fresh_home_and_the_model_sees_the_first_turn()
 {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: pineapple."))
        .reply(Reply::text("It was pineapple."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let store_dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn SessionStore> = Arc::new(FileStore::new(store_dir.path()));
    let host = Host::start(HostConfig::new().hibernate_after(AFTER))
        .await
        .unwrap();
    let mut events = host.events();
    let builder = rig.builder(rig.options()).session_store(store.clone());
    let h = host.spawn("t", builder).await.unwrap();

    let client = h.send("remember pineapple").await.unwrap();
    let (_, first) = turn(&client).await;
    assert_eq!(
        first.result.as_deref(),
        Some("Noted: pineapple."),
        "{first:?}"
    );
    let session = first.session_id.clone().unwrap();
    drop(client);
    tokio::time::timeout(TURN, async {
        while !matches!(events.recv().await.unwrap(), HostEvent::Hibernated { .. }) {}
    })
    .await
    .expect("hibernated within the deadline");

    // A fresh machine: everything the CLI kept under HOME is gone.
    for entry in std::fs::read_dir(rig.home.path()).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            std::fs::remove_dir_all(&path).unwrap();
        } else {
            std::fs::remove_file(&path).unwrap();
        }
    }
    assert_eq!(std::fs::read_dir(rig.home.path()).unwrap().count(), 0);

    let client = h.send("what was it?").await.unwrap();
    let (_, second) = turn(&client).await;
    assert_eq!(
        second.result.as_deref(),
        Some("It was pineapple."),
        "{second:?}"
    );
    assert_eq!(
        second.session_id.as_deref(),
        Some(session.as_str()),
        "the same session, resumed"
    );
    drop(client);
    host.drain(DrainOptions::new(TURN)).await;

    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2, "{main:?}");
    let history = main[1].body["messages"].to_string();
    for part in ["remember pineapple", "Noted: pineapple.", "what was it?"] {
        assert!(history.contains(part), "{part} missing: {history:.1500}");
    }
}
