use super::*;
use proptest::prelude::*;
use serde_json::json;

/// Cases answered by the TypeScript SDK 0.3.332's own `matchDeniedModels`,
/// one JSON object a line: `models`, `denied_models` (`"__undef"` for an
/// absent list) and `out` (`denied`, `warnings`).
const TS_CASES: &str = include_str!("../../testdata/denied_models/ts_sdk_0.3.332_cases.jsonl");

#[test]
fn every_case_answers_as_the_typescript_sdk_does() {
    let mut checked = 0;
    for line in TS_CASES.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).expect("a case is JSON");
        let models: Vec<&str> = case["models"]
            .as_array()
            .expect("models is a list")
            .iter()
            .map(|m| m.as_str().expect("models are strings"))
            .collect();
        let list = &case["denied_models"];
        let list = (list != &json!("__undef")).then_some(list);
        let got = match_denied_models(&models, list);
        let want_denied: Vec<bool> = serde_json::from_value(case["out"]["denied"].clone()).unwrap();
        let want_warnings: Vec<String> =
            serde_json::from_value(case["out"]["warnings"].clone()).unwrap();
        assert_eq!(got.denied, want_denied, "denied for {line}");
        assert_eq!(got.warnings, want_warnings, "warnings for {line}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} cases read");
}

#[test]
fn a_family_entry_blocks_every_version_and_provider_spelling_of_it() {
    let list = json!(["haiku"]);
    let m = match_denied_models(
        &[
            "claude-haiku-4-5",
            "claude-3-haiku-20240307",
            "us.anthropic.claude-3-5-haiku-20241022-v1:0",
            "claude-sonnet-4-5",
        ],
        Some(&list),
    );
    assert_eq!(m.denied, [true, true, true, false]);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

#[test]
fn a_versioned_entry_spares_other_minor_versions_and_an_unknown_region_prefix() {
    let list = json!(["claude-opus-4-1"]);
    let m = match_denied_models(
        &[
            "claude-opus-4-1@20250805",
            "claude-opus-4-5",
            "zz.anthropic.claude-opus-4-1",
        ],
        Some(&list),
    );
    assert_eq!(m.denied, [true, false, false]);
}

#[test]
fn an_alias_entry_is_ignored_with_a_note_and_blocks_nothing() {
    let list = json!(["opusplan"]);
    let m = match_denied_models(&["claude-opus-4-1", "opusplan"], Some(&list));
    assert_eq!(m.denied, [false, false]);
    assert_eq!(m.warnings.len(), 1);
    assert!(m.warnings[0].contains("was ignored"), "{}", m.warnings[0]);
}

#[test]
fn a_long_entry_is_shortened_in_its_note() {
    let long = "x".repeat(300);
    let list = json!([long]);
    let m = match_denied_models(&["claude-opus-4-1"], Some(&list));
    assert!(m.warnings[0].contains(&format!("\"{}…\"", "x".repeat(128))));
}

fn model_id() -> impl Strategy<Value = String> {
    let family = prop::sample::select(vec!["opus", "sonnet", "haiku", "fable"]);
    (
        family,
        1u32..10,
        prop::option::of(0u32..10),
        prop::option::of("20[0-9]{6}"),
        prop::sample::select(vec!["", "us.anthropic.", "anthropic.", "vendor/models/"]),
        prop::bool::ANY,
    )
        .prop_map(|(family, major, minor, date, prefix, tag)| {
            let mut id = format!("{prefix}claude-{family}-{major}");
            if let Some(minor) = minor {
                id.push_str(&format!("-{minor}"));
            }
            if let Some(date) = date {
                id.push_str(&format!("-{date}"));
            }
            if tag {
                id.push_str("[1m]");
            }
            id
        })
}

proptest! {
    #[test]
    fn a_model_always_matches_a_list_holding_its_own_id(id in model_id(), other in "[a-z0-9.-]{0,20}") {
        let list = json!([other, id]);
        let m = match_denied_models(&[id.as_str()], Some(&list));
        prop_assert_eq!(m.denied, vec![true]);
    }

    #[test]
    fn a_model_always_matches_a_list_holding_its_family(id in model_id()) {
        let family = FAMILIES.iter().find(|f| id.contains(**f)).unwrap();
        let list = json!([family.to_uppercase()]);
        prop_assert_eq!(match_denied_models(&[id.as_str()], Some(&list)).denied, vec![true]);
    }

    #[test]
    fn any_input_gives_one_answer_per_model_and_no_panic(
        models in prop::collection::vec(".{0,40}", 0..4),
        entries in prop::collection::vec(".{0,40}", 0..4),
    ) {
        let list = json!(entries);
        let m = match_denied_models(&models, Some(&list));
        prop_assert_eq!(m.denied.len(), models.len());
    }
}
