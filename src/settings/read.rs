//! The thin reader: where each source's file is, and reading it as the CLI
//! does. A missing or empty file is absent; one that cannot be read, is not
//! JSON or is not an object is skipped with a warning (and, for the
//! managed-settings file or a drop-in, reported in `machine_policy`).

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::cascade::{ReadSources, ReadTier};
use super::merge::merge_into;
use super::policy::PolicyInputs;
use super::restrictive_builtin::plugin_configs_part;
use super::types::{MachinePolicy, PolicyKind, ResolveSettingsOptions, ResolvedSettingSource};
use super::validate::{SourceKind, validate, validate_policy};
use crate::options::SettingSource;

/// What reading one settings file gave.
#[derive(Debug)]
pub(crate) enum FileRead {
    /// Missing, or nothing but white space.
    Absent,
    /// A JSON object.
    Loaded(Map<String, Value>),
    /// There, and not usable.
    Failed,
}

/// A file's settings checked; a policy file is labelled by its path.
fn validate_labelled(
    map: Map<String, Value>,
    kind: SourceKind,
    path: &Path,
) -> Option<Map<String, Value>> {
    match kind {
        SourceKind::Policy => Some(validate_policy(map, &path.to_string_lossy())),
        SourceKind::UserWritten => validate(map, kind),
    }
}

/// Reads `path` as a settings file of `kind`, its values checked as the
/// CLI checks them (a user-written file with a wrong value is refused).
pub(crate) fn read_file(path: &Path, kind: SourceKind) -> FileRead {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return FileRead::Absent;
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "settings file unreadable; skipped");
            return FileRead::Failed;
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return FileRead::Absent;
    }
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => match validate_labelled(map, kind, path) {
            Some(map) => FileRead::Loaded(map),
            None => {
                tracing::warn!(path = %path.display(), "settings file holds a wrong value; skipped");
                FileRead::Failed
            }
        },
        Ok(_) => {
            tracing::warn!(path = %path.display(), "settings file is not a JSON object; skipped");
            FileRead::Failed
        }
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "settings file is not JSON; skipped");
            FileRead::Failed
        }
    }
}

/// The managed-settings file with its drop-ins (`managed-settings.d/*.json`,
/// hidden files aside) merged over it in name order, and whether any of
/// them failed.
pub(crate) fn read_managed(dir: &Path) -> (Option<Map<String, Value>>, bool) {
    let mut failed = false;
    let mut merged: Option<Map<String, Value>> = None;
    let mut add = |read: FileRead, failed: &mut bool| match read {
        FileRead::Loaded(map) => merge_into(merged.get_or_insert_with(Map::new), &map),
        FileRead::Failed => *failed = true,
        FileRead::Absent => {}
    };
    add(
        read_file(&dir.join("managed-settings.json"), SourceKind::Policy),
        &mut failed,
    );
    let drop_ins = dir.join("managed-settings.d");
    match std::fs::read_dir(&drop_ins) {
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .filter_map(|e| e.ok())
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
                .filter_map(|e| e.file_name().into_string().ok())
                .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
                .collect();
            names.sort();
            for name in names {
                add(
                    read_file(&drop_ins.join(name), SourceKind::Policy),
                    &mut failed,
                );
            }
        }
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {}
        Err(e) => {
            tracing::warn!(path = %drop_ins.display(), error = %e, "managed settings folder unreadable");
            failed = true;
        }
    }
    (merged, failed)
}

/// Reads every source `options` names, from `cwd` and `config_dir`.
pub(crate) fn read_sources(
    options: &ResolveSettingsOptions,
    cwd: &Path,
    config_dir: Option<&Path>,
    managed_dir: &Path,
) -> ReadSources {
    let all = [
        SettingSource::User,
        SettingSource::Project,
        SettingSource::Local,
    ];
    let wanted = options.setting_sources.as_deref().unwrap_or(&all);
    let mut tiers = Vec::new();
    // Always in precedence order, whatever order the list gives.
    for source in all.into_iter().filter(|s| wanted.contains(s)) {
        let path = match source {
            SettingSource::User => config_dir.map(|d| d.join("settings.json")),
            SettingSource::Project => Some(cwd.join(".claude").join("settings.json")),
            SettingSource::Local => Some(cwd.join(".claude").join("settings.local.json")),
        };
        let Some(path) = path else { continue };
        let settings = match read_file(&path, SourceKind::UserWritten) {
            FileRead::Loaded(map) => map,
            FileRead::Absent | FileRead::Failed => Map::new(),
        };
        tiers.push(ReadTier {
            source: source.into(),
            path: Some(path),
            settings,
        });
    }
    if let Some(flag) = &options.flag_settings {
        tiers.push(ReadTier {
            source: ResolvedSettingSource::Flag,
            path: None,
            settings: validate(flag.clone(), SourceKind::UserWritten).unwrap_or_default(),
        });
    }
    let (file, file_failed) = read_managed(managed_dir);
    let mut machine_policy = MachinePolicy::default();
    if file_failed {
        machine_policy.did_not_load.push(PolicyKind::File);
    }
    ReadSources {
        tiers,
        policy: PolicyInputs {
            remote: policy(&options.server_managed_settings),
            file,
            parent: parent_policy(&options.managed_settings),
        },
        user_enabled: wanted.contains(&SettingSource::User),
        machine_policy,
    }
}

/// A policy source given as an option, its values checked.
fn policy(given: &Option<Map<String, Value>>) -> Option<Map<String, Value>> {
    let given = given.clone()?;
    Some(validate_policy(given, "remote managed settings"))
}

/// A parent's `managedSettings`, its values checked. The built-in security
/// plugin's restrictive options are also taken from it as given when the
/// check dropped them: TS reads them from the checked settings, else from
/// the given ones.
fn parent_policy(given: &Option<Map<String, Value>>) -> Option<Map<String, Value>> {
    let raw = given.as_ref()?;
    let mut checked = validate_policy(raw.clone(), "parent managed settings");
    if plugin_configs_part(&checked).is_none()
        && let Some(part) = plugin_configs_part(raw)
    {
        checked.insert("pluginConfigs".into(), part);
    }
    Some(checked)
}

/// The user configuration folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub(crate) fn default_config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE"))?;
    Some(PathBuf::from(home).join(".claude"))
}

/// This platform's managed-settings folder.
pub(crate) fn default_managed_dir() -> PathBuf {
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode")
    } else if cfg!(windows) {
        PathBuf::from(r"C:\Program Files\ClaudeCode")
    } else {
        PathBuf::from("/etc/claude-code")
    }
}
