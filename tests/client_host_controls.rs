//! The requests the TypeScript SDK declares for its other hosts, against
//! the fake CLI: each typed call sends the request in the TypeScript
//! declaration's spelling and decodes the reply (replies recorded from CLI
//! 2.1.332), unknown members kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::protocol::{McpCall, RegisterRepoRoot};
use claude_agent_testkit::Script;
use common::*;
use serde_json::{Map, json};

#[tokio::test]
async fn host_requests_are_sent_as_declared_and_their_replies_decode_typed() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control(
                "get_session_cost",
                json!({"text": "Estimated cost:        $0.0000\nUsage:  0 input"}),
            )
            .expect_control(
                "get_binary_version",
                json!({"version": "2.1.332", "buildTime": "2026-11-24T19:09:44Z",
                       "oldestDesktopSdk": "0.3.280", "channel": "stable"}),
            )
            .expect_control(
                "file_suggestions",
                json!({"suggestions": [{"path": "sub/"}, {"path": "program.rs", "score": 0.5}],
                       "cwd": "/w"}),
            )
            .expect_control(
                "mcp_call",
                json!({"content": [{"type": "text", "text": "hello-x"}]}),
            )
            .expect_control(
                "mcp_call",
                json!({"content": [], "isError": true, "structuredContent": {"k": 1}}),
            )
            .expect_control("register_repo_root", json!({"directory": "/w/sub"}))
            .expect_control("register_repo_root", json!({"directory": "/w/b"}))
            .expect_control("set_has_subscribers", json!({}))
            .expect_control("set_has_subscribers", json!({})),
    );
    let client = fake.builder().connect().await.unwrap();

    let cost = client.get_session_cost().await.unwrap();
    assert!(cost.starts_with("Estimated cost:"));
    let version = client.get_binary_version().await.unwrap();
    assert_eq!(version.version.as_deref(), Some("2.1.332"));
    assert_eq!(version.oldest_desktop_sdk.as_deref(), Some("0.3.280"));
    assert_eq!(version.extra.get("channel"), Some(&json!("stable")));
    let files = client.file_suggestions("pro").await.unwrap();
    assert_eq!(files.paths(), ["sub/", "program.rs"]);
    assert_eq!(files.suggestions.unwrap()[1].score, Some(0.5));

    let mut arguments = Map::new();
    arguments.insert("name".into(), json!("X"));
    let result = client
        .mcp_call("mcp__echo__echo_env", arguments)
        .await
        .unwrap();
    assert_eq!(result.content.unwrap()[0]["text"], "hello-x");
    assert_eq!(result.is_error, None);
    let mut call = McpCall::default();
    call.tool = Some("mcp__echo__fail".into());
    call.soft_error_result = Some(true);
    call.check_permissions = Some(true);
    call.timeout_ms = Some(5000);
    let soft = client.mcp_call_with(call).await.unwrap();
    assert_eq!(soft.is_error, Some(true));
    assert_eq!(soft.structured_content.unwrap()["k"], 1);

    assert_eq!(client.register_repo_root("/w/sub").await.unwrap(), "/w/sub");
    let mut root = RegisterRepoRoot::default();
    root.directory = Some("/w/b".into());
    root.reload_skills = Some(true);
    assert_eq!(client.register_repo_root_with(root).await.unwrap(), "/w/b");
    client.set_has_subscribers(Some(false)).await.unwrap();
    client.set_has_subscribers(None).await.unwrap();

    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "get_session_cost"}),
            json!({"subtype": "get_binary_version"}),
            json!({"subtype": "file_suggestions", "query": "pro"}),
            json!({"subtype": "mcp_call", "tool": "mcp__echo__echo_env", "arguments": {"name": "X"}}),
            json!({"subtype": "mcp_call", "tool": "mcp__echo__fail", "check_permissions": true,
                   "soft_error_result": true, "timeout_ms": 5000}),
            json!({"subtype": "register_repo_root", "directory": "/w/sub"}),
            json!({"subtype": "register_repo_root", "directory": "/w/b", "reload_skills": true}),
            json!({"subtype": "set_has_subscribers", "has_subscribers": false}),
            // Null, not absent: the CLI refuses a request without the member.
            json!({"subtype": "set_has_subscribers", "has_subscribers": null}),
        ]
    );
    client.shutdown().await;
}
