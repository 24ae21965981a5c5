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

    let mut options = ResolveSettingsOptions::new(cwd);
    options.config_dir = Some(home.join(".claude"));
    options.managed_dir = Some(home.join("no-managed-folder"));
    options.flag_settings = Some(flag.clone());
    options.managed_settings = Some(managed.clone());
    options.setting_sources = Some(vec![
        SettingSource::User,
        SettingSource::Project,
        SettingSource::Local,
    ]);
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
