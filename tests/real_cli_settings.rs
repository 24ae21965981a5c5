//! `settings::resolve_settings` against the real CLI's own resolution: the
//! same files (user, project, local), a `--settings` overlay and a parent's
//! `managedSettings`, resolved here without a CLI and by a live CLI's
//! `get_settings`, must agree. The managed-settings file is left out: the
//! CLI reads it only from the platform folder (`/etc/claude-code` on
//! Linux), which no variable moves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod real_cli;

use std::path::Path;

use claude_agent::options::{SettingSource, Settings};
use claude_agent::settings::{ResolveSettingsOptions, resolve_settings};
use claude_agent_testkit::model::ModelScript;
use real_cli::{Rig, shutdown};
use serde_json::{Map, Value, json};

fn write(path: &Path, value: &Value) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

/// What the rig's CLI reads: the user's, project and local files under
/// `home` and `cwd`, `managed` as the parent's policy, no managed folder.
fn file_sources(home: &Path, cwd: &Path, managed: Map<String, Value>) -> ResolveSettingsOptions {
    let mut options = ResolveSettingsOptions::new(cwd);
    options.config_dir = Some(home.join(".claude"));
    options.managed_dir = Some(home.join("no-managed-folder"));
    options.managed_settings = Some(managed);
    options.setting_sources = Some(vec![
        SettingSource::User,
        SettingSource::Project,
        SettingSource::Local,
    ]);
    options
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn resolved_settings_agree_with_the_live_clis_get_settings() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let home = rig.home.path();
    let cwd = rig.cwd.path();
    write(
        &home.join(".claude/settings.json"),
        &json!({
            "model": "user-model",
            "env": {"A": "user", "B": "user"},
            "permissions": {"allow": ["Bash(ls:*)", "Read"], "deny": ["WebFetch"]},
            "cleanupPeriodDays": 45,
            "includeCoAuthoredBy": false,
            "deniedModels": ["claude-3-haiku"],
            "hostNote": {"nested": {"a": 1, "list": [1, 2]}}
        }),
    );
    write(
        &cwd.join(".claude/settings.json"),
        &json!({
            "model": "project-model",
            "env": {"B": "project", "C": "project"},
            "permissions": {"allow": ["Read", "Edit"], "ask": ["Bash(git push:*)"]},
            "hostNote": {"nested": {"list": [2, 3], "b": true}}
        }),
    );
    write(
        &cwd.join(".claude/settings.local.json"),
        &json!({
            "env": {"C": "local"},
            "permissions": {"allow": ["Glob", "Read"]},
            "hostNote": {"other": "local"}
        }),
    );
    let flag = object(json!({"env": {"F": "flag"}, "permissions": {"deny": ["Bash(rm:*)"]}}));
    let managed = object(json!({
        "permissions": {"deny": ["Bash(curl:*)"]},
        "allowManagedHooksOnly": true,
        "model": "dropped-by-the-policy-filter"
    }));

    let mut options = file_sources(home, cwd, managed.clone());
    options.flag_settings = Some(flag.clone());
    let ours = resolve_settings(&options).unwrap();

    let client = rig
        .connect(
            rig.options()
                .settings(Settings::Json(Value::Object(flag)))
                .managed_settings(managed),
        )
        .await;
    let theirs = client.get_settings().await.unwrap();
    shutdown(&client).await;

    let effective = theirs.effective.clone().unwrap();
    assert_eq!(ours.effective, effective, "effective settings");
    assert_eq!(
        ours.effective["env"],
        json!({"A": "user", "B": "project", "C": "local", "F": "flag"})
    );
    assert_eq!(
        ours.effective.get("deniedModels"),
        None,
        "a user's deniedModels never applies"
    );
    let their_sources: Vec<(String, Map<String, Value>)> = theirs
        .sources
        .unwrap()
        .into_iter()
        .map(|s| (s.source.unwrap_or_default(), s.settings.unwrap_or_default()))
        .collect();
    let our_sources: Vec<(String, Map<String, Value>)> = ours
        .to_report()
        .sources
        .unwrap()
        .into_iter()
        .map(|s| (s.source.unwrap_or_default(), s.settings.unwrap_or_default()))
        .collect();
    assert_eq!(our_sources, their_sources, "each source's own settings");
}

#[tokio::test]
#[ignore = "needs the real Claude Code CLI (scripts/install-cli.sh)"]
async fn nested_values_are_read_as_the_live_cli_reads_them() {
    let Some(rig) = Rig::start(ModelScript::new()).await else {
        return;
    };
    let home = rig.home.path();
    let cwd = rig.cwd.path();
    // A reacting event loses the hook it cannot read; unknown fields of a
    // hook, a matcher and the status line are dropped; a lenient field is
    // dropped alone; permission rules that are not strings are dropped.
    write(
        &home.join(".claude/settings.json"),
        &json!({
            "hooks": {"Stop": [{"matcher": "", "extra": 1, "hooks": [
                {"type": "command", "command": "true", "extra": 1},
                {"type": "prompt"}
            ]}]},
            "statusLine": {"type": "command", "command": "echo", "extra": 1, "refreshInterval": 0},
            "permissions": {"allow": ["Read", 5], "defaultMode": "manual"},
            "worktree": {"bgIsolation": "sideways", "baseRef": "fresh"}
        }),
    );
    // A guarding hook that cannot be read refuses the whole file.
    write(
        &cwd.join(".claude/settings.json"),
        &json!({
            "model": "refused-with-its-file",
            "hooks": {"PreToolUse": [{"hooks": [{"type": "command"}]}]}
        }),
    );
    // A nested value of the wrong type refuses the whole file.
    write(
        &cwd.join(".claude/settings.local.json"),
        &json!({"model": "refused-too", "sandbox": {"network": {"allowedDomains": "a.com"}}}),
    );
    let managed = object(json!({
        "pluginConfigs": {"sec-default@builtin": {"options": {
            "allowManagedModsOnly": true, "allowModsToOverrideDenyRules": true
        }}},
        "sandbox": {"enabled": true, "credentials": {"awsPairs": [
            {"accessKeyIdVar": "AWS_ACCESS_KEY_ID", "secretAccessKeyVar": "AWS_SECRET_ACCESS_KEY"}
        ]}}
    }));

    let ours = resolve_settings(&file_sources(home, cwd, managed.clone())).unwrap();

    let client = rig.connect(rig.options().managed_settings(managed)).await;
    let theirs = client.get_settings().await.unwrap();
    shutdown(&client).await;

    assert_eq!(
        ours.effective,
        theirs.effective.clone().unwrap(),
        "effective settings"
    );
    assert_eq!(
        ours.effective.get("model"),
        None,
        "both refused files stay out"
    );
    assert_eq!(
        ours.effective["hooks"],
        json!({"Stop": [{"matcher": "", "hooks": [{"type": "command", "command": "true"}]}]})
    );
    assert_eq!(
        ours.effective["pluginConfigs"],
        json!({"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": true}}})
    );
    assert_eq!(
        ours.effective["sandbox"]["credentials"]["awsPairs"][1],
        json!({"accessKeyIdVar": "AWS_SECRET_ACCESS_KEY", "secretAccessKeyVar": "_PARENT_PAIR_SUPPRESSOR_2_"})
    );
}
