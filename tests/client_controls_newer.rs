//! The newer TypeScript controls and the ones beyond the official SDKs,
//! against the fake CLI: the request shapes on the wire and the typed
//! replies (thinking display, the MCP permission-mode override,
//! reinitialize, the account, set_cwd, compact).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher};
use claude_agent::client::{CwdChange, McpPromptMode};
use claude_agent::options::ThinkingDisplay;
use claude_agent::protocol::{HookInput, HookOutput};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

#[tokio::test]
async fn thinking_display_and_the_mcp_override_send_the_typescript_shapes() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("set_max_thinking_tokens", json!({}))
            .expect_control("set_max_thinking_tokens", json!({}))
            .expect_control("set_max_thinking_tokens", json!({}))
            .expect_control(
                "set_mcp_permission_mode_override",
                json!({"warning": "no MCP server named calc"}),
            )
            .expect_control("set_mcp_permission_mode_override", json!({})),
    );
    let client = fake.builder().connect().await.unwrap();
    client
        .set_max_thinking_tokens_with_display(Some(2048), Some(ThinkingDisplay::Highlights))
        .await
        .unwrap();
    client.set_thinking_display(None).await.unwrap();
    client
        .set_max_thinking_tokens_with_display(None, Some(ThinkingDisplay::Summarized))
        .await
        .unwrap();
    let warning = client
        .set_mcp_permission_mode_override("calc", Some(McpPromptMode::Auto))
        .await
        .unwrap();
    assert_eq!(warning.as_deref(), Some("no MCP server named calc"));
    let none = client
        .set_mcp_permission_mode_override("calc", None)
        .await
        .unwrap();
    assert_eq!(none, None);
    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 2048,
                   "thinking_display": "highlights"}),
            // Only the display: the budget is left out, so it stays.
            json!({"subtype": "set_max_thinking_tokens", "thinking_display": null}),
            json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": null,
                   "thinking_display": "summarized"}),
            json!({"subtype": "set_mcp_permission_mode_override", "serverName": "calc",
                   "mode": "auto"}),
            json!({"subtype": "set_mcp_permission_mode_override", "serverName": "calc",
                   "mode": null}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn reinitialize_resends_the_connect_request_and_the_account_is_typed() {
    let account = json!({"email": "dev@example.com", "subscriptionType": "max",
        "apiProvider": "firstParty", "tokenSource": "claude.ai"});
    let fake = fake(
        Script::new()
            .expect_initialize_reply(json!({"pid": 7, "account": account}))
            .expect_control(
                "initialize",
                json!({"pid": 7, "commands": [{"name": "compact"}], "hooks_applied": true}),
            ),
    );
    let audit = |_i: HookInput, _t: Option<String>, _c: HookContext| async move {
        Ok::<_, CallbackError>(HookOutput::default())
    };
    let client = fake
        .builder()
        .hook(HookEventKind::PreToolUse, HookMatcher::any().hook(audit))
        .connect()
        .await
        .unwrap();
    let account = client.account_info().unwrap().unwrap();
    assert_eq!(account.email.as_deref(), Some("dev@example.com"));
    assert_eq!(account.subscription_type.as_deref(), Some("max"));
    assert_eq!(account.api_provider.as_deref(), Some("firstParty"));
    assert_eq!(account.token_source.as_deref(), Some("claude.ai"));

    let fresh = client.reinitialize().await.unwrap();
    assert_eq!(fresh.hooks_applied, Some(true));
    assert_eq!(fresh.commands.unwrap()[0].name.as_deref(), Some("compact"));
    // The connect-time reply stays what server_info reports.
    assert_eq!(client.server_info().unwrap().commands, None);

    let inits: Vec<_> = fake
        .received()
        .into_iter()
        .filter(|l| l["type"] == "control_request" && l["request"]["subtype"] == "initialize")
        .map(|l| l["request"].clone())
        .collect();
    assert_eq!(inits.len(), 2);
    assert_eq!(inits[1], inits[0], "the same request, hooks included");
    assert!(inits[1]["hooks"]["PreToolUse"].is_array(), "{}", inits[1]);
    client.shutdown().await;
}

#[tokio::test]
async fn set_cwd_sends_the_path_and_the_trust_attestation_and_reads_each_status() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control(
                "set_cwd",
                json!({"status": "needs_trust", "directory": "/w/b", "trust_root": "/w"}),
            )
            .expect_control(
                "set_cwd",
                json!({"status": "ok", "cwd": "/w/b", "changed": true,
                       "transcript_relocated": true}),
            )
            .expect_control(
                "set_cwd",
                json!({"status": "rejected", "reason": "busy", "message": "a turn is running"}),
            ),
    );
    let client = fake.builder().connect().await.unwrap();
    let first = client.set_cwd("/w/b").await.unwrap();
    assert_eq!(
        first,
        CwdChange::NeedsTrust {
            directory: "/w/b".into(),
            trust_root: Some("/w".into())
        }
    );
    let moved = client.set_cwd_trusting("/w/b", "/w/b").await.unwrap();
    assert!(
        matches!(moved, CwdChange::Moved { changed: true, .. }),
        "{moved:?}"
    );
    let busy = client.set_cwd("/w/c").await.unwrap();
    assert!(
        matches!(&busy, CwdChange::Rejected { reason, .. } if reason == "busy"),
        "{busy:?}"
    );
    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "set_cwd", "path": "/w/b"}),
            json!({"subtype": "set_cwd", "path": "/w/b", "trust_accepted": true,
                   "trusted_directory": "/w/b"}),
            json!({"subtype": "set_cwd", "path": "/w/c"}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn compact_is_sent_as_the_slash_command_even_with_verbatim_prompts() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect("user", None)
            .expect("user", None),
    );
    let client = quick_builder(fake.options().verbatim_prompts(true))
        .connect()
        .await
        .unwrap();
    client.send("/compact as text").await.unwrap();
    client.compact(Some("keep the test names")).await.unwrap();
    client.shutdown().await;
    let users: Vec<_> = fake
        .received()
        .into_iter()
        .filter(|l| l["type"] == "user")
        .collect();
    assert_eq!(users.len(), 2, "{users:?}");
    assert_eq!(
        users[0]["client_composed"], true,
        "a plain send is verbatim"
    );
    assert_eq!(
        users[1]["message"]["content"],
        "/compact keep the test names"
    );
    assert!(
        users[1].get("client_composed").is_none(),
        "compact runs as a command: {}",
        users[1]
    );
}
