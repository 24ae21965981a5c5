//! `Client`'s typed control calls against the fake CLI: each sends the
//! request shape the SDKs send and decodes the documented reply.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use claude_agent::client::{ContextDetail, SettingsFile};
use claude_agent::options::PermissionMode;
use claude_agent::protocol::ReloadPlugins;
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

#[tokio::test]
async fn interrupt_receipts_and_the_effective_permission_mode_are_typed() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("interrupt", json!({"still_queued": ["a"]}))
            .expect_control("interrupt", json!({"still_queued": [], "cancelled": ["b"]}))
            .expect_control("interrupt", json!({}))
            .expect_control("set_permission_mode", json!({"mode": "default"}))
            .expect_control("set_permission_mode", json!({"mode": "manual"})),
    );
    let client = fake.builder().connect().await.unwrap();
    let r = client.interrupt().await.unwrap();
    assert_eq!(r.still_queued.unwrap(), ["a"]);
    assert_eq!(r.cancelled, None);
    let r = client.interrupt_and_cancel_queued().await.unwrap();
    assert_eq!(r.cancelled.unwrap(), ["b"]);
    let r = client.interrupt().await.unwrap();
    assert_eq!(r.still_queued, None, "an older CLI's empty receipt");

    let mode = client
        .set_permission_mode(PermissionMode::BypassPermissions)
        .await
        .unwrap();
    assert_eq!(mode.effective_mode(), Some(PermissionMode::Default));
    let mode = client
        .set_permission_mode(PermissionMode::Plan)
        .await
        .unwrap();
    assert_eq!(mode.effective_mode(), Some(PermissionMode::Default));

    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "interrupt"}),
            json!({"subtype": "interrupt", "cancel_queued": true}),
            json!({"subtype": "interrupt"}),
            json!({"subtype": "set_permission_mode", "mode": "bypassPermissions"}),
            json!({"subtype": "set_permission_mode", "mode": "plan"}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn rewind_mcp_status_and_context_usage_replies_are_typed() {
    let rewind =
        json!({"canRewind": true, "filesChanged": ["a.rs"], "insertions": 3, "deletions": 1});
    let status = json!({"mcpServers": [{"name": "calc", "status": "connected",
        "serverInfo": {"name": "calc", "version": "1.0.0"}, "scope": "sdk",
        "tools": [{"name": "add"}]}]});
    let usage = json!({"categories": [{"id": "messages", "name": "Messages", "tokens": 120,
        "color": "purple", "kind": "used"}], "totalTokens": 120, "maxTokens": 200000,
        "rawMaxTokens": 200000, "percentage": 0.06, "gridRows": [], "model": "m",
        "memoryFiles": [], "mcpTools": [], "agents": [], "isAutoCompactEnabled": true,
        "apiUsage": null});
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("rewind_files", rewind.clone())
            .expect_control(
                "rewind_files",
                json!({"canRewind": false, "error": "no checkpoint"}),
            )
            .expect_control("mcp_status", status)
            .expect_control("get_context_usage", usage.clone())
            .expect_control("get_context_usage", usage),
    );
    let client = fake.builder().connect().await.unwrap();
    let dry = client.rewind_files_dry_run("m-1").await.unwrap();
    assert_eq!(dry.can_rewind, Some(true));
    assert_eq!(dry.files_changed.unwrap(), ["a.rs"]);
    assert_eq!((dry.insertions, dry.deletions), (Some(3), Some(1)));
    let done = client.rewind_files("m-1").await.unwrap();
    assert_eq!(done.error.as_deref(), Some("no checkpoint"));

    let servers = client.mcp_status().await.unwrap();
    assert_eq!(servers.len(), 1);
    assert_eq!(servers[0].status.as_deref(), Some("connected"));
    assert_eq!(servers[0].server_info.as_ref().unwrap()["version"], "1.0.0");

    let full = client.get_context_usage().await.unwrap();
    assert_eq!(full.total_tokens, Some(120));
    let row = &full.categories.as_ref().unwrap()[0];
    assert_eq!(
        (row.id.as_deref(), row.kind.as_deref()),
        (Some("messages"), Some("used"))
    );
    assert_eq!(full.api_usage, None);
    let summary = client
        .get_context_usage_with(ContextDetail::Summary)
        .await
        .unwrap();
    assert_eq!(summary.is_auto_compact_enabled, Some(true));

    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "rewind_files", "user_message_id": "m-1", "dry_run": true}),
            json!({"subtype": "rewind_files", "user_message_id": "m-1"}),
            json!({"subtype": "mcp_status"}),
            json!({"subtype": "get_context_usage"}),
            json!({"subtype": "get_context_usage", "detail": "summary"}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn settings_thinking_and_background_controls_send_the_documented_requests() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("set_max_thinking_tokens", json!({}))
            .expect_control("set_max_thinking_tokens", json!({}))
            .expect_control("apply_flag_settings", json!({}))
            .expect_control("update_settings", json!({}))
            .expect_control("get_settings", json!({"effective": {"model": "m"}}))
            .expect_control("background_tasks", json!({"backgrounded": false}))
            .expect_control("background_tasks", json!({}))
            .expect_control("set_model", json!({})),
    );
    let client = fake.builder().connect().await.unwrap();
    client.set_max_thinking_tokens(Some(8000)).await.unwrap();
    client.set_max_thinking_tokens(None).await.unwrap();
    let settings = json!({"effortLevel": "high", "fastMode": null});
    client
        .apply_flag_settings(settings.as_object().unwrap().clone())
        .await
        .unwrap();
    let local = json!({"outputStyle": "Explanatory"});
    client
        .update_settings(SettingsFile::Local, local.as_object().unwrap().clone())
        .await
        .unwrap();
    assert_eq!(
        client.get_settings().await.unwrap().effective.unwrap()["model"],
        "m"
    );
    assert!(!client.background_tasks(Some("toolu_1")).await.unwrap());
    assert!(client.background_tasks(None).await.unwrap(), "absent: yes");
    client.set_model(None).await.unwrap();

    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": 8000}),
            json!({"subtype": "set_max_thinking_tokens", "max_thinking_tokens": null}),
            json!({"subtype": "apply_flag_settings", "settings": settings}),
            json!({"subtype": "update_settings", "source": "localSettings", "settings": local}),
            json!({"subtype": "get_settings"}),
            json!({"subtype": "background_tasks", "tool_use_id": "toolu_1"}),
            json!({"subtype": "background_tasks"}),
            json!({"subtype": "set_model", "model": null}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn reload_replies_and_supported_lists_are_typed() {
    let fake = fake(
        Script::new()
            .expect_initialize_reply(json!({
                "commands": [{"name": "review", "description": "Review a PR", "argumentHint": ""}],
                "agents": [{"name": "general-purpose", "description": "Anything"}],
                "models": [{"value": "default", "displayName": "Default", "description": "d"}],
            }))
            .expect_control(
                "reload_plugins",
                json!({"commands": [], "agents": [],
                "plugins": [{"name": "p", "path": "/p"}], "mcpServers": [], "error_count": 1}),
            )
            .expect_control(
                "reload_plugins",
                json!({"commands": [], "agents": [], "plugins": [],
                "mcpServers": [], "error_count": 0, "held": true,
                "cache_impact": {"mcp_servers_added": ["plugin:p:s"], "mcp_servers_removed": [],
                                 "lsp_tool_change": null}}),
            )
            .expect_control(
                "reload_skills",
                json!({"skills": [{"name": "pdf", "description": "PDFs",
                "argumentHint": ""}]}),
            ),
    );
    let client = fake.builder().connect().await.unwrap();
    assert_eq!(
        client.supported_commands().unwrap()[0].name.as_deref(),
        Some("review")
    );
    assert_eq!(
        client.supported_agents().unwrap()[0].name.as_deref(),
        Some("general-purpose")
    );
    assert_eq!(
        client.supported_models().unwrap()[0].value.as_deref(),
        Some("default")
    );

    let r = client.reload_plugins().await.unwrap();
    assert_eq!(r.error_count, Some(1));
    assert_eq!(r.plugins.unwrap()[0].name.as_deref(), Some("p"));
    let mut held = ReloadPlugins::default();
    held.hold_on_cache_impact = Some(true);
    let r = client.reload_plugins_with(held).await.unwrap();
    assert_eq!(r.held, Some(true));
    assert_eq!(
        r.cache_impact.unwrap()["mcp_servers_added"][0],
        "plugin:p:s"
    );
    let skills = client.reload_skills().await.unwrap().skills.unwrap();
    assert_eq!(skills[0].name.as_deref(), Some("pdf"));

    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "reload_plugins"}),
            json!({"subtype": "reload_plugins", "hold_on_cache_impact": true}),
            json!({"subtype": "reload_skills"}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn a_reply_of_the_wrong_shape_is_a_decode_error_not_a_panic() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("mcp_status", json!({"mcpServers": "not a list"})),
    );
    let client = fake.builder().connect().await.unwrap();
    let err = client.mcp_status().await.unwrap_err();
    let claude_agent::Error::Parse(parse) = &err else {
        panic!("not a parse error: {err}")
    };
    assert_eq!(
        parse.to_string(),
        "control_response/mcp_status has invalid field `mcpServers`: \
         invalid type: string \"not a list\", expected a sequence \
         (line starts \"{\\\"mcpServers\\\":\\\"not a list\\\"}\")"
    );
    client.shutdown().await;
}
