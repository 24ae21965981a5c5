//! How two settings objects merge, as the CLI's cascade does: objects merge
//! key by key, deeply; a value that is not an object replaces; two lists
//! concatenate with later duplicates dropped (strings, numbers, booleans and
//! `null` compare by value, objects and lists never match, so they stay).
//! Keys the CLI treats otherwise, at any depth: `fallbackModel` and
//! `modelPicker` replace, `extraKnownMarketplaces` and `managedMcpServers`
//! merge one level deep (a higher entry replaces the lower one whole).

use serde_json::{Map, Value};

/// Merges `higher` into `lower`, `higher` winning.
pub(crate) fn merge_into(lower: &mut Map<String, Value>, higher: &Map<String, Value>) {
    for (key, value) in higher {
        match lower.get_mut(key) {
            Some(slot) => merge_value(key, slot, value),
            None => {
                lower.insert(key.clone(), value.clone());
            }
        }
    }
}

fn merge_value(key: &str, slot: &mut Value, higher: &Value) {
    match (key, &mut *slot, higher) {
        ("modelPicker", _, _) | ("fallbackModel", Value::Array(_), Value::Array(_)) => {
            *slot = higher.clone();
        }
        (_, Value::Array(lower), Value::Array(higher)) => {
            let mut merged: Vec<Value> = Vec::with_capacity(lower.len() + higher.len());
            for item in lower.iter().chain(higher) {
                if !(is_scalar(item) && merged.iter().any(|m| same_scalar(m, item))) {
                    merged.push(item.clone());
                }
            }
            *lower = merged;
        }
        (
            "extraKnownMarketplaces" | "managedMcpServers",
            Value::Object(lower),
            Value::Object(higher),
        ) => {
            for (k, v) in higher {
                lower.insert(k.clone(), v.clone());
            }
        }
        (_, Value::Object(lower), Value::Object(higher)) => merge_into(lower, higher),
        // An object merged onto a list leaves the list (the CLI's merge
        // writes the object's keys as properties a list does not keep).
        (_, Value::Array(_), Value::Object(_)) => {}
        _ => *slot = higher.clone(),
    }
}

/// Values the CLI's dedupe compares by value (JavaScript `Set` identity).
fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

/// Equality as a JavaScript `Set` sees it: numbers by value (`1` is `1.0`).
fn same_scalar(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
