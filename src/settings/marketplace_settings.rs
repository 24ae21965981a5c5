//! A `settings` marketplace source: a marketplace declared inline, its
//! name (TS `xE`: no reserved nor impersonating name) and its plugin
//! entries (TS `sb`: the plugin-manifest entry with its remote sources,
//! `headersHelper` and `engines`). Tables and leaf tests of
//! `validate_shapes.rs`.

use super::validate_rule::Kind::{self, *};
use super::validate_rule::{Field, Special, coerced, opt, req};
use serde_json::Value;

/// Names an official marketplace holds (TS `ol`).
const OFFICIAL: &[&str] = &[
    "claude-code-marketplace",
    "claude-code-plugins",
    "claude-plugins-official",
    "anthropic-marketplace",
    "anthropic-plugins",
    "agent-skills",
    "anthropic-agent-skills",
    "life-sciences",
    "knowledge-work-plugins",
    "claude-for-legal",
    "claude-for-financial-services",
    "financial-services-plugins",
    "first-party-plugins",
    "claude-tag-plugins",
    "claude-community",
    "claude-plugins-community",
    "healthcare",
    "anthropic-plugin-directory",
    "claude-plugin-directory",
];

/// Names kept for Claude Code's own plugin sets (TS `cp`).
const BUILT_IN: &[&str] = &[
    "inline",
    "builtin",
    "skills-dir",
    "synced",
    "claude-plugin-test",
];

/// TS `bp`: control and bidirectional-formatting characters.
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The rest of `s` after any characters that are not `[a-z0-9]` (`s`
/// lower-cased).
fn skip_separators(s: &str) -> &str {
    s.trim_start_matches(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
}

/// TS `kE`/`vE`: `official` next to `anthropic`/`claude`, or a name
/// beginning `anthropic`/`claude` then `marketplace`, `plugins` or
/// `official`, case-insensitively.
fn impersonates(name: &str) -> bool {
    let lower = name.to_lowercase();
    let brands = ["anthropic", "claude"];
    let after = |word: &str, next: &[&str]| {
        lower.match_indices(word).any(|(i, w)| {
            let rest = skip_separators(&lower[i + w.len()..]);
            next.iter().any(|n| rest.starts_with(n))
        })
    };
    if after("official", &brands) || brands.iter().any(|b| after(b, &["official"])) {
        return true;
    }
    brands.iter().any(|b| {
        lower
            .strip_prefix(b)
            .map(skip_separators)
            .is_some_and(|rest| {
                ["marketplace", "plugins", "official"]
                    .iter()
                    .any(|n| rest.starts_with(n))
            })
    })
}

/// A `settings` marketplace's name (TS `xE`).
pub(crate) fn is_marketplace_name(name: &str) -> bool {
    let lower = name.to_lowercase();
    !name.is_empty()
        && !name.contains(' ')
        && !name.chars().any(is_hidden)
        && !name.contains(['/', '\\'])
        && !name.contains("..")
        && name != "."
        && !OFFICIAL.contains(&lower.as_str())
        && !BUILT_IN.contains(&lower.as_str())
        && !name.chars().any(|c| !(' '..='~').contains(&c))
        && !impersonates(name)
}

/// A plugin's name (TS `UE`).
pub(crate) fn is_plugin_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(' ') && !name.chars().any(is_hidden)
}

/// A command shown for consent (TS `rp`, a `command` source's command):
/// at most 500 printable ASCII characters, no run of four spaces.
pub(crate) fn is_consent_command(s: &str) -> bool {
    s.len() <= 500 && s.chars().all(|c| (' '..='~').contains(&c)) && !s.contains("    ")
}

fn is_command(s: &str) -> bool {
    !s.is_empty() && is_consent_command(s)
}

/// A full lower-case git commit SHA.
fn is_sha(s: &str) -> bool {
    s.len() == 40
        && s.chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
}

/// A SHA-256 digest in hex.
fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit())
}

/// A plugin's npm package: a reference naming a scheme, or one with no
/// `..` (TS `pp().or(...)`).
fn is_plugin_package(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let scheme = lower.split_once(':').is_some_and(|(scheme, _)| {
        [
            "file",
            "http",
            "https",
            "git",
            "git+http",
            "git+https",
            "git+ssh",
            "ssh",
            "github",
            "gitlab",
            "bitbucket",
        ]
        .contains(&scheme)
    });
    scheme || !s.contains("..")
}

/// Fields every git-hosted plugin source may carry.
const fn git(first: [Field; 2]) -> [Field; 4] {
    let [a, b] = first;
    [
        a,
        b,
        opt("ref", Str),
        opt("sha", Special(Special::StrWhere(is_sha))),
    ]
}

const PLUGIN_GITHUB: [Field; 4] = git([req("source", Str), req("repo", Str)]);
const PLUGIN_URL: [Field; 4] = git([req("source", Str), req("url", Str)]);
const PLUGIN_GIT_SUBDIR: [Field; 5] = {
    let [a, b, c, d] = git([req("source", Str), req("url", Str)]);
    [a, b, req("path", Text), c, d]
};

/// A plugin's remote sources, by `source` (TS `rb` bar its relative path
/// and `unsupported`, which a settings marketplace refuses).
const PLUGIN_SOURCES: &[(&str, &[Field])] = &[
    (
        "npm",
        &[
            req("source", Str),
            req("package", Special(Special::StrWhere(is_plugin_package))),
            opt("version", Str),
            opt("registry", Special(Special::HttpUrl)),
        ],
    ),
    ("url", &PLUGIN_URL),
    ("github", &PLUGIN_GITHUB),
    ("git-subdir", &PLUGIN_GIT_SUBDIR),
    (
        "archive",
        &[
            req("source", Str),
            req("url", Special(Special::ArchiveUrl)),
            opt("sha256", Special(Special::StrWhere(is_sha256))),
        ],
    ),
    (
        "command",
        &[
            req("source", Str),
            req("command", Special(Special::StrWhere(is_command))),
            opt("timeout", Special(Special::PositiveIntUpTo(600))),
            opt("mode", OneOf(&["copy", "link"])),
        ],
    ),
];

/// A `settings` source one of whose plugins names a kind of source this
/// version does not know (TS `_p`): it refuses a user's file whole.
pub(crate) fn has_unknown_plugin_kind(source: &Value) -> bool {
    const KNOWN: &[&str] = &[
        "npm",
        "url",
        "github",
        "git-subdir",
        "archive",
        "command",
        "unsupported",
    ];
    source.get("source").and_then(Value::as_str) == Some("settings")
        && source
            .get("plugins")
            .and_then(Value::as_array)
            .is_some_and(|plugins| {
                plugins.iter().any(|p| {
                    p.get("source")
                        .and_then(|s| s.get("source"))
                        .and_then(Value::as_str)
                        .is_some_and(|k| !KNOWN.contains(&k))
                })
            })
}

/// A `headersHelper`.
pub(crate) const HEADERS_HELPER: Kind = Special(Special::StrWhere(is_consent_command));

/// One plugin entry of a `settings` marketplace (TS `sb`).
const PLUGIN_ENTRY: &[Field] = &[
    req("name", Special(Special::StrWhere(is_plugin_name))),
    req(
        "source",
        Tagged {
            tag: "source",
            variants: PLUGIN_SOURCES,
        },
    ),
    opt("description", Str),
    opt("version", Str),
    opt("strict", Bool),
    // Anything but an object reads as unset.
    coerced("engines", Object),
    opt("headers", Record(&Str)),
    opt("headersHelper", HEADERS_HELPER),
];

/// A marketplace's owner (TS `HE`).
const OWNER: &[Field] = &[req("name", Text), opt("email", Str), opt("url", Str)];

/// The fields of a `settings` marketplace source.
pub(crate) const SETTINGS_SOURCE: &[Field] = &[
    req("source", Str),
    req("name", Special(Special::StrWhere(is_marketplace_name))),
    req(
        "plugins",
        List(&Fields {
            fields: PLUGIN_ENTRY,
            open: false,
        }),
    ),
    opt(
        "owner",
        Fields {
            fields: OWNER,
            open: false,
        },
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_and_impersonating_names_are_refused() {
        for bad in [
            "",
            "a b",
            "claude-plugins-official",
            "Anthropic-Marketplace",
            "builtin",
            "official-claude",
            "claude_official_x",
            "anthropic-plugins-extra",
            "x/y",
            "a..b",
            ".",
            "caf\u{e9}",
        ] {
            assert!(!is_marketplace_name(bad), "{bad:?}");
        }
        for good in ["acme", "my-claude-tools", "team.plugins", "claudette"] {
            assert!(is_marketplace_name(good), "{good:?}");
        }
    }
}
