//! [`StoreEntry`]: one transcript entry as the raw JSON text the CLI wrote,
//! so the mirror and the stores pass entries through without building a
//! `serde_json::Value` tree per entry.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

/// One transcript line: the CLI's JSONL entry, kept as its JSON text.
///
/// An entry holds exactly one valid JSON value; stores accept only JSON
/// objects ([`StoreError::NotAnObject`](super::StoreError::NotAnObject)
/// otherwise). Stores give back entries deep-equal to what was appended:
/// the text itself may differ (PostgreSQL's `jsonb` reorders keys and
/// respaces), so equality (`==`) compares the JSON values, not the text.
/// An entry's string `uuid`, when present and non-empty, is its
/// idempotency key ([`uuid`](Self::uuid)).
///
/// Reading one field ([`uuid`](Self::uuid), [`field`](Self::field)) scans
/// the text without building a tree; [`to_value`](Self::to_value) builds
/// the whole tree when a caller wants it.
#[derive(Clone)]
pub struct StoreEntry(Box<RawValue>);

impl StoreEntry {
    /// An entry from JSON text; fails when `json` is not exactly one JSON
    /// value (surrounding whitespace is dropped).
    pub fn from_json(json: impl Into<String>) -> Result<Self, serde_json::Error> {
        RawValue::from_string(json.into()).map(Self)
    }

    /// An entry from an already validated raw JSON value.
    pub fn from_raw(raw: Box<RawValue>) -> Self {
        Self(raw)
    }

    /// An entry holding `value`'s JSON text.
    pub fn from_value(value: &Value) -> Self {
        // A `Value` always serializes (its map keys are strings), so the
        // fallback is never taken.
        Self(serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned()))
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }

    /// The raw JSON value.
    pub fn get(&self) -> &RawValue {
        &self.0
    }

    /// The raw JSON value, owned.
    pub fn into_raw(self) -> Box<RawValue> {
        self.0
    }

    /// Whether the entry is a JSON object (what stores accept).
    pub fn is_object(&self) -> bool {
        // Raw values carry no surrounding whitespace.
        self.as_str().starts_with('{')
    }

    /// The entry as a `serde_json::Value` tree. Fails only for what a
    /// tree cannot hold (nesting deeper than `serde_json`'s limit).
    pub fn to_value(&self) -> Result<Value, serde_json::Error> {
        serde_json::from_str(self.as_str())
    }

    /// The entry parsed as `T` (borrowing from the text where `T` can).
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.as_str())
    }

    /// The raw value of the top-level member `name` (the last one if the
    /// name repeats); `None` when the entry is not an object or has no
    /// such member.
    pub fn field(&self, name: &str) -> Option<&RawValue> {
        let [found] = pick(self.as_str(), &[name]);
        found
    }

    /// The top-level member `name` when it is a string.
    pub fn str_field(&self, name: &str) -> Option<Cow<'_, str>> {
        self.field(name).and_then(raw_str)
    }

    /// The idempotency key: the `uuid` member when it is a non-empty
    /// string. Found by scanning the text, not by building a tree.
    pub fn uuid(&self) -> Option<Cow<'_, str>> {
        self.str_field("uuid").filter(|u| !u.is_empty())
    }
}

/// `raw` as a string when it is a JSON string (borrowed unless it has
/// escapes).
pub(crate) fn raw_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    if !text.starts_with('"') {
        return None;
    }
    match serde_json::from_str::<&str>(text) {
        Ok(s) => Some(Cow::Borrowed(s)),
        Err(_) => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
    }
}

/// Whether `raw` is the JSON `true`.
pub(crate) fn raw_is_true(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| r.get() == "true")
}

/// The raw values of the top-level members `names` of the JSON object
/// `json`, in one scan that skips every other member's value (last one
/// wins for a repeated name). All `None` when `json` is not an object.
pub(crate) fn pick<'a, const N: usize>(
    json: &'a str,
    names: &[&str; N],
) -> [Option<&'a RawValue>; N] {
    let mut de = serde_json::Deserializer::from_str(json);
    Pick(names).deserialize(&mut de).unwrap_or([None; N])
}

struct Pick<'n, const N: usize>(&'n [&'n str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_map(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for Pick<'_, N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = [None; N];
        while let Some(index) = map.next_key_seed(KeyIndex(self.0))? {
            match index {
                Some(i) => found[i] = Some(map.next_value::<&'de RawValue>()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// A member name as its index among the wanted names, without allocating.
struct KeyIndex<'n, const N: usize>(&'n [&'n str; N]);

impl<'de, const N: usize> DeserializeSeed<'de> for KeyIndex<'_, N> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<const N: usize> Visitor<'_> for KeyIndex<'_, N> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<Self::Value, E> {
        Ok(self.0.iter().position(|n| *n == name))
    }
}

impl PartialEq for StoreEntry {
    /// Deep-equal JSON: the same text, or the same value once parsed (key
    /// order and spacing aside).
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
            || matches!((self.to_value(), other.to_value()), (Ok(a), Ok(b)) if a == b)
    }
}

impl Eq for StoreEntry {}

impl PartialEq<Value> for StoreEntry {
    /// Deep-equal JSON, as between entries.
    fn eq(&self, other: &Value) -> bool {
        self.to_value().is_ok_and(|v| v == *other)
    }
}

impl PartialEq<StoreEntry> for Value {
    fn eq(&self, other: &StoreEntry) -> bool {
        other == self
    }
}

impl fmt::Debug for StoreEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("StoreEntry").field(&self.as_str()).finish()
    }
}

impl fmt::Display for StoreEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for StoreEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for StoreEntry {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(de).map(Self)
    }
}

impl From<Value> for StoreEntry {
    fn from(value: Value) -> Self {
        Self::from_value(&value)
    }
}

impl From<&Value> for StoreEntry {
    fn from(value: &Value) -> Self {
        Self::from_value(value)
    }
}

impl From<Box<RawValue>> for StoreEntry {
    fn from(raw: Box<RawValue>) -> Self {
        Self(raw)
    }
}

impl TryFrom<&StoreEntry> for Value {
    type Error = serde_json::Error;

    fn try_from(entry: &StoreEntry) -> Result<Self, Self::Error> {
        entry.to_value()
    }
}

impl std::str::FromStr for StoreEntry {
    type Err = serde_json::Error;

    fn from_str(json: &str) -> Result<Self, Self::Err> {
        Self::from_json(json)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_uuid_is_found_at_the_top_level_only() {
        let entry = StoreEntry::from_json(
            r#"{"message":{"uuid":"inner"},"uuid":"outer","n":[1,{"uuid":"x"}]}"#,
        )
        .unwrap();
        assert_eq!(entry.uuid().as_deref(), Some("outer"));
        let nested_only = StoreEntry::from_json(r#"{"message":{"uuid":"inner"}}"#).unwrap();
        assert_eq!(nested_only.uuid(), None);
    }

    #[test]
    fn empty_and_non_string_uuids_are_no_key() {
        for text in [
            r#"{"uuid":""}"#,
            r#"{"uuid":7}"#,
            r#"{"uuid":null}"#,
            "[1]",
            "\"uuid\"",
        ] {
            assert_eq!(StoreEntry::from_json(text).unwrap().uuid(), None, "{text}");
        }
    }

    #[test]
    fn an_escaped_uuid_is_unescaped() {
        let entry = StoreEntry::from_json(r#"{"uuid":"a\u0062c"}"#).unwrap();
        assert_eq!(entry.uuid().as_deref(), Some("abc"));
    }

    #[test]
    fn equality_is_deep_json_equality() {
        let a = StoreEntry::from_json(r#"{"a":1,"b":[true,null]}"#).unwrap();
        let b = StoreEntry::from_json(r#"{"b": [true, null], "a": 1}"#).unwrap();
        let c = StoreEntry::from_json(r#"{"a":2,"b":[true,null]}"#).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn text_and_values_round_trip() {
        let value = json!({"type": "user", "uuid": "u", "n": 1.5});
        let entry = StoreEntry::from(value.clone());
        assert!(entry.is_object());
        assert_eq!(entry.to_value().unwrap(), value);
        let text = serde_json::to_string(&entry).unwrap();
        assert_eq!(text, entry.as_str());
        let back: StoreEntry = serde_json::from_str(&text).unwrap();
        assert_eq!(back, entry);
        assert!(StoreEntry::from_json("{\"torn\":").is_err());
        assert!(!StoreEntry::from_json(" [1] ").unwrap().is_object());
    }
}
