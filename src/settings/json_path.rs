//! Reading and writing a value at a key path (`["permissions", "deny"]`)
//! inside a settings object: the restrictive part and the sources' merge
//! both address nested keys this way.

use serde_json::{Map, Value};

/// The value at `path`, if every step is an object holding the key.
pub(super) fn at<'a>(object: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let value = object.get(*first)?;
    match rest.is_empty() {
        true => Some(value),
        false => at(value.as_object()?, rest),
    }
}

/// Sets (or with `None` removes) the value at `path`, making the objects
/// on the way (a step that holds something else becomes an object).
pub(super) fn set(object: &mut Map<String, Value>, path: &[&str], value: Option<Value>) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut here = object;
    for key in parents {
        let slot = here
            .entry((*key).to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        let Value::Object(next) = slot else { return };
        here = next;
    }
    match value {
        Some(v) => here.insert((*last).to_owned(), v),
        None => here.remove(*last),
    };
}
