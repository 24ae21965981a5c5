//! Against the real CLI: a verbatim prompt's `@path` is not expanded, so a
//! relayed text cannot make the CLI read a local file; the same text sent
//! plainly is expanded (the control case).
//!
//! Needs the real CLI (`CLAUDE_AGENT_CLI`), so `#[ignore]`d: run with
//! `--include-ignored`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use claude_agent::client::Prompt;
use claude_agent_testkit::model::{ModelScript, Reply};

mod real_cli;
use real_cli::{Rig, turn};

const MARKER: &str = "verbatim-marker-5f1c2e";

/// The `messages` of each main-loop request, as JSON text, in order. The
/// whole array: the CLI puts an expansion in messages of its own next to
/// the prompt.
fn sent_messages(rig: &Rig) -> Vec<String> {
    rig.server
        .main_requests()
        .iter()
        .map(|r| serde_json::Value::from(r.messages().to_vec()).to_string())
        .collect()
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn verbatim_option_leaves_at_etc_hostname_unexpanded() {
    let script = ModelScript::new().fallback(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let hostname = std::fs::read_to_string("/etc/hostname").unwrap();
    let hostname = hostname.trim();
    assert!(!hostname.is_empty(), "/etc/hostname is empty: no control");
    let client = rig.connect(rig.options().verbatim_prompts(true)).await;
    client.send("summarize @/etc/hostname").await.unwrap();
    let (_, result) = turn(&client).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let sent = sent_messages(&rig);
    let first = sent.first().expect("a model request");
    assert!(first.contains("summarize @/etc/hostname"), "{first:.500}");
    // The CLI sends a file it expands as a Read tool call and its result.
    assert!(!first.contains("Read tool"), "an attachment: {first:.800}");
    assert!(
        !first.contains(&format!("1\\t{hostname}")),
        "the file's contents reached the model: {first:.800}"
    );
    client.shutdown().await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn per_message_verbatim_is_not_expanded_and_a_plain_one_is() {
    let script = ModelScript::new().fallback(Reply::text("done"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let file = rig.cwd.path().join("notes.txt");
    std::fs::write(&file, format!("{MARKER}\n")).unwrap();
    let prompt = format!("summarize @{}", file.display());
    let client = rig.connect(rig.options()).await;

    client
        .send(Prompt::from(prompt.as_str()).verbatim())
        .await
        .unwrap();
    let (_, verbatim) = turn(&client).await;
    assert_eq!(verbatim.is_error, Some(false), "{verbatim:?}");
    let after_verbatim = rig.server.main_requests().len();
    assert!(after_verbatim >= 1);

    client.send(prompt.as_str()).await.unwrap();
    let (_, plain) = turn(&client).await;
    assert_eq!(plain.is_error, Some(false), "{plain:?}");

    let sent = sent_messages(&rig);
    let first = &sent[0];
    assert!(first.contains(&prompt), "{first:.500}");
    assert!(
        !first.contains(MARKER),
        "verbatim turn expanded: {first:.800}"
    );
    assert!(!first.contains("Read tool"), "an attachment: {first:.800}");
    let second = &sent[after_verbatim];
    assert!(
        second.contains(MARKER),
        "the control turn was not expanded, so the test proves nothing: {second:.800}"
    );
    client.shutdown().await;
}
