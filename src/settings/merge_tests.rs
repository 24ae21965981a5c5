use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::cascade::{ReadSources, ReadTier, cascade};
use super::merge::merge_into;
use super::policy::PolicyInputs;
use super::restrictive::restrictive_part;
use super::*;

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn merged(lower: &Map<String, Value>, higher: &Map<String, Value>) -> Map<String, Value> {
    let mut out = lower.clone();
    merge_into(&mut out, higher);
    out
}

/// Small JSON values over few keys (the special ones included), so
/// generated objects overlap often.
fn value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (0i64..4).prop_map(Value::from),
        prop::sample::select(vec!["a", "b"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            object(inner).prop_map(Value::Object),
        ]
    })
}

fn object(inner: impl Strategy<Value = Value>) -> impl Strategy<Value = Map<String, Value>> {
    let key = prop::sample::select(vec![
        "x",
        "y",
        "env",
        "fallbackModel",
        "modelPicker",
        "extraKnownMarketplaces",
    ]);
    prop::collection::btree_map(key.prop_map(String::from), inner, 0..4)
        .prop_map(|m| m.into_iter().collect())
}

/// Which of the three kinds the merge treats apart a value is.
fn kind(value: &Value) -> u8 {
    match value {
        Value::Array(_) => 1,
        Value::Object(_) => 2,
        _ => 0,
    }
}

/// Drops from `later`, at any depth, each key whose value is of another
/// kind than the same key's value in an `earlier` object: where kinds
/// change along the sources, the result depends on the grouping (the tests
/// below pin those corners).
fn keep_one_kind_per_key(later: &mut Map<String, Value>, earlier: &[&Map<String, Value>]) {
    later.retain(|key, value| {
        earlier
            .iter()
            .filter_map(|m| m.get(key))
            .all(|e| kind(e) == kind(value))
    });
    for (key, value) in later.iter_mut() {
        if let Value::Object(inner) = value {
            let below: Vec<&Map<String, Value>> = earlier
                .iter()
                .filter_map(|m| m.get(key).and_then(Value::as_object))
                .collect();
            keep_one_kind_per_key(inner, &below);
        }
    }
}

#[test]
fn an_object_merged_onto_a_list_makes_the_order_matter_as_in_the_cli() {
    // `[]`, then `1`, then `{}`: left to right the scalar replaces the list
    // and the object the scalar; grouped the other way, `1` then `{}` is
    // `{}`, which merged onto the list leaves the list.
    let (a, b, c) = (
        obj(json!({"y": []})),
        obj(json!({"y": 1})),
        obj(json!({"y": {}})),
    );
    assert_eq!(merged(&merged(&a, &b), &c), obj(json!({"y": {}})));
    assert_eq!(merged(&a, &merged(&b, &c)), obj(json!({"y": []})));
}

#[test]
fn a_scalar_between_two_lists_or_two_objects_makes_the_order_matter_as_in_the_cli() {
    // Left to right the scalar wipes what is below it; grouped the other
    // way, the two lists (or objects) meet first and then merge onto the
    // lowest.
    let (a, b, c) = (
        obj(json!({"env": [null]})),
        obj(json!({"env": null})),
        obj(json!({"env": []})),
    );
    assert_eq!(merged(&merged(&a, &b), &c), obj(json!({"env": []})));
    assert_eq!(merged(&a, &merged(&b, &c)), obj(json!({"env": [null]})));
    let (a, b, c) = (
        obj(json!({"x": {"a": 1}})),
        obj(json!({"x": 0})),
        obj(json!({"x": {"b": 2}})),
    );
    assert_eq!(merged(&merged(&a, &b), &c), obj(json!({"x": {"b": 2}})));
    assert_eq!(
        merged(&a, &merged(&b, &c)),
        obj(json!({"x": {"a": 1, "b": 2}}))
    );
}

#[test]
fn keys_that_change_kind_are_dropped_from_the_later_sources_at_any_depth() {
    let a = obj(json!({"x": {"l": [], "s": 1}, "y": []}));
    let mut b = obj(json!({"x": {"l": 1, "s": 2, "n": {}}, "y": {}, "z": 3}));
    keep_one_kind_per_key(&mut b, &[&a]);
    assert_eq!(b, obj(json!({"x": {"s": 2, "n": {}}, "z": 3})));
}

proptest! {
    /// Associative wherever each key holds one kind of value (scalar, list
    /// or object) in every source that has it; the corners where kinds
    /// change are the tests above.
    #[test]
    fn merging_is_associative_where_each_key_keeps_one_kind(
        a in object(value()),
        mut b in object(value()),
        mut c in object(value()),
    ) {
        keep_one_kind_per_key(&mut b, &[&a]);
        keep_one_kind_per_key(&mut c, &[&a, &b]);
        prop_assert_eq!(merged(&merged(&a, &b), &c), merged(&a, &merged(&b, &c)));
    }

    #[test]
    fn an_empty_object_changes_nothing_on_either_side(a in object(value())) {
        prop_assert_eq!(merged(&Map::new(), &a), a.clone());
        prop_assert_eq!(merged(&a, &Map::new()), a);
    }

    #[test]
    fn a_higher_scalar_always_wins(a in object(value()), b in object(value())) {
        let out = merged(&a, &b);
        for (key, value) in &b {
            if !matches!(value, Value::Array(_) | Value::Object(_)) {
                prop_assert_eq!(&out[key], value);
            }
        }
    }

    #[test]
    fn two_lists_keep_every_item_and_no_scalar_twice(
        a in prop::collection::vec(0i64..5, 0..6),
        b in prop::collection::vec(0i64..5, 0..6),
    ) {
        let out = merged(&obj(json!({"l": a})), &obj(json!({"l": b})));
        let list: Vec<i64> = serde_json::from_value(out["l"].clone()).unwrap();
        let mut want: Vec<i64> = Vec::new();
        for n in a.iter().chain(&b) {
            if !want.contains(n) {
                want.push(*n);
            }
        }
        prop_assert_eq!(list, want);
    }

    #[test]
    fn the_managed_filter_never_adds_and_is_idempotent(m in object(value())) {
        let once = restrictive_part(&m);
        prop_assert_eq!(restrictive_part(&once), once.clone());
        for key in once.keys() {
            prop_assert!(m.contains_key(key));
        }
    }
}

#[test]
fn objects_in_lists_are_never_deduplicated_and_numbers_compare_by_value() {
    let out = merged(
        &obj(json!({"l": [{"a": 1}, 1]})),
        &obj(json!({"l": [{"a": 1}, 1.0, 2]})),
    );
    assert_eq!(out["l"], json!([{"a": 1}, 1, {"a": 1}, 2]));
}

#[test]
fn marketplaces_merge_one_level_and_fallback_lists_replace() {
    let lower = obj(json!({
        "extraKnownMarketplaces": {"m": {"source": {"repo": "a"}, "x": 1}},
        "deep": {"fallbackModel": ["a"]}
    }));
    let higher = obj(json!({
        "extraKnownMarketplaces": {"m": {"source": {"repo": "b"}}},
        "deep": {"fallbackModel": ["b"]}
    }));
    let out = merged(&lower, &higher);
    assert_eq!(
        out["extraKnownMarketplaces"],
        json!({"m": {"source": {"repo": "b"}}})
    );
    assert_eq!(out["deep"]["fallbackModel"], json!(["b"]));
}

fn tier(source: ResolvedSettingSource, settings: Value) -> ReadTier {
    ReadTier {
        source,
        path: None,
        settings: obj(settings),
    }
}

#[test]
fn each_tier_overrides_the_ones_below_and_provenance_names_the_last_setter() {
    let read = ReadSources {
        tiers: vec![
            tier(ResolvedSettingSource::User, json!({"model": "u", "a": 1})),
            tier(ResolvedSettingSource::Project, json!({"model": "p"})),
            tier(ResolvedSettingSource::Local, json!({})),
            tier(ResolvedSettingSource::Flag, json!({"model": "f"})),
        ],
        policy: PolicyInputs {
            file: Some(obj(json!({"b": 2}))),
            ..PolicyInputs::default()
        },
        user_enabled: true,
        ..ReadSources::default()
    };
    let out = cascade(read);
    assert_eq!(out.effective, obj(json!({"model": "f", "a": 1, "b": 2})));
    assert_eq!(out.provenance["model"].source, ResolvedSettingSource::Flag);
    assert_eq!(out.provenance["a"].source, ResolvedSettingSource::User);
    assert_eq!(out.provenance["b"].source, ResolvedSettingSource::Managed);
    assert_eq!(out.provenance["b"].policy_origin, Some(PolicyOrigin::File));
    let names: Vec<_> = out.sources.iter().map(|s| s.source).collect();
    assert_eq!(
        names,
        [
            ResolvedSettingSource::User,
            ResolvedSettingSource::Project,
            ResolvedSettingSource::Flag,
            ResolvedSettingSource::Managed
        ],
        "the empty local tier is left out"
    );
}

#[test]
fn denied_models_only_ever_come_from_the_policy_tier() {
    let user = || {
        tier(
            ResolvedSettingSource::User,
            json!({"deniedModels": ["haiku"]}),
        )
    };
    let without = cascade(ReadSources {
        tiers: vec![user()],
        ..ReadSources::default()
    });
    assert_eq!(without.effective.get("deniedModels"), None);
    assert!(without.sources.is_empty(), "the user tier had nothing else");
    let with = cascade(ReadSources {
        tiers: vec![user()],
        policy: PolicyInputs {
            parent: Some(obj(json!({"deniedModels": ["opus"], "model": "dropped"}))),
            ..PolicyInputs::default()
        },
        ..ReadSources::default()
    });
    assert_eq!(with.effective, obj(json!({"deniedModels": ["opus"]})));
    assert_eq!(
        with.provenance["deniedModels"].policy_origin,
        Some(PolicyOrigin::Parent)
    );
}

#[test]
fn the_first_policy_source_that_holds_settings_wins_the_tier_whole() {
    let inputs = |remote: Value, file: Value| PolicyInputs {
        remote: Some(obj(remote)),
        file: Some(obj(file)),
        parent: Some(obj(json!({"permissions": {"deny": ["X"]}}))),
    };
    let won = |i: &PolicyInputs| super::policy::compose(i).map(|t| (t.origin, t.settings));
    let (origin, settings) = won(&inputs(
        json!({"model": "r"}),
        json!({"permissions": {"deny": ["F"]}}),
    ))
    .unwrap();
    assert_eq!(
        (origin, settings),
        (PolicyOrigin::Remote, obj(json!({"model": "r"})))
    );
    let (origin, _) = won(&inputs(json!({}), json!({"model": "f"}))).unwrap();
    assert_eq!(
        origin,
        PolicyOrigin::File,
        "an empty remote source does not win"
    );
    let (origin, settings) = won(&inputs(json!({}), json!({}))).unwrap();
    assert_eq!(origin, PolicyOrigin::Parent);
    assert_eq!(settings, obj(json!({"permissions": {"deny": ["X"]}})));
}

#[test]
fn the_managed_filter_keeps_restrictions_and_drops_grants_of_behaviour() {
    let kept = restrictive_part(&obj(json!({
        "model": "m", "env": {"A": "1"}, "hooks": {}, "cleanupPeriodDays": 1,
        "allowManagedHooksOnly": true, "allowManagedMcpServersOnly": false,
        "permissions": {"deny": ["Bash"], "defaultMode": "bypassPermissions"},
        "sandbox": {"enabled": false, "network": {"deniedDomains": ["x"], "allowLocalBinding": true}}
    })));
    assert_eq!(
        kept,
        obj(json!({
            "allowManagedHooksOnly": true,
            "permissions": {"deny": ["Bash"]},
            "sandbox": {"network": {"deniedDomains": ["x"]}}
        }))
    );
}

#[test]
fn a_bom_and_blank_files_and_hidden_or_foreign_drop_ins_read_as_the_cli_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("managed-settings.d")).unwrap();
    std::fs::write(d.join("managed-settings.json"), "\u{feff}{\"a\": 1}").unwrap();
    std::fs::write(d.join("managed-settings.d/b.json"), "{\"a\": 2}").unwrap();
    std::fs::write(d.join("managed-settings.d/a.json"), "  ").unwrap();
    std::fs::write(d.join("managed-settings.d/.c.json"), "{\"a\": 3}").unwrap();
    std::fs::write(d.join("managed-settings.d/d.txt"), "{\"a\": 4}").unwrap();
    let (settings, failed) = super::read::read_managed(d);
    assert_eq!(settings, Some(obj(json!({"a": 2}))));
    assert!(!failed);
    std::fs::write(d.join("managed-settings.d/c.json"), "[]").unwrap();
    let (settings, failed) = super::read::read_managed(d);
    assert_eq!(
        settings,
        Some(obj(json!({"a": 2}))),
        "a bad drop-in is skipped"
    );
    assert!(failed, "and reported");
}

#[test]
fn missing_files_and_folders_resolve_to_nothing_and_report_no_failure() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ResolveSettingsOptions::new(dir.path().join("nowhere"));
    options.config_dir = Some(dir.path().join("no-config"));
    options.managed_dir = Some(dir.path().join("no-managed"));
    let out = resolve_settings(&options).unwrap();
    assert!(out.effective.is_empty() && out.sources.is_empty());
    assert!(out.machine_policy.did_not_load.is_empty());
}

#[test]
fn the_report_shape_carries_the_clis_source_names_for_the_trust_filter() {
    let out = cascade(ReadSources {
        tiers: vec![tier(
            ResolvedSettingSource::Project,
            json!({"permissions": {"defaultMode": "bypassPermissions", "allow": ["Read"]}}),
        )],
        ..ReadSources::default()
    });
    let report = out.to_report();
    assert_eq!(
        report.sources.as_ref().unwrap()[0].source.as_deref(),
        Some("projectSettings")
    );
    let filtered = crate::options::filter_escalating_default_mode(&report);
    assert_eq!(filtered, obj(json!({"permissions": {"allow": ["Read"]}})));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_file_content_resolves_and_a_non_object_is_skipped(
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        text in "[\\[\\]{}\":,a-z0-9 ]{0,24}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("project/.claude")).unwrap();
        std::fs::create_dir_all(d.join("managed/managed-settings.d")).unwrap();
        std::fs::write(d.join("project/.claude/settings.json"), &bytes).unwrap();
        std::fs::write(d.join("project/.claude/settings.local.json"), &text).unwrap();
        std::fs::write(d.join("managed/managed-settings.d/a.json"), &text).unwrap();
        let mut options = ResolveSettingsOptions::new(d.join("project"));
        options.config_dir = Some(d.join("config"));
        options.managed_dir = Some(d.join("managed"));
        let out = resolve_settings(&options).unwrap();
        let is_object = |raw: &[u8]| {
            std::str::from_utf8(raw)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(t.trim_start_matches('\u{feff}')).ok())
                .is_some_and(|v| v.is_object())
        };
        for source in &out.sources {
            let raw = match source.source {
                ResolvedSettingSource::Project => bytes.as_slice(),
                _ => text.as_bytes(),
            };
            prop_assert!(is_object(raw), "{:?} came from a non-object", source.source);
        }
    }
}
