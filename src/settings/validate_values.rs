//! The value tests of the settings schema that its kinds name but do not
//! compose: `http(s)` URLs (parsed by `url_host.rs`), clock times, safe
//! integers, MCP server names and entries, permission modes. Leaves of
//! `validate.rs`.

use serde_json::{Map, Value};

use super::url_host::{parse_url, zod_url};

/// A JavaScript safe integer (a whole `1.0` counts, as in JSON it is 1).
pub(crate) fn is_safe_int(n: &serde_json::Number) -> Option<i64> {
    const SAFE: f64 = 9_007_199_254_740_991.0;
    if let Some(i) = n.as_i64() {
        return (i.unsigned_abs() as f64 <= SAFE).then_some(i);
    }
    let x = n.as_f64()?;
    (x.fract() == 0.0 && x.abs() <= SAFE).then_some(x as i64)
}

/// `s` as TS keeps an `http(s)` URL (TS `$4` after zod's URL check): it
/// begins `http://` or `https://` and a host, and parses with one of
/// those schemes.
pub(crate) fn http_url(s: &str) -> Option<String> {
    let value = zod_url(s)?;
    let lower = value.get(..8).unwrap_or(&value).to_ascii_lowercase();
    let rest = ["https://", "http://"]
        .iter()
        .find_map(|p| lower.starts_with(p).then(|| value.get(p.len()..)))
        .flatten();
    let hosted = rest.is_some_and(|r| r.chars().next().is_some_and(|c| c != '/' && c != '\\'));
    let scheme = parse_url(&value).map(|p| p.scheme);
    (hosted && matches!(scheme.as_deref(), Some("http" | "https"))).then_some(value)
}

/// An npm package's name (`name` or `@scope/name`, lower-case, no `..`
/// nor `//`) or a whole scope (`@scope/*`).
pub(crate) fn is_npm_package(s: &str) -> bool {
    let part = |p: &str| {
        p.chars()
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            && p.chars().all(|c| {
                c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '_')
            })
    };
    let scoped = s.strip_prefix('@').and_then(|r| r.split_once('/'));
    if let Some((scope, "*")) = scoped {
        return part(scope);
    }
    let name_ok = match scoped {
        Some((scope, name)) => part(scope) && part(name),
        None => part(s),
    };
    name_ok && !s.contains("..") && !s.contains("//")
}

/// `H:MM` or `HH:MM` on a 24-hour clock.
pub(crate) fn is_clock(s: &str) -> bool {
    let Some((h, m)) = s.split_once(':') else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    digits(h)
        && h.len() <= 2
        && digits(m)
        && m.len() == 2
        && h.parse::<u8>().is_ok_and(|h| h < 24)
        && m.as_bytes()[0] < b'6'
}

/// What the CLI takes for one MCP server's name.
pub(crate) fn is_server_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// One entry naming an MCP server by exactly one of its name, command or
/// URL; other fields are dropped. An allowed server's name is letters,
/// digits, `_` and `-`; a denied one's is not blank nor padded.
pub(crate) fn server_entry(mut entry: Map<String, Value>, denied: bool) -> Option<Value> {
    entry.retain(|k, _| matches!(k.as_str(), "serverName" | "serverCommand" | "serverUrl"));
    let name_ok = match entry.get("serverName") {
        None => true,
        Some(Value::String(n)) if denied => !n.trim().is_empty() && n.trim() == n,
        Some(Value::String(n)) => is_server_name(n),
        Some(_) => false,
    };
    let command_ok = match entry.get("serverCommand") {
        None => true,
        Some(Value::Array(c)) => !c.is_empty() && c.iter().all(Value::is_string),
        Some(_) => false,
    };
    let url_ok = entry.get("serverUrl").is_none_or(Value::is_string);
    (name_ok && command_ok && url_ok && entry.len() == 1).then_some(Value::Object(entry))
}

/// The permission modes `permissions.defaultMode` may name.
pub(crate) const PERMISSION_MODES: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "plan",
];
