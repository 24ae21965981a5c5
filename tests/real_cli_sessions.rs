//! Sessions on disk with the real CLI: the transcript file an ordered
//! shutdown leaves, and `--resume` of it in a new process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use claude_agent_testkit::model::{ModelScript, Reply};
use real_cli::{Rig, shutdown, turn};
use serde_json::Value;

/// `HOME/.claude/projects/<cwd, every non-alphanumeric as '-'>/<id>.jsonl`.
fn session_file(rig: &Rig, session_id: &str) -> std::path::PathBuf {
    let cwd = rig.cwd.path().canonicalize().unwrap();
    let dir: String = cwd
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    rig.home
        .path()
        .join(".claude/projects")
        .join(dir)
        .join(format!("{session_id}.jsonl"))
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn ordered_shutdown_leaves_a_complete_session_file() {
    let script = ModelScript::new().reply(Reply::text("Filed away."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("keep this").await.unwrap();
    let (_, result) = turn(&client).await;
    let session_id = result.session_id.clone().unwrap();
    shutdown(&client).await;

    let path = session_file(&rig, &session_id);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(text.ends_with('\n'), "last line complete");
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last_assistant = lines
        .iter()
        .rev()
        .find(|l| l["type"] == "assistant")
        .expect("an assistant entry");
    assert_eq!(last_assistant["sessionId"], session_id.as_str());
    assert!(
        last_assistant["message"]["content"]
            .to_string()
            .contains("Filed away."),
        "{last_assistant}"
    );
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn resume_in_a_new_process_sends_the_first_conversation() {
    let script = ModelScript::new()
        .reply(Reply::text("Noted: pineapple."))
        .reply(Reply::text("It was pineapple."));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let first = rig.connect(rig.options()).await;
    first.send("remember pineapple").await.unwrap();
    let (_, r1) = turn(&first).await;
    let session_id = r1.session_id.clone().unwrap();
    shutdown(&first).await;

    let second = rig.connect(rig.options().resume(&session_id)).await;
    assert_ne!(first.pid(), second.pid());
    second.send("what was it?").await.unwrap();
    let (_, r2) = turn(&second).await;
    assert_eq!(r2.result.as_deref(), Some("It was pineapple."), "{r2:?}");
    shutdown(&second).await;

    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2);
    let history = main[1].body["messages"].to_string();
    for part in ["remember pineapple", "Noted: pineapple.", "what was it?"] {
        assert!(history.contains(part), "{part} missing: {history:.800}");
    }
}
