//! Key-order dispatch: feeding members to builders, finding tags, and
//! replaying members buffered before a tag.

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess};
use serde_json::de::StrRead;
use serde_json::value::RawValue;

use super::{FieldSink, Key, Pending, Tagged, Tags, Wire, finish, note};
use crate::protocol::notes;

/// Converts an error from a replayed slice into the outer error type.
fn replayed<E: de::Error>(e: serde_json::Error) -> E {
    if matches!(e.classify(), serde_json::error::Category::Syntax) {
        notes::syntax(e.to_string());
    }
    E::custom(strip_position(&e.to_string()))
}

/// serde_json appends " at line L column C"; a replayed slice's position is
/// meaningless in the original line, so drop it.
pub(crate) fn strip_position(s: &str) -> &str {
    match s.rfind(" at line ") {
        Some(i) if s[i..].contains(" column ") => &s[..i],
        _ => s,
    }
}

struct FieldSeed<'a, S> {
    sink: &'a mut S,
    key: &'a str,
}

impl<'de, S: FieldSink> DeserializeSeed<'de> for FieldSeed<'_, S> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.sink.field(self.key, d)
    }
}

/// A repeated tag must repeat the same value, or the line is ambiguous.
fn check_tag<E: de::Error>(tags: Tags<'_>, key: &str, value: &str) -> Result<(), E> {
    match tags.iter().find(|(k, _)| *k == key) {
        Some((_, v)) if *v != value => {
            notes::field("object", key);
            Err(E::custom(format!(
                "conflicting duplicate `{key}`: {v:?} then {value:?}"
            )))
        }
        _ => Ok(()),
    }
}

/// Whether `key` is a tag an enclosing dispatch consumed.
fn is_tag(tags: Tags<'_>, key: &str) -> bool {
    tags.iter().any(|(k, _)| *k == key)
}

/// Feeds the pending members, then the rest of `map`, into `sink`.
///
/// One copy of this runs per builder, so it stays a thin loop: the members
/// replayed from `pending` and the tag members of `map` are handled by
/// helpers that are not generic over the builder.
pub(crate) fn drain_into<'de, A, S>(
    map: &mut A,
    sink: &mut S,
    pending: Pending<'de>,
    tags: Tags<'_>,
) -> Result<(), A::Error>
where
    A: MapAccess<'de>,
    S: FieldSink,
{
    if !pending.is_empty() {
        replay::<A::Error>(&mut |key, d| sink.field(key, d), pending, tags)?;
    }
    while let Some(key) = next_member(map, tags)? {
        map.next_value_seed(FieldSeed {
            sink,
            key: key.as_str(),
        })?;
    }
    Ok(())
}

/// A builder's `field` on a replayed slice (a closure, so the replay loop is
/// not copied for every builder).
type ReplayField<'s> = dyn for<'a> FnMut(&str, &mut serde_json::Deserializer<StrRead<'a>>) -> Result<(), serde_json::Error>
    + 's;

/// Replays members buffered before the tag into `field`; a buffered tag
/// member must repeat the tag's value.
fn replay<E: de::Error>(
    field: &mut ReplayField<'_>,
    pending: Pending<'_>,
    tags: Tags<'_>,
) -> Result<(), E> {
    for (key, raw) in pending {
        if is_tag(tags, key.as_str()) {
            replay_tag(tags, key.as_str(), raw)?;
        } else {
            field(
                key.as_str(),
                &mut serde_json::Deserializer::from_str(raw.get()),
            )
            .map_err(replayed)?;
        }
    }
    Ok(())
}

/// Checks a buffered tag member against the tag's value.
fn replay_tag<E: de::Error>(tags: Tags<'_>, key: &str, raw: &RawValue) -> Result<(), E> {
    let value = Key::deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
        .map_err(|e| note(replayed::<E>(e), "object", key))?;
    check_tag(tags, key, value.as_str())
}

/// The key of the next member of `map` that is not a tag (tag members are
/// read and checked on the way), or `None` at the end of the object.
fn next_member<'de, A: MapAccess<'de>>(
    map: &mut A,
    tags: Tags<'_>,
) -> Result<Option<Key<'de>>, A::Error> {
    while let Some(key) = map.next_key::<Key<'de>>()? {
        if !is_tag(tags, key.as_str()) {
            return Ok(Some(key));
        }
        let value: Key<'de> = map
            .next_value()
            .map_err(|e| note(e, "object", key.as_str()))?;
        check_tag(tags, key.as_str(), value.as_str())?;
    }
    Ok(None)
}

/// Reads a plain struct from the rest of `map`.
pub(crate) fn visit_struct<'de, A: MapAccess<'de>, W: Wire>(
    mut map: A,
    pending: Pending<'de>,
    tags: Tags<'_>,
) -> Result<W, A::Error> {
    let mut b = W::Builder::default();
    b.seed_tags(tags);
    drain_into(&mut map, &mut b, pending, tags)?;
    finish(b)
}

/// Scans `map` for `tag`, buffering earlier members; `pending` may already
/// hold members buffered by an enclosing dispatch.
pub(crate) fn find_tag<'de, A: MapAccess<'de>>(
    map: &mut A,
    mut pending: Pending<'de>,
    tag: &'static str,
    label: &'static str,
) -> Result<(Key<'de>, Pending<'de>), A::Error> {
    if let Some(i) = pending.iter().position(|(k, _)| k.as_str() == tag) {
        let (_, raw) = pending.remove(i);
        let value = Key::deserialize(&mut serde_json::Deserializer::from_str(raw.get()))
            .map_err(|e| note(replayed::<A::Error>(e), label, tag))?;
        return Ok((value, pending));
    }
    loop {
        match map.next_key::<Key<'de>>()? {
            None => {
                notes::missing(label, tag);
                return Err(de::Error::missing_field(tag));
            }
            Some(k) if k.as_str() == tag => {
                let value: Key<'de> = map.next_value().map_err(|e| note(e, label, tag))?;
                return Ok((value, pending));
            }
            Some(k) => {
                let raw: &'de RawValue = map.next_value()?;
                pending.push((k, raw));
            }
        }
    }
}

/// Reads a tagged enum from the rest of `map`. `outer` is the enclosing
/// dispatch's tag, if any (e.g. `("type", "system")`).
pub(crate) fn visit_tagged<'de, A: MapAccess<'de>, T: Tagged>(
    mut map: A,
    pending: Pending<'de>,
    outer: Option<(&'static str, &str)>,
) -> Result<T, A::Error> {
    let (tag, pending) = find_tag(&mut map, pending, T::TAG, T::LABEL)?;
    let mut b = T::select(tag.as_str());
    let own = (T::TAG, tag.as_str());
    let both;
    let tags: Tags<'_> = match outer {
        Some(o) => {
            both = [o, own];
            &both
        }
        None => std::slice::from_ref(&own),
    };
    b.seed_tags(tags);
    drain_into(&mut map, &mut b, pending, tags)?;
    finish(b)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::borrow::Cow;

    use serde_json::Value;

    use super::super::field_index;
    use super::*;

    #[test]
    fn field_index_finds_names_and_misses_past_the_end() {
        const F: &[&str] = &["a", "", "bc", "b"];
        assert_eq!(field_index(F, "a"), 0);
        assert_eq!(field_index(F, "bc"), 2);
        assert_eq!(field_index(F, "b"), 3);
        assert_eq!(field_index(F, "zz"), F.len());
    }

    #[test]
    fn strip_position_drops_only_serde_suffixes() {
        assert_eq!(
            strip_position("invalid type at line 1 column 20"),
            "invalid type"
        );
        assert_eq!(strip_position("at line but no col"), "at line but no col");
    }

    #[test]
    fn keys_borrow_unless_escaped() {
        let k: Key<'_> = serde_json::from_str(r#""plain""#).unwrap();
        assert!(matches!(k.0, Cow::Borrowed("plain")));
        let k: Key<'_> = serde_json::from_str(r#""t\u0079pe""#).unwrap();
        assert!(matches!(k.0, Cow::Owned(ref s) if s == "type"));
    }

    #[test]
    fn members_before_the_tag_are_replayed_in_order() {
        let line = r#"{"text":"hi","citations":null,"type":"text","extra":1}"#;
        let block: crate::protocol::ContentBlock = serde_json::from_str(line).unwrap();
        let crate::protocol::ContentBlock::Text(t) = &block else {
            panic!("{block:?}")
        };
        assert_eq!(t.text.as_deref(), Some("hi"));
        assert_eq!(t.citations, None);
        let back = serde_json::to_value(&block).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(line).unwrap());
    }
}
