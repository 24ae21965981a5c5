use std::path::Path;

use serde_json::{Value, json};

use super::*;
use crate::options::SettingSource;

/// Cases answered by the TypeScript SDK 0.3.332's own `resolveSettings`,
/// one JSON object a line (`scripts/record-resolve-settings.sh`): the files
/// of a case root (`home/` is HOME, `project/` the cwd, `managed/` the
/// managed-settings folder, `cfg/` CLAUDE_CONFIG_DIR when named), the
/// options, and `out`, the answer with the root written as `<root>`.
const TS_CASES: &str = include_str!("../../testdata/resolve_settings/ts_sdk_0.3.332_cases.jsonl");

fn options_of(case: &Value, root: &Path) -> ResolveSettingsOptions {
    let o = &case["options"];
    let map = |v: &Value| v.as_object().cloned();
    let config_dir = match case["config_dir_env"].as_str() {
        Some(dir) => root.join(dir),
        None => root.join("home").join(".claude"),
    };
    let sources = o["settingSources"].as_array().map(|list| {
        list.iter()
            .map(|s| serde_json::from_value::<SettingSource>(s.clone()).expect("a source name"))
            .collect()
    });
    let mut options = ResolveSettingsOptions::new(root.join("project"));
    options.setting_sources = sources;
    options.managed_settings = map(&o["managedSettings"]);
    options.server_managed_settings = map(&o["serverManagedSettings"]);
    options.config_dir = Some(config_dir);
    options.managed_dir = Some(root.join("managed"));
    options
}

/// Ours in the TS SDK's JSON, the root written as `<root>`.
fn as_ts_json(resolved: &ResolvedSettings, root: &Path) -> Value {
    let text = serde_json::to_string(resolved).expect("serializes");
    let root_json = serde_json::to_string(&root.display().to_string()).expect("a string");
    let text = text.replace(root_json.trim_matches('"'), "<root>");
    let mut value: Value = serde_json::from_str(&text).expect("JSON");
    let did_not_load = &mut value["machinePolicy"]["didNotLoad"];
    if did_not_load.as_array().is_some_and(Vec::is_empty) {
        *did_not_load = json!(false);
    }
    value
}

#[test]
fn every_case_resolves_as_the_typescript_sdk_does() {
    let mut checked = 0;
    let mut differ = Vec::new();
    for line in TS_CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a case is JSON");
        let name = case["name"].as_str().unwrap_or("?");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir.path();
        for sub in ["home", "project", "managed"] {
            std::fs::create_dir_all(root.join(sub)).expect("mkdir");
        }
        for (rel, text) in case["files"].as_object().into_iter().flatten() {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(&path, text.as_str().expect("file text")).expect("write");
        }
        let resolved = resolve_settings(&options_of(&case, root)).expect("resolves");
        let got = as_ts_json(&resolved, root);
        let want = &case["out"];
        for field in ["effective", "provenance", "sources"] {
            if got[field] != want[field] {
                differ.push(format!(
                    "{field} of case {name}:\n  ours {}\n  TS   {}",
                    got[field], want[field]
                ));
            }
        }
        if got["machinePolicy"]["didNotLoad"] != want["machinePolicy"]["didNotLoad"] {
            differ.push(format!("machinePolicy of case {name}"));
        }
        checked += 1;
    }
    assert!(
        differ.is_empty(),
        "{} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    assert!(checked >= 45, "only {checked} cases read");
}
