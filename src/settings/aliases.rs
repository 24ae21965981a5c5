//! The settings keys read as another key's alias (TS `Ki`, folded by `I3`
//! before a source's values are checked): each source folds its own, so
//! an alias in one file never meets the canonical key of another.

use serde_json::{Map, Value};

/// Each alias and the key it is read as.
pub(crate) const ALIASES: &[(&str, &str)] = &[
    ("additionalMarketplaces", "extraKnownMarketplaces"),
    ("allowedMarketplaces", "strictKnownMarketplaces"),
];

/// Folds each alias of `settings` into its canonical key, as TS does: a
/// `null` alias is removed; an alias beside a canonical key that is set
/// (not `null`) is ignored; otherwise its value becomes the canonical
/// key's.
pub(crate) fn fold_aliases(settings: &mut Map<String, Value>) {
    for (alias, canonical) in ALIASES {
        let Some(value) = settings.remove(*alias) else {
            continue;
        };
        if value.is_null() {
            continue;
        }
        match settings.get(*canonical) {
            Some(set) if !set.is_null() => {
                tracing::warn!(
                    alias,
                    canonical,
                    "settings set both an alias and its key; the alias is ignored"
                );
            }
            _ => {
                settings.insert((*canonical).to_owned(), value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn folded(v: Value) -> Value {
        let mut map = v.as_object().cloned().unwrap_or_default();
        fold_aliases(&mut map);
        Value::Object(map)
    }

    #[test]
    fn an_alias_alone_is_read_as_its_canonical_key() {
        assert_eq!(
            folded(json!({"allowedMarketplaces": [], "additionalMarketplaces": {"a": 1}})),
            json!({"strictKnownMarketplaces": [], "extraKnownMarketplaces": {"a": 1}})
        );
    }

    #[test]
    fn the_canonical_key_wins_unless_it_is_null() {
        assert_eq!(
            folded(json!({"allowedMarketplaces": [1], "strictKnownMarketplaces": [2]})),
            json!({"strictKnownMarketplaces": [2]})
        );
        assert_eq!(
            folded(json!({"allowedMarketplaces": [1], "strictKnownMarketplaces": null})),
            json!({"strictKnownMarketplaces": [1]})
        );
    }

    #[test]
    fn a_null_alias_is_removed_and_sets_nothing() {
        assert_eq!(folded(json!({"additionalMarketplaces": null})), json!({}));
        assert_eq!(
            folded(json!({"allowedMarketplaces": null, "strictKnownMarketplaces": null})),
            json!({"strictKnownMarketplaces": null})
        );
    }
}
