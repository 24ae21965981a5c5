//! The effective Claude Code settings, resolved without starting the CLI:
//! the TypeScript SDK's `resolveSettings`, for a host that wants to know
//! what configuration a session would see (its model, permission rules,
//! `env`, the organisation's policy) before it starts one. Behind the
//! `settings` feature: most programs never read settings files.
//!
//! The sources, lowest precedence first:
//!
//! | tier | where |
//! |---|---|
//! | `user` | `settings.json` in `CLAUDE_CONFIG_DIR`, else `~/.claude` |
//! | `project` | `<cwd>/.claude/settings.json` |
//! | `local` | `<cwd>/.claude/settings.local.json` |
//! | `flag` | [`ResolveSettingsOptions::flag_settings`] (`--settings`) |
//! | `managed` | the policy tier: server-managed settings, else `managed-settings.json` with `managed-settings.d/*.json`, else a parent's `managedSettings` (restrictive keys only) |
//!
//! Objects merge deeply, lists concatenate without repeats, anything else
//! the higher tier replaces; `deniedModels` comes from the policy tier
//! only, which also replaces `availableModels`. A file that is missing or
//! empty is absent; one that is not a JSON object is skipped with a
//! warning.
//!
//! Values are checked as the CLI checks them: a user-written file (or
//! `--settings`) with a wrong value (`"cleanupPeriodDays": -1`,
//! `"model": 5`) is skipped whole, bar the keys read leniently (dropped
//! alone, or read as a default); a policy source drops a wrong key, and a
//! restrictive key fails closed to its restrictive value. Unknown keys are
//! kept. Each key of the CLI's schema is checked as deep as the schema
//! goes (objects field by field, lists item by item, hooks entry by entry,
//! permission rules by the CLI's rule parser, marketplace sources and MCP
//! server entries by kind), with TS's lenient spots; docs/PARITY.md says
//! where a check is read differently from TS's.
//!
//! What is not read: macOS configuration profiles (`plutil`) and the
//! Windows registry (`reg.exe`), which exist on those platforms only; the
//! admin-configured `policyHelper` program (the TS SDK does not run it
//! either); and the CLI's cached `remote-settings.json` (the TS SDK does
//! not read one without its signature either; pass the organisation's
//! settings as
//! [`server_managed_settings`](ResolveSettingsOptions::server_managed_settings)).
//!
//! ```no_run
//! use claude_agent::settings::{ResolveSettingsOptions, resolve_settings};
//!
//! let resolved = resolve_settings(&ResolveSettingsOptions::new("/srv/repo"))?;
//! println!("model: {:?}", resolved.effective.get("model"));
//! for (key, from) in &resolved.provenance {
//!     println!("{key} from {:?}", from.source);
//! }
//! # Ok::<(), claude_agent::settings::SettingsError>(())
//! ```

mod aliases;
mod cascade;
mod error;
mod js_regex;
mod json_path;
mod managed_mcp;
mod marketplace_settings;
mod merge;
mod permission_rule;
mod policy;
mod policy_helpers;
mod read;
mod report;
mod restrictive;
mod restrictive_builtin;
mod sources_merge;
mod types;
mod url_host;
mod url_host_ascii;
mod url_idna;
mod validate;
mod validate_credentials;
mod validate_hooks;
mod validate_rule;
mod validate_rules;
mod validate_shapes;
mod validate_values;

#[cfg(test)]
mod merge_tests;
#[cfg(test)]
mod ts_cases_tests;
#[cfg(test)]
mod validate_tests;

pub use error::SettingsError;
pub use types::{
    MachinePolicy, PolicyKind, PolicyOrigin, ProvenanceEntry, ResolveSettingsOptions,
    ResolvedSettingSource, ResolvedSettings, SourceSettings,
};

/// Resolves the settings a CLI started with `options` would see, without
/// starting one.
///
/// This reads files and so blocks: from async code call it in
/// `tokio::task::spawn_blocking`.
pub fn resolve_settings(
    options: &ResolveSettingsOptions,
) -> Result<ResolvedSettings, SettingsError> {
    let cwd = match &options.cwd {
        Some(cwd) if cwd.is_absolute() => cwd.clone(),
        other => {
            let here = std::env::current_dir().map_err(SettingsError::CurrentDir)?;
            other.as_ref().map_or(here.clone(), |rel| here.join(rel))
        }
    };
    let config_dir = options.config_dir.clone().or_else(read::default_config_dir);
    let managed_dir = options
        .managed_dir
        .clone()
        .unwrap_or_else(read::default_managed_dir);
    let read = read::read_sources(options, &cwd, config_dir.as_deref(), &managed_dir);
    Ok(cascade::cascade(read))
}
