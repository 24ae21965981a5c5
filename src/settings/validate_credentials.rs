//! `sandbox.credentials`, as the CLI's schema reads it: `files` and
//! `envVars` to deny or mask, `awsPairs` grouping masked variables into
//! AWS key pairs, `sigv4` policies and `allowPlaintextInject`. A user's file
//! with a wrong entry is refused (its `sandbox` is wrong). A policy source
//! never loses the block: a wrong entry is degraded to `deny`, a wrong pair
//! naming a standard AWS variable to an inert pair that only suppresses
//! the standard pairing (its placeholder names carry [`SOURCE_MARK`] until
//! [`name_suppressors`] writes the source's hash there), a wrong `sigv4`
//! shape to `deny`, anything else to the closed skeleton. Learnt from the
//! TypeScript SDK 0.3.332 and checked against its recorded answers.

use serde_json::{Map, Value, json};

use super::js_regex::is_extract_pattern;

/// The standard AWS variables, paired without being listed.
const AWS_NAMES: &[&str] = &[
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
];

/// The start of a degraded pair's placeholder names.
const INVALID_PAIR: &str = "_INVALID_PAIR_";

/// Stands for the source's hash in a placeholder name until
/// [`name_suppressors`] replaces it (it cannot be in a variable's name).
pub(crate) const SOURCE_MARK: &str = "{source}";

/// A variable's name: a letter or `_`, then letters, digits and `_`.
pub(crate) fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn is_strings(v: &Value) -> bool {
    v.as_array().is_some_and(|a| a.iter().all(Value::is_string))
}

/// An optional field's test.
type Test = fn(&Value) -> bool;

/// The optional fields of a `files` entry (`envVars` has all but
/// `maskDuplicates`).
const ENTRY_FIELDS: &[(&str, Test)] = &[
    ("extract", Value::is_string),
    ("onExtractNoMatch", |v| {
        matches!(v.as_str(), Some("warn" | "deny" | "error"))
    }),
    ("decode", |v| v.as_str() == Some("jwt")),
    ("maskClaims", is_strings),
    ("maskDuplicates", Value::is_boolean),
    ("injectHosts", is_strings),
];

/// One entry of `files` (`key` `"path"`) or `envVars` (`"name"`), read
/// strictly: `None` when wrong. A `deny` entry's wrong optional fields are
/// dropped first (they mean nothing there).
fn entry(value: &Value, key: &str) -> Option<Value> {
    let o = value.as_object()?;
    let mode = o
        .get("mode")?
        .as_str()
        .filter(|m| matches!(*m, "deny" | "mask"))?;
    let id = o.get(key)?.as_str()?;
    let id_ok = match key {
        "path" => !id.is_empty(),
        _ => is_env_name(id),
    };
    if !id_ok {
        return None;
    }
    let mut out = Map::new();
    out.insert(key.into(), Value::String(id.into()));
    out.insert("mode".into(), Value::String(mode.into()));
    for (name, test) in ENTRY_FIELDS {
        if *name == "maskDuplicates" && key == "name" {
            continue;
        }
        match o.get(*name) {
            None => {}
            Some(v) if test(v) => {
                out.insert((*name).into(), v.clone());
            }
            Some(_) if mode == "deny" => {}
            Some(_) => return None,
        }
    }
    let mask = mode == "mask";
    let extract = out.get("extract").and_then(Value::as_str);
    let decode = out.contains_key("decode");
    let claims_ok = out
        .get("maskClaims")
        .and_then(Value::as_array)
        .is_none_or(|c| {
            !c.is_empty() && c.iter().all(|c| c.as_str().is_some_and(|c| !c.is_empty())) && decode
        });
    let no_match_closed = matches!(
        out.get("onExtractNoMatch").and_then(Value::as_str),
        Some("deny" | "error")
    );
    let wrong = mask
        && ((key == "path" && id.ends_with('/'))
            || extract.is_some_and(|e| !is_extract_pattern(e))
            || !claims_ok
            || (key == "name" && decode && (extract.is_some() || no_match_closed)));
    (!wrong).then_some(Value::Object(out))
}

/// One `awsPairs` item, read strictly: its members distinct names.
fn pair(value: &Value) -> Option<Value> {
    let o = value.as_object()?;
    let mut out = Map::new();
    for (name, required) in [
        ("accessKeyIdVar", true),
        ("secretAccessKeyVar", true),
        ("sessionTokenVar", false),
    ] {
        match o.get(name) {
            None if !required => {}
            Some(Value::String(s)) if is_env_name(s) => {
                if out.values().any(|v| v.as_str() == Some(s)) {
                    return None;
                }
                out.insert(name.into(), Value::String(s.clone()));
            }
            _ => return None,
        }
    }
    Some(Value::Object(out))
}

/// `sigv4`, read strictly.
fn sigv4(value: &Value) -> Option<Value> {
    let o = value.as_object()?;
    let mut out = Map::new();
    for shape in ["streaming", "presigned", "sigv4a"] {
        match o.get(shape) {
            None => {}
            Some(v) if matches!(v.as_str(), Some("deny" | "passthrough")) => {
                out.insert(shape.into(), v.clone());
            }
            Some(_) => return None,
        }
    }
    Some(Value::Object(out))
}

/// A list whose items are each read by `item`.
fn all(value: &Value, item: impl Fn(&Value) -> Option<Value>) -> Option<Value> {
    value
        .as_array()?
        .iter()
        .map(item)
        .collect::<Option<Vec<_>>>()
        .map(Value::Array)
}

/// `credentials` from a user-written file: `None` when wrong.
pub(crate) fn strict(value: &Value) -> Option<Value> {
    let o = value.as_object()?;
    let mut out = Map::new();
    for (name, v) in o {
        let read = match name.as_str() {
            "files" => all(v, |e| entry(e, "path")),
            "envVars" => all(v, |e| entry(e, "name")),
            "allowPlaintextInject" => v.is_boolean().then(|| v.clone()),
            "awsPairs" => all(v, pair),
            "sigv4" => sigv4(v),
            _ => continue,
        };
        out.insert(name.clone(), read?);
    }
    Some(Value::Object(out))
}

/// The placeholder pairs of one policy source, numbered in the order
/// they are made.
#[derive(Default)]
struct Suppressors {
    made: u32,
    /// Pairs made for a standard secret name a pair held, added after the
    /// list they came from.
    extra: Vec<Value>,
}

impl Suppressors {
    /// An inert pair for a wrong one that names a standard AWS variable
    /// (its members as given: `Some("")` for a wrong one), else `None`.
    fn degrade(
        &mut self,
        key: Option<&str>,
        secret: Option<&str>,
        token: Option<&str>,
    ) -> Option<Value> {
        if ![key, secret, token]
            .into_iter()
            .flatten()
            .any(|n| AWS_NAMES.contains(&n))
        {
            return None;
        }
        self.made += 1;
        let made = self.made;
        let fake = |which: &str| format!("{INVALID_PAIR}{which}_{SOURCE_MARK}{made}_");
        let usable = |n: Option<&str>| n.filter(|n| is_env_name(n)).map(str::to_owned);
        let key = usable(key).unwrap_or_else(|| fake("ACCESS_KEY_ID"));
        let mut secret = usable(secret)
            .filter(|s| *s != key)
            .unwrap_or_else(|| fake("SECRET_ACCESS_KEY"));
        let token = token.map(|t| {
            usable(Some(t))
                .filter(|t| *t != key && *t != secret)
                .unwrap_or_else(|| fake("SESSION_TOKEN"))
        });
        // A pair whose key and secret both read must not sign: its secret
        // becomes a placeholder, and a standard secret name gets its own.
        if !key.starts_with(INVALID_PAIR) && !secret.starts_with(INVALID_PAIR) {
            let standard = AWS_NAMES.contains(&secret.as_str()).then(|| secret.clone());
            secret = fake("SECRET_ACCESS_KEY");
            if let Some(name) = standard
                && let Some(p) = self.degrade(Some(&name), None, None)
            {
                self.extra.push(p);
            }
        }
        let mut out = json!({"accessKeyIdVar": key, "secretAccessKeyVar": secret});
        if let (Some(t), Some(o)) = (token, out.as_object_mut()) {
            o.insert("sessionTokenVar".into(), Value::String(t));
        }
        Some(out)
    }

    /// A pair's members as the degrading reads them: a member that is
    /// there but not a string (or a required one missing, when `issues`)
    /// reads as `""`.
    fn degrade_item(&mut self, item: &Value, issues: bool) -> Option<Value> {
        let o = item.as_object()?;
        let member = |name: &str, required: bool| match o.get(name) {
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) if issues => Some(""),
            None if issues && required => Some(""),
            _ => None,
        };
        let (key, secret, token) = (
            member("accessKeyIdVar", true),
            member("secretAccessKeyVar", true),
            member("sessionTokenVar", false),
        );
        self.degrade(key, secret, token)
    }

    /// Pairs suppressing the standard pairing, one per standard name.
    fn standard(&mut self) -> Vec<Value> {
        AWS_NAMES
            .iter()
            .filter_map(|n| self.degrade(Some(n), None, None))
            .collect()
    }
}

/// `files` or `envVars` in a policy source: a wrong entry with a readable
/// path (or name) and mode is degraded to `deny`, another dropped; one
/// entry not in a list is read as a list of it.
fn policy_entries(value: &Value, key: &str) -> Value {
    let degrade = |v: &Value| {
        entry(v, key).or_else(|| {
            let o = v.as_object()?;
            o.get("mode")?
                .as_str()
                .filter(|m| matches!(*m, "deny" | "mask"))?;
            let id = o.get(key)?;
            entry(&json!({ key: id, "mode": "deny" }), key)
        })
    };
    match value {
        Value::Array(items) => Value::Array(items.iter().filter_map(degrade).collect()),
        Value::Object(_) => Value::Array(degrade(value).into_iter().collect()),
        _ => Value::Array(Vec::new()),
    }
}

/// `awsPairs` in a policy source.
fn policy_pairs(value: &Value, made: &mut Suppressors) -> Value {
    let mut out = match value {
        Value::Array(items) => items
            .iter()
            .filter_map(|i| pair(i).or_else(|| made.degrade_item(i, true)))
            .collect(),
        Value::Object(o) => {
            let shaped = ["accessKeyIdVar", "secretAccessKeyVar", "sessionTokenVar"]
                .iter()
                .any(|k| o.contains_key(*k));
            match made.degrade_item(value, false) {
                Some(p) => vec![p],
                None if shaped => {
                    made.extra.clear();
                    Vec::new()
                }
                None => made.standard(),
            }
        }
        _ => made.standard(),
    };
    out.append(&mut made.extra);
    Value::Array(out)
}

/// Every `sigv4` shape denied.
fn all_deny() -> Value {
    json!({"streaming": "deny", "presigned": "deny", "sigv4a": "deny"})
}

/// `credentials` in a policy source: never lost (see the module's text).
pub(crate) fn policy(value: &Value) -> Value {
    let mut made = Suppressors::default();
    let Some(o) = value.as_object() else {
        return json!({
            "allowPlaintextInject": false,
            "awsPairs": made.standard(),
            "sigv4": all_deny(),
        });
    };
    let mut out = Map::new();
    for (name, v) in o {
        let read = match name.as_str() {
            "files" => policy_entries(v, "path"),
            "envVars" => policy_entries(v, "name"),
            "allowPlaintextInject" if v.is_boolean() => v.clone(),
            "allowPlaintextInject" => Value::Bool(false),
            "awsPairs" => policy_pairs(v, &mut made),
            "sigv4" => match v.as_object() {
                Some(shapes) => {
                    let mut read = Map::new();
                    for shape in ["streaming", "presigned", "sigv4a"] {
                        if let Some(s) = shapes.get(shape) {
                            let s = match s.as_str() {
                                Some("passthrough") => "passthrough",
                                _ => "deny",
                            };
                            read.insert(shape.into(), Value::String(s.into()));
                        }
                    }
                    Value::Object(read)
                }
                None => all_deny(),
            },
            _ => continue,
        };
        out.insert(name.clone(), read);
    }
    Value::Object(out)
}

/// The hash TS writes into a policy source's placeholder names: FNV-1a
/// over the first UTF-16 unit of each character of the source's label
/// (`"remote managed settings"`, the managed-settings file's path,
/// `"parent managed settings"`), in upper-case hex, then `_`.
pub(crate) fn source_hash(label: &str) -> String {
    let hash = label.chars().fold(2_166_136_261_u32, |h, c| {
        let unit = match c as u32 {
            u if u <= 0xFFFF => u,
            // The high surrogate of a character beyond one unit.
            u => 0xD800 + ((u - 0x1_0000) >> 10),
        };
        (h ^ unit).wrapping_mul(16_777_619)
    });
    format!("{hash:08X}_")
}

/// Writes `label`'s hash into the placeholder pairs of a policy source's
/// `sandbox.credentials.awsPairs`.
pub(crate) fn name_suppressors(settings: &mut Map<String, Value>, label: &str) {
    let pairs = settings
        .get_mut("sandbox")
        .and_then(|s| s.get_mut("credentials"))
        .and_then(|c| c.get_mut("awsPairs"))
        .and_then(Value::as_array_mut);
    let Some(pairs) = pairs else {
        return;
    };
    let hash = source_hash(label);
    for name in pairs
        .iter_mut()
        .filter_map(Value::as_object_mut)
        .flat_map(|p| p.values_mut())
    {
        if let Value::String(s) = name
            && s.starts_with(INVALID_PAIR)
        {
            *s = s.replace(SOURCE_MARK, &hash);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_source_hash_is_the_one_ts_wrote() {
        // Read off TS 0.3.332's degraded pairs for each kind of source.
        assert_eq!(source_hash("remote managed settings"), "487FC9EB_");
        assert_eq!(
            source_hash("/etc/claude-code/managed-settings.json"),
            "5F05A873_"
        );
    }

    #[test]
    fn a_pair_that_would_sign_is_made_inert_and_its_standard_secret_suppressed() {
        let mut made = Suppressors::default();
        let p = made.degrade(
            Some("AWS_ACCESS_KEY_ID"),
            Some("AWS_SECRET_ACCESS_KEY"),
            None,
        );
        assert_eq!(
            p,
            Some(json!({"accessKeyIdVar": "AWS_ACCESS_KEY_ID",
                "secretAccessKeyVar": "_INVALID_PAIR_SECRET_ACCESS_KEY_{source}1_"}))
        );
        assert_eq!(made.extra.len(), 1);
        assert_eq!(made.degrade(Some("MY_KEY"), Some("x y"), None), None);
    }

    #[test]
    fn a_deny_entry_drops_its_meaningless_fields() {
        let e = entry(
            &json!({"path": "/a", "mode": "deny", "extract": 5, "x": 1}),
            "path",
        );
        assert_eq!(e, Some(json!({"path": "/a", "mode": "deny"})));
        assert_eq!(entry(&json!({"path": "/a/", "mode": "mask"}), "path"), None);
    }
}
