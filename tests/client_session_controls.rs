//! The TypeScript SDK's session requests against the fake CLI: each typed
//! call sends the request the TypeScript SDK sends and decodes the reply
//! (replies recorded from CLI 2.1.332), unknown members kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, SystemTime};

use claude_agent::protocol::{ReadFile, RenameSession};
use claude_agent_testkit::Script;
use common::*;
use serde_json::json;

#[tokio::test]
async fn session_edits_send_the_documented_requests() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("seed_read_state", json!({}))
            .expect_control("cancel_async_message", json!({"cancelled": true}))
            .expect_control("cancel_async_message", json!({}))
            .expect_control("rename_session", json!({}))
            .expect_control("rename_session", json!({}))
            .expect_control(
                "reload_output_styles",
                json!({"available_output_styles": ["default", "Concise"]}),
            ),
    );
    let client = fake.builder().connect().await.unwrap();
    let read_at = SystemTime::UNIX_EPOCH + Duration::from_micros(1_700_000_000_123_999);
    client.seed_read_state("src/lib.rs", read_at).await.unwrap();
    assert!(client.cancel_async_message("u-1").await.unwrap());
    assert!(
        !client.cancel_async_message("u-2").await.unwrap(),
        "an empty reply: not cancelled"
    );
    client.rename_session("Title").await.unwrap();
    let mut request = RenameSession::default();
    request.title = Some("Other".into());
    request.session_id = Some("s-1".into());
    client.rename_session_with(request).await.unwrap();
    assert_eq!(
        client.reload_output_styles().await.unwrap(),
        ["default", "Concise"]
    );
    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "seed_read_state", "path": "src/lib.rs", "mtime": 1_700_000_000_123u64}),
            json!({"subtype": "cancel_async_message", "message_uuid": "u-1"}),
            json!({"subtype": "cancel_async_message", "message_uuid": "u-2"}),
            json!({"subtype": "rename_session", "title": "Title", "source": "host"}),
            json!({"subtype": "rename_session", "title": "Other", "session_id": "s-1"}),
            json!({"subtype": "reload_output_styles"}),
        ]
    );
    client.shutdown().await;
}

#[tokio::test]
async fn session_queries_decode_the_clis_replies_typed() {
    let fake = fake(
        Script::new()
            .expect_initialize()
            .expect_control("list_models", json!({"models": [{
                "value": "opus", "displayName": "Opus", "resolvedModel": "claude-opus-5-5",
                "supportsEffort": true, "supportedEffortLevels": ["low", "max"],
                "supportsThinkingOff": false}]}))
            .expect_control("get_usage", json!({
                "behaviors": null, "rate_limits_available": true, "subscription_type": "max",
                "rate_limits": {"five_hour": {"utilization": 12.5, "resets_at": "2026-11-30T20:00:00Z"},
                                "seven_day": null,
                                "model_scoped": [{"display_name": "Fable", "utilization": null, "resets_at": null}]},
                "session": {"total_cost_usd": 0.043132, "total_api_duration_ms": 27,
                    "total_duration_ms": 621, "total_lines_added": 3, "total_lines_removed": 1,
                    "model_usage": {"claude-opus-5-5": {"inputTokens": 10778, "outputTokens": 1,
                        "cacheReadInputTokens": 0, "cacheCreationInputTokens": 0,
                        "webSearchRequests": 0, "costUSD": 0.043132, "contextWindow": 1000000,
                        "maxOutputTokens": 128000, "provider": "firstParty"}}}}))
            .expect_control("read_file", json!({"absPath": "/w/f.txt", "contents": "aGk=",
                "encoding": "base64", "requested_path": "f.txt", "truncated": true}))
            .expect_control("mcp_read_resource", json!({"contents": [{"uri": "ui://w",
                "mimeType": "text/html", "text": "<p>", "_meta": {"ui": {"csp": {}}}}]}))
            .expect_control("get_task_output", json!({"output": "done\n", "total_bytes": 9000,
                "truncated": true}))
            .expect_control("get_hooks_listing", json!({
                "events": [{"name": "PreToolUse", "summary": "Before tool execution",
                            "supportsMatcher": true, "hookCount": 1}],
                "hooks": [{"event": "PreToolUse", "matcher": "Bash", "source": "userSettings",
                           "sourceLabel": "User settings", "type": "command",
                           "displayText": "audit.sh", "commandText": "audit.sh",
                           "contentLabel": "Command", "timeout": 30}],
                "eventCatalog": [], "policy": {"allDisabled": false, "disabledByPolicy": false,
                    "managedOnly": false, "pluginOnly": false, "policyHookCount": 0}}))
            .expect_control("list_permission_rules", json!({"state": {
                "managedOnly": false, "originalCwd": "/w",
                "rules": [{"behavior": "deny", "source": "localSettings", "rule": "Read(.env)",
                           "editability": "persistent"}],
                "workspaceDirectories": [{"path": "/data", "source": "cliArg"}],
                "errors": [{"file": "/w/.claude/settings.json", "path": "", "message": "bad JSON"}]}}))
            .expect_control("get_settings", json!({
                "applied": {"model": "claude-opus-5-5", "effort": "medium"},
                "effective": {"model": "opus"}, "served_settings_state": "ineligible",
                "sources": [{"source": "userSettings", "settings": {"model": "opus"},
                             "path": "/h/.claude/settings.json"}]})),
    );
    let client = fake.builder().connect().await.unwrap();

    let models = client.list_models().await.unwrap();
    assert_eq!(models[0].resolved_model.as_deref(), Some("claude-opus-5-5"));
    assert_eq!(
        models[0].extra.get("supportsThinkingOff"),
        Some(&json!(false))
    );

    let usage = client.get_usage(false).await.unwrap();
    let session = usage.session.unwrap();
    assert_eq!(session.total_lines_added, Some(3));
    let opus = &session.model_usage.unwrap()["claude-opus-5-5"];
    assert_eq!(opus.input_tokens, Some(10778));
    assert_eq!(opus.cost_usd, Some(0.043132));
    assert_eq!(opus.extra.get("provider"), Some(&json!("firstParty")));
    let limits = usage.rate_limits.unwrap();
    assert_eq!(limits.five_hour.unwrap().utilization, Some(12.5));
    assert_eq!(limits.seven_day, None);
    assert_eq!(
        limits.model_scoped.unwrap()[0].display_name.as_deref(),
        Some("Fable")
    );

    let mut read = ReadFile::default();
    read.path = Some("f.txt".into());
    read.encoding = Some("base64".into());
    read.max_bytes = Some(2);
    let file = client.read_file_with(read).await.unwrap();
    assert_eq!(
        (
            file.contents.as_deref(),
            file.encoding.as_deref(),
            file.truncated
        ),
        (Some("aGk="), Some("base64"), Some(true))
    );

    let resource = client.mcp_read_resource("apps", "ui://w").await.unwrap();
    let item = &resource.contents.unwrap()[0];
    assert_eq!(item.mime_type.as_deref(), Some("text/html"));
    assert!(item.meta.as_ref().unwrap().contains_key("ui"));

    let output = client.get_task_output("b1").await.unwrap();
    assert_eq!(
        (output.total_bytes, output.truncated),
        (Some(9000), Some(true))
    );

    let hooks = client.get_hooks_listing().await.unwrap();
    let row = &hooks.hooks.unwrap()[0];
    assert_eq!(row.hook_type.as_deref(), Some("command"));
    assert_eq!(row.timeout, Some(30.0));
    assert_eq!(row.extra.get("contentLabel"), Some(&json!("Command")));
    assert_eq!(hooks.events.unwrap()[0].hook_count, Some(1));

    let rules = client.list_permission_rules().await.unwrap();
    assert_eq!(rules.rules.unwrap()[0].rule.as_deref(), Some("Read(.env)"));
    assert_eq!(
        rules.workspace_directories.unwrap()[0].path.as_deref(),
        Some("/data")
    );
    assert_eq!(
        rules.errors.unwrap()[0].message.as_deref(),
        Some("bad JSON")
    );

    let settings = client.get_settings().await.unwrap();
    assert_eq!(settings.applied.unwrap()["effort"], "medium");
    let source = &settings.sources.unwrap()[0];
    assert_eq!(source.source.as_deref(), Some("userSettings"));
    assert_eq!(
        settings.served_settings_state.as_deref(),
        Some("ineligible")
    );

    assert_eq!(
        fake.control_requests(),
        [
            json!({"subtype": "list_models"}),
            json!({"subtype": "get_usage", "skip_behaviors": false}),
            json!({"subtype": "read_file", "path": "f.txt", "max_bytes": 2, "encoding": "base64"}),
            json!({"subtype": "mcp_read_resource", "serverName": "apps", "uri": "ui://w"}),
            json!({"subtype": "get_task_output", "task_id": "b1"}),
            json!({"subtype": "get_hooks_listing"}),
            json!({"subtype": "list_permission_rules"}),
            json!({"subtype": "get_settings"}),
        ]
    );
    client.shutdown().await;
}
