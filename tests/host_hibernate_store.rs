//! Hibernation with a session store: a hibernated session whose local
//! transcript files are gone (the CLI config folder's project files
//! deleted between hibernation and revival, as on a machine that lost its
//! disk) revives from the store, and the revived CLI's `--resume` sees
//! the first turn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use claude_agent::host::Host;
use claude_agent::host::{DrainOptions, HostConfig, HostEvent};
use claude_agent::protocol::{ContentBlock, Message};
use claude_agent::store::{MemoryStore, SessionKey, SessionStore, project_key_for};
use claude_agent_testkit::Script;
use common::{SOON, init, mirrored_entry, quick_builder, resume_reading, resuming_cli};
use futures::StreamExt;
use serde_json::{Value, json};

const SESSION: &str = "0d4c2b6a-7e1f-4a93-b2c5-8f6e1d3a9b70";
const AFTER: Duration = Duration::from_millis(150);

fn entry(n: u32, text: &str) -> Value {
    mirrored_entry(SESSION, n, text)
}

/// The first CLI: one turn whose entries it mirrors, then idle until EOF.
fn first_turn(session_file: &Path) -> Script {
    Script::new()
        .expect_initialize()
        .expect("user", None)
        .emit(init(SESSION))
        .emit(
            json!({"type": "transcript_mirror", "filePath": session_file,
            "entries": [entry(1, "first answer")]}),
        )
        .emit(
            json!({"type": "result", "subtype": "success", "is_error": false,
            "session_id": SESSION, "result": "first answer", "duration_ms": 1,
            "num_turns": 1}),
        )
}

/// Every message of the client's current turn, to its result.
async fn turn_messages(client: &claude_agent::client::Client) -> Vec<Message> {
    let mut out = Vec::new();
    let mut turn = client.receive_response();
    while let Some(m) = tokio::time::timeout(SOON, turn.next()).await.unwrap() {
        let m = m.unwrap();
        let done = matches!(m, Message::Result(_));
        out.push(m);
        if done {
            return out;
        }
    }
    panic!("the turn ended without a result");
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Assistant(a) => a.message.blocks().iter().find_map(|b| match b {
                ContentBlock::Text(t) => t.text.clone(),
                _ => None,
            }),
            Message::Result(r) => r.result.clone(),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_hibernated_session_revives_from_the_store_when_its_local_files_are_gone() {
    let dir = tempfile::tempdir().unwrap();
    let config = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let project = project_key_for(cwd.path());
    let projects = config.path().join("projects");
    let session_file = projects.join(&project).join(format!("{SESSION}.jsonl"));
    let (options, _first, resumed) = resuming_cli(
        dir.path(),
        &first_turn(&session_file),
        &resume_reading(&session_file),
    );
    let options = options
        .cwd(cwd.path())
        .env("CLAUDE_CONFIG_DIR", config.path());
    let store = Arc::new(MemoryStore::new());
    let host = Host::start(HostConfig::new().hibernate_after(AFTER))
        .await
        .unwrap();
    let mut events = host.events();
    let builder = quick_builder(options).session_store(store.clone());
    let h = host.spawn("t", builder).await.unwrap();
    let client = h.send("one").await.unwrap();
    assert!(texts(&turn_messages(&client).await).contains(&"first answer".to_owned()));
    drop(client);
    tokio::time::timeout(SOON, async {
        while !matches!(events.recv().await.unwrap(), HostEvent::Hibernated { .. }) {}
    })
    .await
    .expect("hibernated within the deadline");

    // The machine loses the CLI's local session files.
    match std::fs::remove_dir_all(&projects) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => panic!("{e}"),
    }
    assert!(!session_file.exists());
    let key = SessionKey::new(project, SESSION);
    assert_eq!(
        store.load(&key).await.unwrap().unwrap(),
        [entry(1, "first answer")],
        "the hibernation flushed the mirror"
    );

    let client = h.send("two").await.unwrap();
    let second = texts(&turn_messages(&client).await);
    assert_eq!(
        second,
        ["first answer", "resumed from the store"],
        "the revived turn sees the first"
    );
    let argv = resumed.recorded_argv().expect("the CLI was started again");
    assert!(
        argv.iter().any(|a| *a == format!("--resume={SESSION}")),
        "{argv:?}"
    );
    drop(client);
    host.drain(DrainOptions::new(SOON)).await;
}
