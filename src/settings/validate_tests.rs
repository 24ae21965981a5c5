use serde_json::{Map, Value, json};

use super::validate::{SourceKind, validate};
use super::validate_rule::OnWrong;
use super::validate_rules::RULES;
use super::*;
use crate::options::SettingSource;

/// The TypeScript SDK 0.3.332's own answers for one value of one key,
/// written alone in a project's settings file (`project`) and passed alone
/// as `serverManagedSettings` (`server`): `"file"` (the source refused),
/// `"key"` (the key dropped) or `{"kept": value}`
/// (`scripts/record-settings-key-probes.sh`).
const PROBES: &str =
    include_str!("../../testdata/resolve_settings/ts_sdk_0.3.332_key_probes.jsonl");

/// Beside the probed key, so a refused source shows as one.
const SENTINEL: &str = "probeSentinel";

/// What became of `key` in a source as resolved, in the probes' words.
fn outcome(source: Option<&Map<String, Value>>, key: &str) -> Value {
    match source {
        Some(s) if s.contains_key(SENTINEL) => match s.get(key) {
            Some(v) => json!({ "kept": v }),
            None => json!("key"),
        },
        _ => json!("file"),
    }
}

/// Ours for `doc` as a project file and as server-managed settings.
fn ours(doc: &Map<String, Value>, key: &str) -> (Value, Value) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let claude = dir.path().join("project").join(".claude");
    std::fs::create_dir_all(&claude).expect("mkdir");
    std::fs::write(
        claude.join("settings.json"),
        Value::Object(doc.clone()).to_string(),
    )
    .expect("write");
    let mut options = ResolveSettingsOptions::new(dir.path().join("project"));
    options.config_dir = Some(dir.path().join("home"));
    options.managed_dir = Some(dir.path().join("managed"));
    options.setting_sources = Some(vec![SettingSource::Project]);
    let project = resolve_settings(&options).expect("resolves");
    let project = project
        .sources
        .iter()
        .find(|s| s.source == ResolvedSettingSource::Project);
    options.setting_sources = Some(vec![]);
    options.server_managed_settings = Some(doc.clone());
    let server = resolve_settings(&options).expect("resolves");
    let server = server
        .sources
        .iter()
        .find(|s| s.source == ResolvedSettingSource::Managed);
    (
        outcome(project.map(|s| &s.settings), key),
        outcome(server.map(|s| &s.settings), key),
    )
}

#[test]
fn every_schema_key_reads_each_probed_value_as_the_typescript_sdk_does() {
    let mut checked = 0;
    let mut differ = Vec::new();
    for line in PROBES.lines().filter(|l| !l.trim().is_empty()) {
        let probe: Value = serde_json::from_str(line).expect("a probe is JSON");
        let key = probe["key"].as_str().expect("a key");
        let values = probe["values"].as_array().expect("values");
        for (i, value) in values.iter().enumerate() {
            let mut doc = Map::new();
            doc.insert(SENTINEL.into(), json!(1));
            doc.insert(key.into(), value.clone());
            let (project, server) = ours(&doc, key);
            if project != probe["project"][i] {
                differ.push(format!(
                    "{key}={value} project: ours {project}, TS {}",
                    probe["project"][i]
                ));
            }
            if server != probe["server"][i] {
                differ.push(format!(
                    "{key}={value} server: ours {server}, TS {}",
                    probe["server"][i]
                ));
            }
            checked += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {checked} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    assert!(checked > 3000, "only {checked} probes read");
}

#[test]
fn the_table_covers_every_key_of_the_typescript_settings_type_once() {
    let probed: Vec<String> = PROBES
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|p| p["key"].as_str().map(String::from))
        .collect();
    for key in &probed {
        assert_eq!(RULES.iter().filter(|r| r.key == key).count(), 1, "{key}");
    }
    assert!(probed.len() >= 185, "only {} keys probed", probed.len());
}

#[test]
fn every_fallback_in_the_table_is_json() {
    for rule in RULES {
        for on_wrong in [rule.file, rule.policy] {
            if let OnWrong::Restrict(text) | OnWrong::FailClosed(text) = on_wrong {
                assert!(
                    serde_json::from_str::<Value>(text).is_ok(),
                    "{}: {text}",
                    rule.key
                );
            }
        }
        assert!(
            !matches!(rule.policy, OnWrong::Refuse),
            "{}: a policy source is never refused",
            rule.key
        );
    }
}

#[test]
fn a_wrong_value_refuses_a_users_file_and_drops_only_the_key_from_policy() {
    let doc = |v: Value| v.as_object().cloned().expect("an object");
    let bad = doc(json!({"cleanupPeriodDays": -1, "model": "m", "custom": [1]}));
    assert_eq!(validate(bad.clone(), SourceKind::UserWritten), None);
    assert_eq!(
        validate(bad, SourceKind::Policy),
        Some(doc(json!({"model": "m", "custom": [1]})))
    );
    let lenient = doc(json!({"effortLevel": "extreme", "model": "m"}));
    assert_eq!(
        validate(lenient, SourceKind::UserWritten),
        Some(doc(json!({"model": "m"})))
    );
    let restrictive = doc(json!({"allowManagedHooksOnly": "yes"}));
    assert_eq!(
        validate(restrictive, SourceKind::Policy),
        Some(doc(json!({"allowManagedHooksOnly": true})))
    );
}
