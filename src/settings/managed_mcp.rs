//! `managedMcpServers`' servers, as the CLI reads a policy's: a server
//! whose name or configuration it refuses is dropped alone. Only `http`
//! (or `streamable-http`, read as `http`) and `sse` servers at an
//! `https:` URL, naming no program to run (`command`, `args`, `env`,
//! `headersHelper`), with no control or format characters and no
//! `${VAR}` references, and whose fields are of their kinds. Learnt from
//! the TypeScript SDK 0.3.332 and checked against its recorded answers.

use serde_json::{Map, Value};

use super::url_host::{https_host, zod_url};

/// Fields that would name a program to run.
const FORBIDDEN: &[&str] = &["command", "args", "env", "headersHelper"];

/// The longest `url`, and the longest OAuth metadata URL.
const URL_MAX: usize = 65_536;
const METADATA_URL_MAX: usize = 4_096;

/// The longest timeout a `request_timeout_ms` becomes.
const REQUEST_TIMEOUT_CAP: i64 = 300_000;

/// A server's name: letters, digits, `_` and `-`, and not a name that
/// would reach an object's prototype.
pub(crate) fn is_managed_name(name: &str) -> bool {
    let prototype = [
        "constructor",
        "prototype",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
    ];
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !prototype.contains(&name)
}

/// A control or format character (Unicode `Cc`, `Cf`) or a line or
/// paragraph separator.
fn is_invisible(c: char) -> bool {
    c.is_control()
        || matches!(c as u32,
            0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2
            | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x2064
            | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD
            | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
            | 0xE0001 | 0xE0020..=0xE007F)
}

/// A `${NAME}` or `${NAME:-default}` reference.
fn has_var_reference(s: &str) -> bool {
    s.match_indices("${").any(|(i, _)| {
        let rest = &s[i + 2..];
        let mut chars = rest.char_indices();
        let first_ok = chars
            .next()
            .is_some_and(|(_, c)| c.is_ascii_alphabetic() || c == '_');
        if !first_ok {
            return false;
        }
        let end = rest
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map(|(j, _)| j);
        match end.map(|j| &rest[j..]) {
            Some(after) if after.starts_with('}') => true,
            Some(after) => after.strip_prefix(":-").is_some_and(|d| d.contains('}')),
            None => false,
        }
    })
}

/// Whether a key or string at most five levels into `v` holds an
/// invisible character, or a string a `${VAR}` reference.
fn smuggles(v: &Value, depth: u32) -> bool {
    let entries: Vec<(String, &Value)> = match v {
        Value::String(s) => return s.chars().any(is_invisible) || has_var_reference(s),
        _ if depth > 4 => return false,
        Value::Object(o) => o.iter().map(|(k, v)| (k.clone(), v)).collect(),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), v))
            .collect(),
        _ => return false,
    };
    entries
        .iter()
        .any(|(k, v)| k.chars().any(is_invisible) || smuggles(v, depth + 1))
}

fn positive_int(v: &Value) -> Option<i64> {
    v.as_f64()
        .filter(|x| x.fract() == 0.0 && *x > 0.0 && *x <= 9_007_199_254_740_991.0)
        .map(|x| x as i64)
}

fn strings_record(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.values().all(Value::is_string))
}

/// `oauth`: closed, each field of its kind.
fn oauth(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let mut out = Map::new();
    for (k, v) in o {
        let ok = match k.as_str() {
            "clientId" => v.is_string(),
            "callbackPort" => positive_int(v).is_some(),
            // zod's URL check leaves the value trimmed for the prefix test
            // and keeps it so.
            "authServerMetadataUrl" => {
                let url = v
                    .as_str()
                    .filter(|u| u.chars().count() <= METADATA_URL_MAX)
                    .and_then(zod_url)
                    .filter(|u| u.starts_with("https://"));
                match url {
                    Some(url) => {
                        out.insert(k.clone(), Value::String(url));
                        continue;
                    }
                    None => false,
                }
            }
            "scopes" => v.as_str().is_some_and(|s| !s.is_empty()),
            "xaa" => v.is_boolean(),
            _ => continue,
        };
        if !ok {
            return None;
        }
        out.insert(k.clone(), v.clone());
    }
    Some(Value::Object(out))
}

/// One server's configuration as the CLI keeps it, or `None`.
pub(crate) fn managed_server(value: &Value) -> Option<Value> {
    let o = value.as_object()?;
    if FORBIDDEN.iter().any(|k| o.contains_key(*k)) || smuggles(value, 0) {
        return None;
    }
    let kind = match o.get("type")?.as_str()? {
        "http" | "streamable-http" => "http",
        "sse" => "sse",
        _ => return None,
    };
    let url = o.get("url")?.as_str()?;
    // TS `pVe`: `new URL()` reads an `https` URL with a host.
    let https = https_host(url).is_some() && url.chars().count() <= URL_MAX;
    if !https {
        return None;
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::String(kind.into()));
    out.insert("url".into(), Value::String(url.into()));
    let mut request_timeout = None;
    for (k, v) in o {
        let read = match k.as_str() {
            "headers" => strings_record(v).then(|| v.clone()),
            "oauth" => oauth(v),
            "timeout" => positive_int(v).map(Value::from),
            "alwaysLoad" | "bareElicitationCapability" | "discoveryCache" => {
                v.is_boolean().then(|| v.clone())
            }
            "tools" => v
                .as_array()
                .and_then(|tools| tools.iter().map(tool).collect::<Option<Vec<_>>>())
                .map(Value::Array),
            "toolPermissions" => v
                .as_object()
                .is_some_and(|p| {
                    p.values()
                        .all(|m| matches!(m.as_str(), Some("allow" | "ask" | "blocked")))
                })
                .then(|| v.clone()),
            // Lenient: a wrong one is dropped alone.
            "request_timeout_ms" => {
                request_timeout = positive_int(v);
                continue;
            }
            "displayName" if v.is_string() => Some(v.clone()),
            "role" if v.as_str() == Some("comms") => Some(v.clone()),
            _ => continue,
        };
        out.insert(k.clone(), read?);
    }
    // A request timeout stands for a missing timeout, capped.
    if let Some(ms) = request_timeout
        && !out.contains_key("timeout")
    {
        out.insert("timeout".into(), Value::from(ms.min(REQUEST_TIMEOUT_CAP)));
    }
    Some(Value::Object(out))
}

/// One of a server's `tools`.
fn tool(v: &Value) -> Option<Value> {
    let o = v.as_object()?;
    let mut out = Map::new();
    out.insert(
        "name".into(),
        Value::String(o.get("name")?.as_str()?.into()),
    );
    if let Some(p) = o.get("permission_policy") {
        match p.as_str() {
            Some("always_allow" | "always_ask" | "always_deny") => {
                out.insert("permission_policy".into(), p.clone());
            }
            _ => return None,
        }
    }
    Some(Value::Object(out))
}

/// `managedMcpServers`: the servers the CLI keeps; `None` when it is not
/// an object.
pub(crate) fn managed_servers(value: &Value) -> Option<Value> {
    let servers = value.as_object()?;
    let kept = servers.iter().filter_map(|(name, server)| {
        is_managed_name(name)
            .then(|| managed_server(server))
            .flatten()
            .map(|s| (name.clone(), s))
    });
    Some(Value::Object(kept.collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_https_server_is_kept_and_a_program_is_not() {
        let s = json!({"type": "streamable-http", "url": "https://x.example", "request_timeout_ms": 900000});
        assert_eq!(
            managed_server(&s),
            Some(json!({"type": "http", "url": "https://x.example", "timeout": 300000}))
        );
        for bad in [
            json!({"type": "http", "url": "http://x.example"}),
            json!({"type": "stdio", "command": "x"}),
            json!({"type": "sse", "url": "https://x", "headers": {"a": "${TOKEN}"}}),
            json!({"type": "sse", "url": "https://x", "headers": {"a": "b\u{200B}"}}),
            json!({"type": "sse", "url": "https://x", "env": {}}),
        ] {
            assert_eq!(managed_server(&bad), None, "{bad}");
        }
    }

    #[test]
    fn names_reaching_a_prototype_are_refused() {
        assert!(is_managed_name("my-server_1"));
        assert!(is_managed_name("hasOwnProperty"));
        for bad in ["__proto__", "constructor", "prototype", "a b", ""] {
            assert!(!is_managed_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_var_reference_needs_its_closing_brace() {
        assert!(has_var_reference("a ${B} c"));
        assert!(has_var_reference("${B:-x}"));
        assert!(!has_var_reference("${B"));
        assert!(!has_var_reference("${1B}"));
        assert!(!has_var_reference("$B"));
    }
}
