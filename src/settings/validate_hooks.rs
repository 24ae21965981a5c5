//! `hooks` as the CLI reads them: an object of events, each a list of
//! matchers, each with a list of hooks of one of five types. An entry that
//! cannot be read is removed from an event that only reacts (`Stop`, ...);
//! under an event whose hooks may guard permissions (`PreToolUse`,
//! `PermissionRequest`, `PreSkillShellCommand`) it leaves the whole source
//! unloadable instead, so a user's file is refused (a policy source drops
//! the key). An unknown event or a value of the wrong shape drops the key.

use serde_json::{Map, Value};

use super::validate_rule::Kind::{self, *};
use super::validate_rule::{Field, opt, req};
use crate::callbacks::hooks::HookEventKind;

/// Events whose hooks may guard permissions: an entry there that cannot be
/// read is not removed.
const GUARDS: &[&str] = &["PreToolUse", "PermissionRequest", "PreSkillShellCommand"];

/// A timeout in seconds.
const TIMEOUT: Kind = Num {
    min: 0.0,
    exclusive: true,
    max: f64::INFINITY,
};

const ON_FAILURE: Kind = OneOf(&["continue", "block"]);

/// Where a hook may run for a cloud session; another value reads as
/// `"skip"`.
const CLOUD: Kind = OneOfElse(&["device", "skip"], "skip");

const COMMAND: &[Field] = &[
    req("type", OneOf(&["command"])),
    req("command", Str),
    opt("args", Strings),
    opt("if", Str),
    opt("shell", OneOf(&["bash", "powershell"])),
    opt("timeout", TIMEOUT),
    opt("onFailure", ON_FAILURE),
    opt("statusMessage", Str),
    opt("once", Bool),
    opt("async", Bool),
    opt("asyncRewake", Bool),
    opt("holdsTools", Bool),
    opt("rewakeMessage", Text),
    opt("rewakeSummary", Text),
    opt("cloud", CLOUD),
];

const PROMPT: &[Field] = &[
    req("type", OneOf(&["prompt"])),
    req("prompt", Str),
    opt("if", Str),
    opt("timeout", TIMEOUT),
    opt("model", Str),
    opt("continueOnBlock", Bool),
    opt("statusMessage", Str),
    opt("once", Bool),
];

const AGENT: &[Field] = &[
    req("type", OneOf(&["agent"])),
    req("prompt", Str),
    opt("if", Str),
    opt("timeout", TIMEOUT),
    opt("model", Str),
    opt("statusMessage", Str),
    opt("once", Bool),
];

const HTTP: &[Field] = &[
    req("type", OneOf(&["http"])),
    req("url", Url),
    opt("if", Str),
    opt("timeout", TIMEOUT),
    opt("onFailure", ON_FAILURE),
    opt("headers", Record(&Str)),
    opt("allowedEnvVars", Strings),
    opt("statusMessage", Str),
    opt("once", Bool),
    opt("cloud", CLOUD),
];

const MCP_TOOL: &[Field] = &[
    req("type", OneOf(&["mcp_tool"])),
    req("server", Str),
    req("tool", Str),
    opt("input", Object),
    opt("if", Str),
    opt("timeout", TIMEOUT),
    // Anything but "continue" reads as "block".
    opt("onFailure", OneOfElse(&["continue"], "block")),
    opt("statusMessage", Str),
    opt("once", Bool),
];

/// The hook types, by their `type`.
const TYPES: &[(&str, &[Field])] = &[
    ("command", COMMAND),
    ("prompt", PROMPT),
    ("agent", AGENT),
    ("http", HTTP),
    ("mcp_tool", MCP_TOOL),
];

/// One matcher: the hooks are read apart, entry by entry.
const MATCHER: &[Field] = &[opt("matcher", Str), req("hooks", Any)];

/// What reading `hooks` found.
pub(crate) enum Hooks {
    /// Read as this.
    Keep(Value),
    /// The key is wrong (dropped).
    Wrong,
    /// A guarding entry cannot be read: the source is unloadable.
    Unloadable,
}

/// `hooks` as the CLI reads them from a user's file (`user`) or a policy
/// source; `check` reads one value by its kind.
pub(crate) fn read_hooks(
    value: Value,
    user: bool,
    check: &dyn Fn(Kind, Value) -> Option<Value>,
) -> Hooks {
    let Value::Object(events) = value else {
        return Hooks::Wrong;
    };
    let mut out = Map::new();
    let mut unloadable = false;
    for (event, matchers) in events {
        if matchers.is_null() {
            continue;
        }
        // The events the CLI knows are the runtime's own list.
        if matches!(
            HookEventKind::from_name(event.as_str()),
            HookEventKind::Other(_)
        ) {
            return Hooks::Wrong;
        }
        let guard = GUARDS.contains(&event.as_str());
        let Value::Array(matchers) = matchers else {
            match guard {
                true => unloadable = true,
                false => return Hooks::Wrong,
            }
            continue;
        };
        let mut kept = Vec::with_capacity(matchers.len());
        for matcher in matchers {
            // Guarding hooks where a matcher belongs may be what guards
            // the permissions beside them: nothing they sit in is applied
            // (a policy reads a guarding event's matchers by their shape).
            if (user || !guard) && holds_guards(&matcher, 3, false) {
                unloadable = true;
                continue;
            }
            match read_matcher(matcher, check) {
                Some((m, whole)) if whole || !guard => kept.push(m),
                Some(_) | None if guard => unloadable = true,
                Some(_) | None => {}
            }
        }
        out.insert(event, Value::Array(kept));
    }
    match unloadable {
        true => Hooks::Unloadable,
        false => Hooks::Keep(Value::Object(out)),
    }
}

/// One matcher with the hooks of it that can be read, and whether they all
/// could; `None` when the matcher itself cannot be read.
fn read_matcher(
    matcher: Value,
    check: &dyn Fn(Kind, Value) -> Option<Value>,
) -> Option<(Value, bool)> {
    let hooks = match matcher.get("hooks") {
        Some(Value::Array(hooks)) => hooks.clone(),
        _ => return None,
    };
    let matcher = check(
        Fields {
            fields: MATCHER,
            open: false,
        },
        matcher,
    )?;
    let Value::Object(mut matcher) = matcher else {
        return None;
    };
    let count = hooks.len();
    let hooks: Vec<Value> = hooks
        .into_iter()
        .filter_map(|h| read_hook(h, check))
        .collect();
    let whole = hooks.len() == count;
    matcher.insert("hooks".into(), Value::Array(hooks));
    Some((Value::Object(matcher), whole))
}

/// One hook as read by its type, or `None` when it cannot be read.
fn read_hook(hook: Value, check: &dyn Fn(Kind, Value) -> Option<Value>) -> Option<Value> {
    check(
        Tagged {
            tag: "type",
            variants: TYPES,
        },
        hook,
    )
}

/// Whether `value` holds, `depth` levels down at most, an object keyed by
/// a guarding event with hooks under it (a non-empty list or any other
/// value but `null`). A hook entry (an object with a string `type` in a
/// `hooks` list) is not looked into.
fn holds_guards(value: &Value, depth: u32, in_hooks_list: bool) -> bool {
    let guards = |o: &Map<String, Value>| {
        o.iter().any(|(k, v)| {
            GUARDS.contains(&k.as_str()) && !v.is_null() && !v.as_array().is_some_and(Vec::is_empty)
        })
    };
    match value {
        Value::Object(o) if guards(o) => true,
        _ if depth == 0 => false,
        Value::Array(items) => items
            .iter()
            .any(|i| holds_guards(i, depth - 1, in_hooks_list)),
        Value::Object(o) if in_hooks_list && o.get("type").is_some_and(Value::is_string) => false,
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| holds_guards(v, depth - 1, k == "hooks" && v.is_array())),
        _ => false,
    }
}
