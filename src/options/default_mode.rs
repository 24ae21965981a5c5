//! `filterEscalatingDefaultMode`: the trust filter the CLI applies before it
//! honours a `permissions.defaultMode` that widens what runs unasked, for
//! a host that reads the settings cascade itself.
//!
//! A mode that escalates (`acceptEdits`, `auto`, `bypassPermissions`) is
//! dropped when the source that set it last is one a repository can commit
//! or drop into the checkout: `project` for every escalating mode, and also
//! `local` for `auto` and `bypassPermissions`. Everything else is returned
//! as it is.

use serde_json::{Map, Value};

use crate::protocol::SettingsReport;

/// Modes that let more run without asking than `default`.
const ESCALATING: [&str; 3] = ["bypassPermissions", "auto", "acceptEdits"];
/// Modes that the `local` tier may not set either.
const ESCALATING_FROM_LOCAL: [&str; 2] = ["auto", "bypassPermissions"];

/// The effective settings of `report` (a [`get_settings`] reply, or any
/// cascade in that shape), with `permissions.defaultMode` removed when it
/// escalates and was set by a source a repository controls. The TypeScript
/// SDK's `filterEscalatingDefaultMode`; its source names (`project`,
/// `local`) and the CLI's (`projectSettings`, `localSettings`) are both
/// read.
///
/// [`get_settings`]: crate::client::Client::get_settings
pub fn filter_escalating_default_mode(report: &SettingsReport) -> Map<String, Value> {
    let mut effective = report.effective.clone().unwrap_or_default();
    let sources = report.sources.iter().flatten().map(|s| {
        let settings = s.settings.as_ref();
        (s.source.as_deref().unwrap_or(""), settings)
    });
    if should_drop(&effective, sources)
        && let Some(Value::Object(permissions)) = effective.get_mut("permissions")
    {
        permissions.remove("defaultMode");
    }
    effective
}

/// Whether the effective mode escalates and the last source that sets a
/// mode (null included, as the TypeScript SDK counts it) is untrusted for it.
fn should_drop<'a>(
    effective: &Map<String, Value>,
    sources: impl DoubleEndedIterator<Item = (&'a str, Option<&'a Map<String, Value>>)>,
) -> bool {
    let Some(mode) = default_mode(Some(effective)).and_then(Value::as_str) else {
        return false;
    };
    if !ESCALATING.contains(&mode) {
        return false;
    }
    for (source, settings) in sources.rev() {
        if default_mode(settings).is_some() {
            return match canonical(source) {
                "project" => true,
                "local" => ESCALATING_FROM_LOCAL.contains(&mode),
                _ => false,
            };
        }
    }
    false
}

/// `permissions.defaultMode` when `permissions` is an object that has it.
fn default_mode(settings: Option<&Map<String, Value>>) -> Option<&Value> {
    settings?
        .get("permissions")?
        .as_object()?
        .get("defaultMode")
}

/// A source name in the TypeScript SDK's spelling.
fn canonical(source: &str) -> &str {
    source.strip_suffix("Settings").unwrap_or(source)
}
