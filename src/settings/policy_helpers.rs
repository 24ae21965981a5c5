//! `policyHelpers`: one helper entry per platform (`macos`, `linux`,
//! `windows`, `wsl`) and a static `default` payload, as the CLI's schema
//! reads them. An entry runs a helper (`path`, or `script` with its
//! `interpreter`) and/or carries `defaultSettings`; its path must be
//! absolute and normalized for its platform. A user's file with a wrong
//! entry loses the key; a policy source drops the entry alone. Learnt from
//! the TypeScript SDK 0.3.332 and checked against its recorded answers.

use serde_json::{Map, Value};

use super::validate_values::is_safe_int;

/// The platforms, then the static payload.
const PLATFORMS: &[&str] = &["macos", "linux", "windows", "wsl"];

/// An entry's fields, which a payload must not hold.
const ENTRY_FIELDS: &[&str] = &[
    "path",
    "script",
    "interpreter",
    "outputBehavior",
    "onFailure",
    "retries",
    "timeoutMs",
    "refreshIntervalMs",
    "defaultSettings",
];

/// A helper's output envelope, which a payload must not be.
const ENVELOPE: &[&str] = &["managedSettings", "appendSystemPrompt"];

/// The longest timer JavaScript keeps.
const TIMER_CAP: i64 = 2_147_483_647;

/// Control, separator or default-ignorable characters.
fn is_hidden(c: char) -> bool {
    matches!(c as u32,
        0..=0x1F | 0x7F..=0x9F | 0x2028 | 0x2029 | 0xAD | 0x34F | 0x61C
        | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F | 0x200B..=0x200F
        | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F | 0xFEFF
        | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// A POSIX helper path: absolute, normalized, not under a network
/// automount or a kernel magic-link root.
fn posix_path_ok(p: &str) -> bool {
    let lower = p.to_ascii_lowercase();
    let under = |root: &str| lower == root || lower.starts_with(&format!("{root}/"));
    let first = lower.split('/').nth(1).unwrap_or_default();
    let network = under("/net")
        || under("/network/servers")
        || matches!(first, ".vol" | ".file" | ".nofollow" | ".resolve");
    let magic = [
        "/proc",
        "/dev/fd",
        "/dev/stdin",
        "/dev/stdout",
        "/dev/stderr",
    ]
    .iter()
    .any(|r| under(r));
    p.starts_with('/')
        && !network
        && !magic
        && !p.split('/').any(|s| s == "." || s == "..")
        && !p.contains("//")
        && (!p.ends_with('/') || p == "/")
}

/// A Windows helper path: a drive's absolute, normalized path to an
/// `.exe` or `.ps1` (a `.ps1` without PowerShell's wildcard characters).
fn windows_path_ok(p: &str) -> bool {
    let r = p.replace('/', "\\");
    let b = r.as_bytes();
    let drive = b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'\\';
    let lower = r.to_ascii_lowercase();
    let ps1 = lower.ends_with(".ps1");
    let segments: Vec<&str> = r.split('\\').collect();
    let segments_ok = segments.iter().enumerate().all(|(i, s)| {
        *s != "."
            && *s != ".."
            && !s.ends_with(['.', ' '])
            && (!s.contains(':') || (i == 0 && s.len() == 2))
    });
    drive
        && segments_ok
        && !r.contains("\\\\")
        && !r.ends_with('\\')
        && (lower.ends_with(".exe") || ps1)
        && !(ps1 && r.contains(['[', ']', '`', '*', '?']))
}

fn path_ok(platform: &str, p: &str) -> bool {
    p.encode_utf16().count() <= 1024
        && !p.chars().any(is_hidden)
        && match platform {
            "windows" => windows_path_ok(p),
            _ => posix_path_ok(p),
        }
}

/// A static settings payload: an object that is not an entry, an
/// envelope, a map of helpers, nor configures helpers.
fn payload_ok(v: &Value) -> bool {
    let Some(o) = v.as_object() else {
        return false;
    };
    let set = |k: &&str| o.get(*k).is_some_and(|v| !v.is_null());
    let platforms_and_default = PLATFORMS.iter().chain(&["default"]);
    !["policyHelper", "policyHelpers"].iter().any(set)
        && !ENTRY_FIELDS.iter().any(set)
        && !ENVELOPE.iter().any(set)
        && !platforms_and_default.into_iter().any(set)
}

/// A whole number from `from`, read capped at `cap`.
fn capped(v: &Value, from: i64, cap: i64) -> Option<Value> {
    let n = is_safe_int(v.as_number()?)?;
    (n >= from).then(|| Value::from(n.min(cap)))
}

/// One platform's entry as read: `Ok(None)` when it reads as unset,
/// `Err(())` when wrong.
fn entry(platform: &str, v: &Value) -> Result<Option<Value>, ()> {
    let o = match v {
        Value::Null => return Ok(None),
        Value::Object(o) => o,
        _ => return Err(()),
    };
    // `null` in place of every helper and payload: unset.
    let helpers = ["path", "script", "defaultSettings"];
    if helpers
        .iter()
        .any(|k| o.get(*k).is_some_and(Value::is_null))
        && helpers.iter().all(|k| o.get(*k).is_none_or(Value::is_null))
    {
        return Ok(None);
    }
    let mut out = Map::new();
    for (k, v) in o.iter().filter(|(_, v)| !v.is_null()) {
        let read = match k.as_str() {
            "path" => v
                .as_str()
                .filter(|p| path_ok(platform, p))
                .map(|_| v.clone()),
            "script" => v
                .as_str()
                .filter(|s| {
                    !s.is_empty()
                        && s.encode_utf16().count() <= 65_536
                        && !s.contains('\0')
                        && (platform != "windows" || s.is_ascii())
                })
                .map(|_| v.clone()),
            "interpreter" => {
                let wanted = if platform == "windows" { "pwsh" } else { "sh" };
                (v.as_str() == Some(wanted)).then(|| v.clone())
            }
            "outputBehavior" => matches!(v.as_str(), Some("replace" | "merge")).then(|| v.clone()),
            // Any other failure answer reads as the safe one.
            "onFailure" => Some(match v.as_str() {
                Some("continue") => v.clone(),
                _ => Value::String("refuse".into()),
            }),
            "retries" => capped(v, 0, 5),
            "timeoutMs" => capped(v, 1000, TIMER_CAP),
            "refreshIntervalMs" => match v.as_f64() {
                Some(0.0) => Some(Value::from(0)),
                _ => capped(v, 60_000, TIMER_CAP),
            },
            "defaultSettings" => payload_ok(v).then(|| v.clone()),
            _ => continue,
        };
        out.insert(k.clone(), read.ok_or(())?);
    }
    let (path, script) = (out.contains_key("path"), out.contains_key("script"));
    let wrong = (path && script)
        || script != out.contains_key("interpreter")
        || !(path || script || out.contains_key("defaultSettings"));
    match wrong {
        true => Err(()),
        false => Ok(Some(Value::Object(out))),
    }
}

/// `policyHelpers` as read; `None` when wrong. A `policy` source drops a
/// wrong entry alone.
pub(crate) fn policy_helpers(v: &Value, policy: bool) -> Option<Value> {
    let o = v.as_object()?;
    let mut out = Map::new();
    for (k, v) in o {
        let read = match k.as_str() {
            "default" if v.is_null() => Ok(None),
            "default" => payload_ok(v).then(|| Some(v.clone())).ok_or(()),
            p if PLATFORMS.contains(&p) => entry(p, v),
            _ => continue,
        };
        match read {
            Ok(Some(v)) => {
                out.insert(k.clone(), v);
            }
            Ok(None) => {}
            Err(()) if policy => {}
            Err(()) => return None,
        }
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_be_absolute_and_normalized_for_their_platform() {
        for ok in ["/usr/bin/h", "/opt/a b/h"] {
            assert!(path_ok("linux", ok), "{ok}");
        }
        for bad in [
            "rel",
            "/a/../b",
            "/a//b",
            "/a/",
            "/proc/self/exe",
            "/net/host/h",
            "/a\u{200B}",
        ] {
            assert!(!path_ok("linux", bad), "{bad}");
        }
        assert!(path_ok("windows", "C:\\tools\\h.exe"));
        assert!(path_ok("windows", "C:/tools/h.ps1"));
        for bad in [
            "C:\\\\h.exe",
            "\\\\srv\\share\\h.exe",
            "C:h.exe",
            "C:\\h",
            "C:\\a.\\h.exe",
            "C:\\[x].ps1",
        ] {
            assert!(!path_ok("windows", bad), "{bad}");
        }
    }

    #[test]
    fn an_entry_needs_one_helper_or_a_payload() {
        use serde_json::json;
        assert!(
            entry(
                "linux",
                &json!({"path": "/a", "script": "x", "interpreter": "sh"})
            )
            .is_err()
        );
        assert!(entry("linux", &json!({"script": "x"})).is_err());
        assert!(entry("linux", &json!({})).is_err());
        assert_eq!(entry("macos", &json!({"path": null})), Ok(None));
        assert_eq!(
            entry(
                "linux",
                &json!({"script": "x", "interpreter": "sh", "retries": 9, "onFailure": "x"})
            ),
            Ok(Some(
                json!({"script": "x", "interpreter": "sh", "retries": 5, "onFailure": "refuse"})
            ))
        );
    }
}
