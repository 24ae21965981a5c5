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
//! key holds and what a wrong value does in each kind of source. Inside an object or a list, a row's kind goes as deep as the
//! schema's (see [`Kind::Fields`], [`Kind::List`]): a wrong value at any
//! depth makes the key's value wrong, bar the lenient fields, dropped alone.

use serde_json::{Map, Value};

use super::aliases::fold_aliases;
use super::managed_mcp::managed_servers;
use super::marketplace_settings::has_unknown_plugin_kind;
use super::permission_rule::{RuleList, is_valid_rule};
use super::policy_helpers::policy_helpers;
use super::url_host::{archive_url, zod_url};
use super::validate_credentials as credentials;
use super::validate_hooks::{Hooks, read_hooks};
use super::validate_rule::{Field, Kind, Need, OnWrong, Rule, Special};
use super::validate_rules::RULES;
use super::validate_shapes as shapes;
use super::validate_values::{
    PERMISSION_MODES, http_url, is_clock, is_npm_package, is_safe_int, is_server_name, server_entry,
};

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
    mut settings: Map<String, Value>,
    kind: SourceKind,
) -> Option<Map<String, Value>> {
    fold_aliases(&mut settings);
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
    Some(out)
}

/// `settings` as the CLI reads them from the policy source it names
/// `label` (the label names the placeholders of degraded AWS pairs).
pub(crate) fn validate_policy(settings: Map<String, Value>, label: &str) -> Map<String, Value> {
    let mut out = validate(settings, SourceKind::Policy).unwrap_or_default();
    credentials::name_suppressors(&mut out, label);
    out
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
    let reader = match (user, on_wrong_restricts(rule.policy)) {
        (true, _) => Reader::User,
        (false, true) => Reader::PolicyRestrictive,
        (false, false) => Reader::Policy,
    };
    match check(rule.kind, value, reader) {
        Checked::Keep(value) => Read::Keep(value),
        Checked::Unset => Read::Drop,
        Checked::Unloadable if user => Read::Refuse,
        Checked::Unloadable => Read::Drop,
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

/// How a value is read: from a user-written file, from a policy source,
/// or from a policy source for a key that restricts (its nested values are
/// read strictly and fail closed where they restrict).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    User,
    Policy,
    PolicyRestrictive,
}

/// Whether a policy source's wrong value falls back to a restrictive one.
fn on_wrong_restricts(on_wrong: OnWrong) -> bool {
    matches!(on_wrong, OnWrong::Restrict(_) | OnWrong::FailClosed(_))
}

/// What checking one value found.
enum Checked {
    /// Right, and read as this.
    Keep(Value),
    /// Right, and read as unset (the key is dropped, nothing refused).
    Unset,
    /// Wrong.
    Wrong,
    /// Wrong so that a user's file is refused whatever the key's row says
    /// (a hook that may guard permissions, a marketplace of an unknown
    /// kind); a policy source drops the key.
    Unloadable,
}

impl From<Option<Value>> for Checked {
    fn from(value: Option<Value>) -> Self {
        value.map_or(Checked::Wrong, Checked::Keep)
    }
}

/// `value` as read when it is of `kind`, by `reader` (some keys read
/// differently in a user-written file).
fn check(kind: Kind, value: Value, reader: Reader) -> Checked {
    let ok = match (kind, &value) {
        (Kind::Bool, Value::Bool(_)) | (Kind::Str, Value::String(_)) | (Kind::Any, _) => true,
        (Kind::Text, Value::String(s)) => !s.is_empty(),
        (Kind::OneOf(names), Value::String(s)) => names.contains(&s.as_str()),
        (Kind::OneOfElse(names, _), Value::String(s)) if names.contains(&s.as_str()) => true,
        (Kind::OneOfElse(_, other), _) => return Checked::Keep(Value::String(other.into())),
        // Kept as zod's URL check leaves it (trimmed, no tabs).
        (Kind::Url, Value::String(s)) => return zod_url(s).map(Value::String).into(),
        (Kind::Int { above }, Value::Number(n)) => is_safe_int(n).is_some_and(|i| i > above),
        (Kind::Rate { zero }, Value::Number(n)) => n
            .as_f64()
            .is_some_and(|x| x <= 1.0 && (x > 0.0 || (zero && x == 0.0))),
        (
            Kind::Num {
                min,
                exclusive,
                max,
            },
            Value::Number(n),
        ) => n
            .as_f64()
            .is_some_and(|x| (x > min || (!exclusive && x == min)) && x <= max),
        (Kind::Clock, Value::String(s)) => is_clock(s),
        (Kind::TrailingWildcard, Value::String(s)) => {
            !s.strip_suffix('*').unwrap_or(s).contains('*')
        }
        (Kind::StrElseEmpty, Value::String(_)) => true,
        (Kind::StrElseEmpty, _) => return Checked::Keep(Value::String(String::new())),
        (Kind::List(item), Value::Array(_)) => return list(item, value, reader),
        (Kind::Filtered(item), Value::Array(_)) => return filtered(item, value, reader),
        (Kind::Strings, Value::Array(items)) => items.iter().all(Value::is_string),
        (Kind::Objects, Value::Array(items)) => items.iter().all(Value::is_object),
        (Kind::StrOrStrings, Value::String(_)) => true,
        (Kind::StrOrStrings, Value::Array(items)) => items.iter().all(Value::is_string),
        (Kind::Either(a, b), v) => {
            if let Checked::Keep(v) = check(*a, v.clone(), reader) {
                return Checked::Keep(v);
            }
            return check(*b, value, reader);
        }
        (Kind::IntCapped { from, cap }, Value::Number(n)) => {
            return match is_safe_int(n).filter(|i| *i >= from) {
                Some(i) => Checked::Keep(Value::from(i.min(cap))),
                None => Checked::Wrong,
            };
        }
        (Kind::Object, Value::Object(_)) => true,
        (Kind::Record(inner), Value::Object(_)) => {
            let Value::Object(entries) = value else {
                return Checked::Wrong;
            };
            let mut out = Map::new();
            for (k, v) in entries {
                match check(*inner, v, reader) {
                    Checked::Keep(v) => out.insert(k, v),
                    _ => return Checked::Wrong,
                };
            }
            return Checked::Keep(Value::Object(out));
        }
        (Kind::RecordFiltered(inner), Value::Object(_)) => {
            let Value::Object(entries) = value else {
                return Checked::Wrong;
            };
            let kept = entries
                .into_iter()
                .filter_map(|(k, v)| match check(*inner, v, reader) {
                    Checked::Keep(v) => Some((k, v)),
                    _ => None,
                });
            return Checked::Keep(Value::Object(kept.collect()));
        }
        (Kind::Fields { fields: f, open }, Value::Object(_)) => {
            return fields(f, open, value, reader);
        }
        (Kind::Tagged { tag, variants }, Value::Object(o)) => {
            let name = o.get(tag).and_then(Value::as_str);
            return match variants.iter().find(|(n, _)| Some(*n) == name) {
                Some((_, f)) => fields(f, false, value, reader),
                None => Checked::Wrong,
            };
        }
        (Kind::Special(special), _) => return read_special(special, value, reader),
        _ => false,
    };
    match ok {
        true => Checked::Keep(value),
        false => Checked::Wrong,
    }
}

/// A list whose items are each of `item`, each read as it is read alone.
fn list(item: &Kind, value: Value, reader: Reader) -> Checked {
    let Value::Array(items) = value else {
        return Checked::Wrong;
    };
    let mut out = Vec::with_capacity(items.len());
    for v in items {
        match check(*item, v, reader) {
            Checked::Keep(v) => out.push(v),
            Checked::Unset | Checked::Wrong | Checked::Unloadable => return Checked::Wrong,
        }
    }
    Checked::Keep(Value::Array(out))
}

/// A list with the items that are not of `item` dropped.
fn filtered(item: &Kind, value: Value, reader: Reader) -> Checked {
    let Value::Array(items) = value else {
        return Checked::Wrong;
    };
    let kept = items
        .into_iter()
        .filter_map(|v| match check(*item, v, reader) {
            Checked::Keep(v) => Some(v),
            Checked::Unset | Checked::Wrong | Checked::Unloadable => None,
        });
    Checked::Keep(Value::Array(kept.collect()))
}

/// An object with known fields, each read by its kind; unknown fields are
/// dropped unless `open`. A required field missing makes it wrong. A wrong
/// field makes it wrong in a user's file, bar a lenient field, dropped
/// alone. In a policy source a wrong field drops the whole key (read as
/// unset), bar a field that restricts, which fails closed; for a key that
/// restricts the schema's lenience does not apply there, and in an object
/// holding such a field a wrong field is dropped alone (withholding the
/// grants beside a restriction, see [`shapes::WITHHOLDS`]), the object
/// unset when nothing is left.
fn fields(fields: &[Field], open: bool, value: Value, reader: Reader) -> Checked {
    let user = reader == Reader::User;
    let salvage = reader == Reader::PolicyRestrictive && restricts(fields);
    let Value::Object(mut o) = value else {
        return Checked::Wrong;
    };
    let mut dropped = Vec::new();
    for field in fields {
        let Some(v) = o.remove(field.name) else {
            if field.need == Need::Required {
                return Checked::Wrong;
            }
            continue;
        };
        if v.is_null() && field.need == Need::NullUnset {
            continue;
        }
        let lenient = field.need == Need::Coerced
            || field.need == Need::Lenient && reader != Reader::PolicyRestrictive;
        let is_null = v.is_null();
        match check(field.kind, v, reader) {
            Checked::Keep(v) => {
                o.insert(field.name.to_owned(), v);
            }
            Checked::Unset if user => {}
            Checked::Wrong if lenient => {}
            Checked::Wrong if user => return Checked::Wrong,
            Checked::Unset | Checked::Unloadable if salvage => dropped.push(field.name),
            // Deeper, a policy source's wrong value dropped the whole key.
            Checked::Unset | Checked::Unloadable => return Checked::Unset,
            Checked::Wrong => {
                let closed = field.closed.filter(|_| !is_null);
                match closed.and_then(|t| serde_json::from_str(t).ok()) {
                    Some(v) => {
                        o.insert(field.name.to_owned(), v);
                    }
                    None if salvage => dropped.push(field.name),
                    None => return Checked::Unset,
                }
            }
        }
    }
    if !open {
        o.retain(|k, _| fields.iter().any(|f| f.name == k));
    }
    if !dropped.is_empty() {
        withhold(fields, &dropped, &mut o);
        if o.is_empty() {
            return Checked::Unset;
        }
    }
    Checked::Keep(Value::Object(o))
}

/// Whether an object holds a field that fails closed, at any depth: only
/// such an object keeps its readable fields when another is wrong.
fn restricts(fields: &[Field]) -> bool {
    fields.iter().any(|f| {
        f.closed.is_some()
            || matches!(f.kind, Kind::Fields { fields: inner, .. } if restricts(inner))
    })
}

/// Removes the grants of an object whose restriction in `dropped` could
/// not be read; a granting `defaultMode` reads as `"default"`.
fn withhold(fields: &[Field], dropped: &[&str], o: &mut Map<String, Value>) {
    let has = |name: &&str| fields.iter().any(|f| f.name == *name);
    for (restrictions, grants) in shapes::WITHHOLDS {
        if !grants.iter().all(has) || !dropped.iter().any(|d| restrictions.contains(d)) {
            continue;
        }
        for grant in *grants {
            if *grant != "defaultMode" {
                o.remove(*grant);
                continue;
            }
            if let Some(mode) = o.get_mut(*grant)
                && !mode
                    .as_str()
                    .is_some_and(|m| shapes::INERT_MODES.contains(&m))
            {
                *mode = Value::String("default".into());
            }
        }
    }
}

/// TS `xZe`: a `settings` marketplace is dropped unless its `name` is
/// its key, so a marketplace cannot be declared under another's name.
fn names_its_key(key: &str, entry: &Value) -> bool {
    let source = &entry["source"];
    source["source"] != "settings" || source["name"] == key
}

fn read_special(special: Special, value: Value, reader: Reader) -> Checked {
    let user = reader == Reader::User;
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
        (Special::ServerNames, v @ Value::Array(_)) => check(Kind::Strings, v, reader),
        (Special::Marketplaces, v @ Value::Array(_)) if user => {
            check(Kind::List(&shapes::MARKETPLACE_SOURCE), v, reader)
        }
        (Special::Marketplaces, v @ Value::Array(_)) => {
            check(Kind::Filtered(&shapes::MARKETPLACE_SOURCE), v, reader)
        }
        (Special::ServerEntry { denied }, Value::Object(o)) => server_entry(o, denied).into(),
        (Special::KnownMarketplaces, Value::Object(entries)) => {
            let mut out = Map::new();
            for (name, entry) in entries {
                let tag = entry.get("source").and_then(|s| s.get("source"));
                let known = |t: &str| shapes::MARKETPLACE_SOURCES.iter().any(|(n, _)| *n == t);
                // An unknown kind of source refuses a user's file whole.
                if tag.and_then(Value::as_str).is_some_and(|t| !known(t))
                    || entry.get("source").is_some_and(has_unknown_plugin_kind)
                {
                    return Checked::Unloadable;
                }
                let entry_kind = Kind::Fields {
                    fields: shapes::KNOWN_MARKETPLACE,
                    open: false,
                };
                if let Checked::Keep(entry) = check(entry_kind, entry, reader)
                    && names_its_key(&name, &entry)
                {
                    out.insert(name, entry);
                }
            }
            kept(Value::Object(out))
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
        (Special::StringValues, Value::Object(mut o)) => {
            for v in o.values_mut() {
                if !v.is_string() {
                    *v = Value::String(String::new());
                }
            }
            kept(Value::Object(o))
        }
        (Special::EmptiedObject, Value::Object(_)) => kept(Value::Object(Map::new())),
        (Special::Hooks, v) => {
            let check_one = |kind: Kind, v: Value| match check(kind, v, reader) {
                Checked::Keep(v) => Some(v),
                _ => None,
            };
            match read_hooks(v, user, &check_one) {
                Hooks::Keep(v) => kept(v),
                Hooks::Wrong => Checked::Wrong,
                Hooks::Unloadable => Checked::Unloadable,
            }
        }
        (Special::PermissionMode, Value::String(s)) if s == "manual" => {
            kept(Value::String("default".into()))
        }
        (Special::PermissionMode, v) => check(Kind::OneOf(PERMISSION_MODES), v, reader),
        (Special::Credentials, v) if user => credentials::strict(&v).into(),
        // A policy's `null` removes the block rather than failing it closed.
        (Special::Credentials, Value::Null) => Checked::Unset,
        (Special::Credentials, v) => kept(credentials::policy(&v)),
        (Special::ManagedServers, v) => managed_servers(&v).into(),
        (Special::PolicyHelpers, v) => policy_helpers(&v, !user).into(),
        (Special::Tips, Value::Array(mut items)) => {
            items.retain(|i| i.is_string() || i.is_object());
            kept(Value::Array(items))
        }
        (Special::Tips, _) => kept(Value::Array(Vec::new())),
        (Special::NpmPackage, Value::String(p)) if is_npm_package(&p) => kept(Value::String(p)),
        (Special::HttpUrl, Value::String(u)) => http_url(&u).map(Value::String).into(),
        (Special::ArchiveUrl, Value::String(u)) => archive_url(&u).map(Value::String).into(),
        (Special::StrWhere(ok), Value::String(s)) if ok(&s) => kept(Value::String(s)),
        (Special::PositiveIntUpTo(max), Value::Number(n))
            if is_safe_int(&n).is_some_and(|i| (1..=max).contains(&i)) =>
        {
            kept(Value::Number(n))
        }
        (Special::AbsolutePath, Value::String(p)) if p.starts_with('/') => kept(Value::String(p)),
        (Special::AbsolutePath, _) => Checked::Unset,
        (Special::PermissionRules(list), Value::Array(items)) => {
            let given = items.len();
            let rules: Vec<Value> = items
                .into_iter()
                .filter(|i| i.as_str().is_some_and(|r| is_valid_rule(r, list)))
                .collect();
            // A policy's restriction none of whose rules is left cannot be
            // read (its grants are withheld, see `fields`).
            match !user && list == RuleList::DenyOrAsk && given > 0 && rules.is_empty() {
                true => Checked::Wrong,
                false => kept(Value::Array(rules)),
            }
        }
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
