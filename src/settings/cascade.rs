//! The cascade as a pure function over sources already read: each tier
//! merges over the ones below it (user, project, local, flag, then the
//! policy tier), and the policy tier alone decides the model lists.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use super::merge::merge_into;
use super::policy::{PolicyInputs, PolicyTier, compose};
use super::types::{
    MachinePolicy, ProvenanceEntry, ResolvedSettingSource, ResolvedSettings, SourceSettings,
};

/// One tier below the policy tier, as read.
#[derive(Debug, Clone)]
pub(crate) struct ReadTier {
    /// Which tier.
    pub source: ResolvedSettingSource,
    /// Its file, if it has one.
    pub path: Option<PathBuf>,
    /// Its settings; empty when absent or unreadable.
    pub settings: Map<String, Value>,
}

/// Everything the cascade reads.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReadSources {
    /// The tiers below the policy tier, lowest first.
    pub tiers: Vec<ReadTier>,
    /// The policy sources.
    pub policy: PolicyInputs,
    /// Whether the user tier is among the sources asked for (a lower
    /// administrator's `cleanupPeriodDays` is weighed against the default
    /// only then).
    pub user_enabled: bool,
    /// What of the machine's policy did not load.
    pub machine_policy: MachinePolicy,
}

/// Keys only the policy tier may set: a lower tier's are dropped as read.
const POLICY_ONLY: &str = "deniedModels";
/// Keys the policy tier replaces rather than merges into.
const POLICY_REPLACES: [&str; 3] = ["availableModels", "enforceAvailableModels", "modelPicker"];
const CLEANUP: &str = "cleanupPeriodDays";
/// The CLI's `cleanupPeriodDays` when nothing sets it.
const DEFAULT_CLEANUP_DAYS: f64 = 30.0;

/// Resolves `read` into the effective settings, their provenance and the
/// sources that hold any.
pub(crate) fn cascade(read: ReadSources) -> ResolvedSettings {
    let mut effective = Map::new();
    let mut sources = Vec::new();
    for mut tier in read.tiers {
        tier.settings.remove(POLICY_ONLY);
        merge_into(&mut effective, &tier.settings);
        if !tier.settings.is_empty() {
            sources.push(SourceSettings {
                source: tier.source,
                settings: tier.settings,
                path: tier.path,
                policy_origin: None,
            });
        }
    }
    let policy = compose(&read.policy);
    if let Some(policy) = &policy {
        merge_into(&mut effective, &policy.settings);
        apply_policy_overrides(&mut effective, policy, read.user_enabled);
        sources.push(SourceSettings {
            source: ResolvedSettingSource::Managed,
            settings: policy.settings.clone(),
            path: None,
            policy_origin: Some(policy.origin),
        });
    } else {
        effective.remove(POLICY_ONLY);
    }
    let provenance = provenance(&effective, &sources);
    ResolvedSettings {
        effective,
        provenance,
        sources,
        machine_policy: read.machine_policy,
    }
}

/// The policy tier's model lists replace what lower tiers merged, and a
/// lower administrator's longer retention (or `0`, keep forever) wins.
fn apply_policy_overrides(
    effective: &mut Map<String, Value>,
    policy: &PolicyTier,
    user_enabled: bool,
) {
    for key in POLICY_REPLACES {
        if let Some(value) = policy.settings.get(key) {
            effective.insert(key.into(), value.clone());
        }
    }
    match policy.settings.get(POLICY_ONLY) {
        Some(value) => effective.insert(POLICY_ONLY.into(), value.clone()),
        None => effective.remove(POLICY_ONLY),
    };
    let Some(lower) = &policy.lower_cleanup else {
        return;
    };
    let Some(lower_days) = lower.as_f64() else {
        return;
    };
    let set = effective.get(CLEANUP);
    if set.is_none() && !user_enabled {
        return;
    }
    let current = set.and_then(Value::as_f64).unwrap_or(DEFAULT_CLEANUP_DAYS);
    let longer = if current == 0.0 || lower_days == 0.0 {
        0.0
    } else {
        current.max(lower_days)
    };
    if longer != current {
        effective.insert(CLEANUP.into(), lower.clone());
    }
}

/// For each key of `effective`, the last source whose settings hold it.
fn provenance(
    effective: &Map<String, Value>,
    sources: &[SourceSettings],
) -> BTreeMap<String, ProvenanceEntry> {
    effective
        .keys()
        .filter_map(|key| {
            let source = sources
                .iter()
                .rev()
                .find(|s| s.settings.contains_key(key))?;
            let entry = ProvenanceEntry {
                source: source.source,
                path: source.path.clone(),
                policy_origin: source.policy_origin,
            };
            Some((key.clone(), entry))
        })
        .collect()
}
