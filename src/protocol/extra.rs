//! Lossless extras: the JSON members a type does not model.
//!
//! Every protocol struct carries an [`Extras`] so that a parse -> serialize
//! round trip keeps fields added by newer CLIs. It also remembers which
//! optional fields arrived as an explicit `null` (as opposed to being
//! absent), so those serialize back exactly as they came.

use serde_json::{Map, Value};

/// JSON members a protocol type does not model, kept for a lossless round
/// trip, plus a record of which optional fields were an explicit `null`.
///
/// ```
/// use claude_agent::protocol::{parse_line, Message, StdoutFrame};
///
/// let line = br#"{"type":"assistant","message":{"content":[]},"brand_new":1}"#;
/// let Ok(StdoutFrame::Message(Message::Assistant(a))) = parse_line(line) else {
///     panic!("not an assistant message");
/// };
/// assert_eq!(a.extra.get("brand_new"), Some(&serde_json::json!(1)));
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extras {
    pub(crate) map: Map<String, Value>,
    /// Bit `i` set: the struct's `i`-th optional field was an explicit null.
    pub(crate) nulls: u64,
}

impl Extras {
    /// An empty set of extras.
    pub fn new() -> Self {
        Self::default()
    }

    /// The unmodelled member `key`, if present.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// Adds or replaces an unmodelled member; returns the previous value.
    ///
    /// Do not insert a key the type models: it would be written twice.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.map.insert(key.into(), value)
    }

    /// Removes an unmodelled member.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    /// Iterates over the unmodelled members.
    pub fn iter(&self) -> serde_json::map::Iter<'_> {
        self.map.iter()
    }

    /// How many unmodelled members there are.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether there are no unmodelled members.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The unmodelled members as a JSON map.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.map
    }

    pub(crate) fn set_null(&mut self, bit: usize, null: bool) {
        let mask = 1u64 << (bit & 63);
        if null {
            self.nulls |= mask;
        } else {
            self.nulls &= !mask;
        }
    }

    pub(crate) fn is_null(&self, bit: usize) -> bool {
        self.nulls & (1u64 << (bit & 63)) != 0
    }
}

impl<'a> IntoIterator for &'a Extras {
    type Item = (&'a String, &'a Value);
    type IntoIter = serde_json::map::Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.map.iter()
    }
}
