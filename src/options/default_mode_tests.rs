//! `filter_escalating_default_mode` against the TypeScript SDK's
//! `filterEscalatingDefaultMode`: its cases, then properties over any
//! cascade of sources.

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::filter_escalating_default_mode as filter;
use crate::protocol::SettingsReport;

/// A report from `effective` and `(source, settings)` pairs, lowest
/// precedence first.
fn report(effective: Value, sources: &[(&str, Value)]) -> SettingsReport {
    let sources: Vec<Value> = sources
        .iter()
        .map(|(source, settings)| json!({"source": source, "settings": settings}))
        .collect();
    serde_json::from_value(json!({"effective": effective, "sources": sources})).unwrap()
}

fn mode(m: &str) -> Value {
    json!({"permissions": {"defaultMode": m}})
}

fn map(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn a_project_files_escalating_mode_is_dropped_and_the_other_permissions_kept() {
    for m in ["acceptEdits", "auto", "bypassPermissions"] {
        let effective =
            json!({"model": "m", "permissions": {"defaultMode": m, "allow": ["Bash(ls)"]}});
        for project in ["project", "projectSettings"] {
            let r = report(
                effective.clone(),
                &[("user", mode("default")), (project, mode(m))],
            );
            assert_eq!(
                filter(&r),
                map(json!({"model": "m", "permissions": {"allow": ["Bash(ls)"]}})),
                "{m} from {project}"
            );
        }
    }
}

#[test]
fn the_local_file_may_accept_edits_but_not_auto_or_bypass() {
    let accept = report(
        mode("acceptEdits"),
        &[("localSettings", mode("acceptEdits"))],
    );
    assert_eq!(filter(&accept), map(mode("acceptEdits")));
    for m in ["auto", "bypassPermissions"] {
        for local in ["local", "localSettings"] {
            let r = report(mode(m), &[(local, mode(m))]);
            assert_eq!(
                filter(&r),
                map(json!({"permissions": {}})),
                "{m} from {local}"
            );
        }
    }
}

#[test]
fn a_mode_from_a_trusted_tier_or_one_that_does_not_escalate_stands() {
    for trusted in [
        "user",
        "userSettings",
        "flag",
        "flagSettings",
        "managed",
        "policySettings",
    ] {
        let r = report(
            mode("bypassPermissions"),
            &[
                ("project", mode("bypassPermissions")),
                (trusted, mode("bypassPermissions")),
            ],
        );
        assert_eq!(filter(&r), map(mode("bypassPermissions")), "{trusted}");
    }
    for calm in ["default", "plan", "dontAsk", ""] {
        let r = report(mode(calm), &[("project", mode(calm))]);
        assert_eq!(filter(&r), map(mode(calm)), "{calm}");
    }
}

#[test]
fn only_the_last_source_that_sets_a_mode_decides_and_null_counts_as_set() {
    // The project sets it, a later user file says nothing about it: dropped.
    let r = report(
        mode("auto"),
        &[("project", mode("auto")), ("user", json!({"model": "x"}))],
    );
    assert_eq!(filter(&r), map(json!({"permissions": {}})));
    // A later user file with an explicit null decides (as in TypeScript).
    let r = report(
        mode("auto"),
        &[
            ("project", mode("auto")),
            ("user", json!({"permissions": {"defaultMode": null}})),
        ],
    );
    assert_eq!(filter(&r), map(mode("auto")));
    // No source names it at all: kept.
    assert_eq!(filter(&report(mode("auto"), &[])), map(mode("auto")));
}

#[test]
fn settings_without_a_mode_or_odd_shapes_come_back_unchanged() {
    for effective in [
        json!({}),
        json!({"permissions": "text"}),
        json!({"permissions": {"defaultMode": 3}}),
    ] {
        let r = report(effective.clone(), &[("project", effective.clone())]);
        assert_eq!(filter(&r), map(effective));
    }
    assert_eq!(filter(&SettingsReport::default()), Map::new());
}

const SOURCES: [&str; 8] = [
    "user",
    "project",
    "local",
    "flag",
    "managed",
    "projectSettings",
    "localSettings",
    "policySettings",
];
const MODES: [&str; 7] = [
    "default",
    "plan",
    "dontAsk",
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "",
];

/// A source's settings: no permissions, permissions without a mode, a null
/// mode, or one of the modes.
fn settings() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"model": "m"})),
        Just(json!({"permissions": {"allow": ["Read"]}})),
        Just(json!({"permissions": {"defaultMode": null}})),
        prop::sample::select(MODES.to_vec()).prop_map(mode),
    ]
}

fn cascade() -> impl Strategy<Value = (Value, Vec<(&'static str, Value)>)> {
    (
        prop::sample::select(MODES.to_vec()),
        prop::collection::vec((prop::sample::select(SOURCES.to_vec()), settings()), 0..6),
    )
        .prop_map(|(m, sources)| {
            (
                json!({"permissions": {"defaultMode": m, "deny": ["Bash"]}}),
                sources,
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn at_most_the_mode_is_removed_and_only_an_escalating_one_from_a_repository_tier(
        (effective, sources) in cascade(),
    ) {
        let r = report(effective.clone(), &sources);
        let out = filter(&r);
        let m = effective["permissions"]["defaultMode"].as_str().unwrap_or_default().to_owned();
        let mut without = map(effective.clone());
        without["permissions"].as_object_mut().unwrap().remove("defaultMode");
        // Either unchanged, or exactly the mode removed.
        prop_assert!(out == map(effective.clone()) || out == without);
        let dropped = out == without;
        let decider = sources
            .iter()
            .rev()
            .find(|(_, s)| s.get("permissions").and_then(|p| p.get("defaultMode")).is_some())
            .map(|(name, _)| name.trim_end_matches("Settings"));
        let repo_tier = match decider {
            Some("project") => ["acceptEdits", "auto", "bypassPermissions"].contains(&m.as_str()),
            Some("local") => ["auto", "bypassPermissions"].contains(&m.as_str()),
            _ => false,
        };
        prop_assert_eq!(dropped, repo_tier);
        // Filtering what was filtered changes nothing more.
        let again = report(Value::Object(out.clone()), &sources);
        let twice = filter(&again);
        prop_assert_eq!(twice, out);
    }
}
