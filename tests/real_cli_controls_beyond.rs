//! Controls beyond the official SDKs, and the newer TypeScript ones, on the
//! real CLI: the built-in tool list against the init message, compaction
//! with instructions, a turn retried after 529, a CLI started before its
//! prompt, a warm CLI moved to another directory, the thinking display,
//! the MCP permission-mode override, reinitialize and the typed account.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::time::Duration;

use claude_agent::client::Client;
use claude_agent::client::{CwdChange, McpPromptMode, RetryPolicy, WarmQuery};
use claude_agent::options::ThinkingDisplay;
use claude_agent::protocol::{BUILTIN_TOOLS, Message, SystemMessage};
use claude_agent_testkit::model::{ModelScript, Reply};
use futures::StreamExt;
use real_cli::{Rig, TURN, assert_gone, assistant_text, kinds, shutdown, turn};

/// Reads a stream to its end (bounded).
async fn collect(
    stream: impl futures::Stream<Item = claude_agent::Result<Message>>,
) -> Vec<Message> {
    let read = stream.map(|m| m.unwrap()).collect::<Vec<_>>();
    tokio::time::timeout(TURN, read).await.unwrap()
}

fn results(messages: &[Message]) -> Vec<&claude_agent::protocol::ResultMessage> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Result(r) => Some(&**r),
            _ => None,
        })
        .collect()
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_init_message_lists_exactly_the_builtin_tools() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    client.send("hi").await.unwrap();
    let (messages, _) = turn(&client).await;
    let tools = messages
        .iter()
        .find_map(|m| match m {
            Message::System(SystemMessage::Init(i)) => i.tools.clone(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("an init message in {:?}", kinds(&messages)));
    let builtin: Vec<&str> = tools
        .iter()
        .map(String::as_str)
        .filter(|t| !t.starts_with("mcp__"))
        .collect();
    assert_eq!(builtin, BUILTIN_TOOLS);
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn compact_with_instructions_steers_the_summary_and_a_boundary_arrives() {
    let script = ModelScript::new().reply(Reply::text("first answer"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options().verbatim_prompts(true)).await;
    client.send("remember the word teapot").await.unwrap();
    turn(&client).await;
    let before = rig.server.requests().len();
    client
        .compact(Some("KEEP-MARKER-4217 in the summary"))
        .await
        .unwrap();
    let (messages, result) = turn(&client).await;
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::System(SystemMessage::CompactBoundary(_)))),
        "{:?}",
        kinds(&messages)
    );
    assert!(!result.is_error(), "{result:?}");
    let summary_requests: Vec<_> = rig.server.requests()[before..]
        .iter()
        .filter(|r| r.body.to_string().contains("KEEP-MARKER-4217"))
        .cloned()
        .collect();
    assert!(
        !summary_requests.is_empty(),
        "the instructions reach the summarizing call"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_overloaded_turn_is_retried_in_the_same_session_until_it_succeeds() {
    // The CLI's own retries are off, so each attempt is one API call: the
    // first attempt gets 529, the second the answer.
    let script = ModelScript::new()
        .reply(Reply::error(529))
        .reply(Reply::text("recovered"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let options = rig.options().env("CLAUDE_CODE_MAX_RETRIES", "0");
    let client = rig.connect(options).await;
    let policy = RetryPolicy::new()
        .max_attempts(3)
        .delays(Duration::from_millis(10), Duration::from_millis(50));
    let messages = collect(client.send_with_retry("hello", policy)).await;
    let results = results(&messages);
    assert_eq!(results.len(), 1, "one result: {:?}", kinds(&messages));
    assert!(!results[0].is_error(), "{:?}", results[0]);
    assert!(assistant_text(&messages).contains("recovered"));
    let main = rig.server.main_requests();
    assert_eq!(main.len(), 2, "the 529 call and the retry");
    assert_eq!(
        results[0].session_id.as_deref(),
        client.session_id().as_deref(),
        "the retry ran in the same session"
    );
    assert!(
        main[1].body.to_string().contains("hello"),
        "the retried call carries the prompt"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_retry_policy_gives_up_after_its_attempts_with_the_last_result() {
    let script = ModelScript::new().fallback(Reply::error(529));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let options = rig.options().env("CLAUDE_CODE_MAX_RETRIES", "0");
    let client = rig.connect(options).await;
    let policy = RetryPolicy::new()
        .max_attempts(2)
        .delays(Duration::from_millis(10), Duration::from_millis(10));
    let messages = collect(client.send_with_retry("hello", policy)).await;
    let results = results(&messages);
    assert_eq!(results.len(), 1, "{:?}", kinds(&messages));
    assert!(results[0].is_error());
    assert_eq!(results[0].api_error_status, Some(529), "{:?}", results[0]);
    assert_eq!(rig.server.main_requests().len(), 2);
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn startup_initializes_the_cli_before_the_prompt_and_the_query_runs_on_it() {
    let script = ModelScript::new().reply(Reply::text("warm answer"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let warm: WarmQuery = tokio::time::timeout(TURN, rig.builder(rig.options()).startup())
        .await
        .unwrap()
        .unwrap();
    let pid = warm.client().pid().unwrap();
    let info = warm.client().server_info().unwrap();
    assert_eq!(info.pid, Some(pid), "initialized before any prompt");
    assert!(rig.server.main_requests().is_empty());
    let messages = collect(warm.query("say something")).await;
    let results = results(&messages);
    assert_eq!(results.len(), 1, "{:?}", kinds(&messages));
    assert!(!results[0].is_error());
    assert!(assistant_text(&messages).contains("warm answer"));
    // The run ended the process that was started before the prompt.
    assert_gone(pid).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_closed_warm_query_leaves_no_process() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let warm = rig.builder(rig.options()).startup().await.unwrap();
    let pid = warm.client().pid().unwrap();
    let report = tokio::time::timeout(TURN, warm.close()).await.unwrap();
    assert!(report.exit.is_some(), "{report:?}");
    assert_gone(pid).await;
    assert!(rig.server.main_requests().is_empty());
}

/// Moves `client` to `dir`, accepting the trust prompt if the CLI asks.
async fn move_to(client: &Client, dir: &std::path::Path) -> CwdChange {
    match client.set_cwd(dir).await.unwrap() {
        CwdChange::NeedsTrust { directory, .. } => {
            client.set_cwd_trusting(dir, &directory).await.unwrap()
        }
        other => other,
    }
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn a_warm_cli_moves_to_another_directory_before_its_first_turn() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let other = tempfile::tempdir().unwrap();
    let target = std::fs::canonicalize(other.path()).unwrap();
    let client = rig.connect(rig.options()).await;
    let change = move_to(&client, &target).await;
    let CwdChange::Moved { cwd, changed, .. } = change else {
        panic!("moved: {change:?}");
    };
    assert_eq!(cwd, target.to_str().unwrap());
    assert!(changed);
    client.send("where are you").await.unwrap();
    turn(&client).await;
    let system = rig.server.main_requests()[0].body.to_string();
    let start = std::fs::canonicalize(rig.cwd.path()).unwrap();
    assert!(system.contains(target.to_str().unwrap()), "{system}");
    assert!(!system.contains(start.to_str().unwrap()), "old cwd gone");
    let missing = client.set_cwd(target.join("missing")).await.unwrap();
    assert!(
        matches!(&missing, CwdChange::Rejected { reason, .. } if reason == "not_found"),
        "{missing:?}"
    );
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn the_thinking_display_reaches_the_next_model_request() {
    let script = ModelScript::new()
        .reply(Reply::text("a"))
        .reply(Reply::text("b"));
    let Some(rig) = Rig::start(script).await else {
        return;
    };
    let client = rig.connect(rig.options().model("claude-sonnet-4-5")).await;
    client
        .set_max_thinking_tokens_with_display(Some(4096), Some(ThinkingDisplay::Omitted))
        .await
        .unwrap();
    client.send("one").await.unwrap();
    turn(&client).await;
    client
        .set_thinking_display(Some(ThinkingDisplay::Summarized))
        .await
        .unwrap();
    client.send("two").await.unwrap();
    turn(&client).await;
    let thinking: Vec<_> = rig
        .server
        .main_requests()
        .iter()
        .map(|r| r.body["thinking"].clone())
        .collect();
    assert_eq!(thinking[0]["budget_tokens"], 4096, "{thinking:?}");
    // 2.1.332 asks the API for `omitted` under its wire name `updates`.
    assert_eq!(thinking[0]["display"], "updates", "{thinking:?}");
    assert_eq!(
        thinking[1]["budget_tokens"], 4096,
        "budget kept: {thinking:?}"
    );
    assert_eq!(thinking[1]["display"], "summarized", "{thinking:?}");
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn an_mcp_permission_override_for_an_unknown_server_is_kept_with_a_warning() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client = rig.connect(rig.options()).await;
    let warning = client
        .set_mcp_permission_mode_override("no-such-server", Some(McpPromptMode::Default))
        .await
        .unwrap();
    assert!(
        warning
            .as_deref()
            .is_some_and(|w| w.contains("no-such-server")),
        "{warning:?}"
    );
    client
        .set_mcp_permission_mode_override("no-such-server", None)
        .await
        .unwrap();
    shutdown(&client).await;
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn reinitialize_answers_afresh_and_the_account_is_typed() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let client: Client = rig.connect(rig.options()).await;
    let first = client.server_info().unwrap();
    let again = client.reinitialize().await.unwrap();
    assert_eq!(again.pid, first.pid);
    assert!(again.commands.is_some_and(|c| !c.is_empty()));
    let account = client.account_info().unwrap().expect("an account");
    assert_eq!(
        account.api_key_source.as_deref(),
        Some("ANTHROPIC_API_KEY"),
        "{account:?}"
    );
    shutdown(&client).await;
}
