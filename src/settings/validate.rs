//! Values checked against the CLI's settings schema, as it reads them.
//!
//! The CLI reads two kinds of source differently. A file the user can
//! write (user, project, local, `--settings`) is refused whole when one
//! key holds a wrong value (`"cleanupPeriodDays": -1`, `"model": 5`), bar
//! the keys the schema reads leniently, which are dropped alone (or read as
//! a default). A policy source (server-managed settings, the
//! managed-settings file and each drop-in, a parent's `managedSettings`) is
//! never refused for a value: a wrong key is dropped, and a key that
//! restricts falls back to its restrictive value (fails closed). Keys the
//! schema does not know are kept, in both.
//!
//! The rules are one table, [`RULES`], a row per key of the CLI's schema
//! (every key of the TypeScript SDK's `Settings` type among them): what the
//! key holds, at its top level, and what a wrong value does in each kind of
//! source. What lies inside an object is checked only where a row says so
//! (its required fields, unknown fields dropped); deeper values are not.

use serde_json::{Map, Value};

use super::validate_rule::{Kind, OnWrong, Rule, Special};
use super::validate_rules::RULES;

/// Which kind of source a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SourceKind {
    /// A file the user writes, or `--settings`.
    UserWritten,
    /// An administrator's or a parent's policy source.
    Policy,
}

/// `settings` as the CLI reads them from a source of `kind`, or `None` when
/// the CLI refuses the whole source.
pub(crate) fn validate(
    settings: Map<String, Value>,
    kind: SourceKind,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    for (key, value) in settings {
        let Some(rule) = rule_of(&key) else {
            out.insert(key, value);
            continue;
        };
        match read_key(rule, value, kind) {
            Read::Keep(value) => {
                out.insert(key, value);
            }
            Read::Drop => {}
            Read::Refuse => {
                tracing::warn!(key = %key, "settings source holds a wrong value; skipped whole");
                return None;
            }
        }
    }
    if kind == SourceKind::Policy {
        fail_nested_closed(&mut out);
    }
    Some(out)
}

/// Restrictive switches inside an object, with the one value that is
/// right for them besides their permissive one (`None`: a boolean).
const NESTED: &[(&str, &str, Option<&str>)] = &[
    (
        "permissions",
        "disableBypassPermissionsMode",
        Some("disable"),
    ),
    ("permissions", "disableAutoMode", Some("disable")),
    ("permissions", "blockReadsOutsideWorkingDirectories", None),
    ("permissions", "blockWritesOutsideWorkingDirectories", None),
    ("permissions", "denyInsteadOfPrompting", None),
];

/// In a policy source a nested restrictive switch with a wrong value reads
/// as its restrictive value, as a top-level one does.
fn fail_nested_closed(settings: &mut Map<String, Value>) {
    for (object, key, word) in NESTED {
        let Some(Value::Object(inner)) = settings.get_mut(*object) else {
            continue;
        };
        let Some(value) = inner.get_mut(*key) else {
            continue;
        };
        match (word, &*value) {
            (_, Value::Null) => {}
            (None, Value::Bool(_)) => {}
            (Some(w), Value::String(s)) if s == w => {}
            (None, _) => *value = Value::Bool(true),
            (Some(w), _) => *value = Value::String((*w).to_owned()),
        }
    }
}

/// The row of `key`, if the schema knows it.
pub(crate) fn rule_of(key: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.key == key)
}

enum Read {
    Keep(Value),
    Drop,
    Refuse,
}

fn read_key(rule: &Rule, value: Value, kind: SourceKind) -> Read {
    let user = kind == SourceKind::UserWritten;
    if user && rule.policy_only {
        return Read::Drop;
    }
    let on_wrong = if user { rule.file } else { rule.policy };
    if value.is_null() && !matches!(rule.kind, Kind::Any) {
        return match on_wrong {
            OnWrong::FailClosed(text) => fallback(text),
            OnWrong::Refuse if !rule.null_unset => Read::Refuse,
            _ => Read::Drop,
        };
    }
    match check(rule.kind, value, user) {
        Checked::Keep(value) => Read::Keep(value),
        Checked::Unset => Read::Drop,
        Checked::Wrong => match on_wrong {
            OnWrong::Refuse => Read::Refuse,
            OnWrong::Drop => Read::Drop,
            OnWrong::Restrict(text) | OnWrong::FailClosed(text) => fallback(text),
        },
    }
}

/// A table's fallback text as a value (the table's texts are JSON; a test
/// reads every one).
fn fallback(text: &str) -> Read {
    serde_json::from_str(text).map_or(Read::Drop, Read::Keep)
}

/// What checking one value found.
enum Checked {
    /// Right, and read as this.
    Keep(Value),
    /// Right, and read as unset (the key is dropped, nothing refused).
    Unset,
    /// Wrong.
    Wrong,
}

impl From<Option<Value>> for Checked {
    fn from(value: Option<Value>) -> Self {
        value.map_or(Checked::Wrong, Checked::Keep)
    }
}

/// `value` as read when it is of `kind`. `user`: the source is
/// user-written (some keys read differently there).
fn check(kind: Kind, value: Value, user: bool) -> Checked {
    let ok = match (kind, &value) {
        (Kind::Bool, Value::Bool(_)) | (Kind::Str, Value::String(_)) | (Kind::Any, _) => true,
        (Kind::Text, Value::String(s)) => !s.is_empty(),
        (Kind::OneOf(names), Value::String(s)) => names.contains(&s.as_str()),
        (Kind::Int { above }, Value::Number(n)) => is_safe_int(n).is_some_and(|i| i > above),
        (Kind::Rate { zero }, Value::Number(n)) => n
            .as_f64()
            .is_some_and(|x| x <= 1.0 && (x > 0.0 || (zero && x == 0.0))),
        (Kind::Strings, Value::Array(items)) => items.iter().all(Value::is_string),
        (Kind::Objects, Value::Array(items)) => items.iter().all(Value::is_object),
        (Kind::StrOrStrings, Value::String(_)) => true,
        (Kind::StrOrStrings, Value::Array(items)) => items.iter().all(Value::is_string),
        (Kind::Either(a, b), v) => {
            matches!(check(*a, v.clone(), user), Checked::Keep(_))
                || matches!(check(*b, v.clone(), user), Checked::Keep(_))
        }
        (Kind::Object, Value::Object(_)) => true,
        (Kind::Record(inner), Value::Object(entries)) => entries
            .values()
            .all(|v| matches!(check(*inner, v.clone(), user), Checked::Keep(_))),
        (Kind::Fields { .. }, _) => return fields(kind, value),
        (Kind::Special(special), _) => return read_special(special, value, user),
        _ => false,
    };
    match ok {
        true => Checked::Keep(value),
        false => Checked::Wrong,
    }
}

/// An object with known fields: the required ones there, the unknown ones
/// dropped unless the kind is open.
fn fields(kind: Kind, value: Value) -> Checked {
    let (
        Kind::Fields {
            fields,
            required,
            open,
        },
        Value::Object(mut o),
    ) = (kind, value)
    else {
        return Checked::Wrong;
    };
    if !required.iter().all(|f| o.contains_key(*f)) {
        return Checked::Wrong;
    }
    if !open {
        o.retain(|k, _| fields.contains(&k.as_str()));
    }
    Checked::Keep(Value::Object(o))
}

fn read_special(special: Special, value: Value, user: bool) -> Checked {
    let kept = |v: Value| Checked::Keep(v);
    match (special, value) {
        // The policy tier leaves out an `env` with nothing in it.
        (Special::Env, Value::Object(o)) if o.is_empty() && !user => Checked::Unset,
        (Special::Env, Value::Object(mut o)) => {
            for v in o.values_mut() {
                match v {
                    Value::String(_) => {}
                    Value::Number(n) => *v = Value::String(n.to_string()),
                    Value::Bool(b) => *v = Value::String(b.to_string()),
                    _ => return Checked::Wrong,
                }
            }
            kept(Value::Object(o))
        }
        (Special::Attribution, Value::Bool(true)) => kept(Value::Object(Map::new())),
        (Special::Attribution, Value::Bool(false)) => kept(serde_json::json!({
            "commit": "", "pr": "", "sessionUrl": false
        })),
        (Special::Attribution, v @ Value::Object(_)) => kept(v),
        (Special::ServerNames, Value::String(name)) if user && is_server_name(&name) => {
            kept(Value::Array(vec![Value::String(name)]))
        }
        (Special::ServerNames, v @ Value::Array(_)) => check(Kind::Strings, v, user),
        (Special::Entries, Value::Array(mut items)) => {
            items.retain(Value::is_object);
            kept(Value::Array(items))
        }
        (Special::Marketplaces, v @ Value::Array(_)) if user => check(Kind::Objects, v, user),
        (Special::Marketplaces, Value::Array(mut items)) => {
            items.retain(Value::is_object);
            kept(Value::Array(items))
        }
        (Special::PolicyStrings, Value::Array(mut items)) => {
            items.retain(Value::is_string);
            kept(Value::Array(items))
        }
        (Special::Names(names) | Special::Surfaces(names), Value::Array(mut items)) => {
            items.retain(|i| i.as_str().is_some_and(|s| names.contains(&s)));
            kept(Value::Array(items))
        }
        (Special::Surfaces(_), v @ Value::Bool(_)) => kept(v),
        (Special::ObjectEntries { keep_empty }, Value::Object(mut o)) => {
            o.retain(|_, v| v.is_object());
            match o.is_empty() && !keep_empty {
                true => Checked::Unset,
                false => kept(Value::Object(o)),
            }
        }
        (Special::StringValues, Value::Object(mut o)) => {
            for v in o.values_mut() {
                if !v.is_string() {
                    *v = Value::String(String::new());
                }
            }
            kept(Value::Object(o))
        }
        (Special::EmptiedObject, Value::Object(_)) => kept(Value::Object(Map::new())),
        (Special::NonEmptyObjects, Value::Array(items)) if items.is_empty() => Checked::Unset,
        (Special::NonEmptyObjects, v @ Value::Array(_)) => check(Kind::Objects, v, user),
        (Special::Disable, Value::String(s)) if s == "disable" => kept(Value::String(s)),
        (Special::Disable, Value::Bool(false)) if !user => Checked::Unset,
        // An unknown field fails the policy tier closed; a user's is dropped.
        (Special::RemoteControl, Value::Object(o))
            if !user && o.keys().any(|k| k != "shareHostProfile") =>
        {
            Checked::Wrong
        }
        (Special::RemoteControl, Value::Object(mut o)) => {
            o.retain(|k, _| k == "shareHostProfile");
            kept(Value::Object(o))
        }
        _ => Checked::Wrong,
    }
}

/// A JavaScript safe integer (a whole `1.0` counts, as in JSON it is 1).
fn is_safe_int(n: &serde_json::Number) -> Option<i64> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() as f64 <= SAFE).then_some(i);
    }
    let x = n.as_f64()?;
    (x.fract() == 0.0 && x.abs() <= SAFE).then_some(x as i64)
}

/// What the CLI takes for one MCP server's name.
fn is_server_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}
