//! [`match_denied_models`]: which models a managed `deniedModels` list blocks,
//! computed without a CLI, with the notes that explain surprising entries.
//! The TypeScript SDK's `matchDeniedModels`, as the CLI 2.1.332 era reads it.

use super::model_id::{ALIASES, FAMILIES, ModelId, parse_model_id, strip_context_tags};
use serde_json::Value;

/// What [`match_denied_models`] answers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DeniedModelsMatch {
    /// For each model asked about, in order: whether an entry blocks it.
    pub denied: Vec<bool>,
    /// Notes on entries: why one was ignored, or what one blocks where that may
    /// surprise. Each note once, in the order first met.
    pub warnings: Vec<String>,
}

const CONTEXT_NOTE: &str = " Context-size tags such as [1m] are ignored: the entry blocks the model at every context size.";
const NOT_A_LIST: &str = "\"deniedModels\" was present but is not a list of model names, so it was ignored and blocks no models until it is fixed.";

/// Says which of `models` the `deniedModels` value (`effective.deniedModels` of
/// the resolved settings, as JSON) blocks. Nothing fails: a value that is not a
/// list blocks nothing, an entry that is not a string is skipped, and
/// `warnings` says so.
///
/// Not the CLI's enforcement, so grant nothing by it: `true` means the CLI
/// refuses the model too; `false` promises nothing, as the CLI also judges
/// what an alias or a custom name stands for.
///
/// ```
/// use claude_agent::options::match_denied_models;
/// let list = serde_json::json!(["opus", "claude-sonnet-4-5"]);
/// let m = match_denied_models(
///     &["claude-opus-4-1-20250805", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-haiku-4-5"],
///     Some(&list),
/// );
/// assert_eq!(m.denied, [true, true, false]);
/// ```
pub fn match_denied_models<S: AsRef<str>>(
    models: &[S],
    denied_models: Option<&Value>,
) -> DeniedModelsMatch {
    let list = match denied_models {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(_) => {
            return DeniedModelsMatch {
                denied: vec![false; models.len()],
                warnings: vec![NOT_A_LIST.to_owned()],
            };
        }
    };
    let mut warnings = Vec::new();
    let mut entries = Vec::new();
    for value in list {
        match value.as_str() {
            Some(text) => entries.push(text),
            None => warnings.push(format!(
                "\"deniedModels\" contained a non-string entry ({}); the entry was ignored.",
                json_type(value)
            )),
        }
    }
    let parsed: Vec<(Option<Entry>, Option<String>)> =
        entries.iter().map(|e| parse_entry(e)).collect();
    warnings.extend(parsed.iter().filter_map(|(_, w)| w.clone()));
    let denied = models
        .iter()
        .map(|model| {
            let name = strip_context_tags(model.as_ref().trim()).to_lowercase();
            let id = parse_model_id(&name);
            parsed
                .iter()
                .filter_map(|(entry, _)| entry.as_ref())
                .any(|entry| entry.blocks(&name, id.as_ref()))
        })
        .collect();
    DeniedModelsMatch {
        denied,
        warnings: first_of_each(warnings),
    }
}

/// One deny-list entry as read.
enum Entry {
    /// A bare family (`opus`): every model of it.
    Family(String),
    /// A versioned ID: that version in every spelling and snapshot.
    Model(ModelId),
    /// Not a model ID: that exact name only.
    Literal(String),
}

impl Entry {
    fn blocks(&self, name: &str, id: Option<&ModelId>) -> bool {
        match self {
            Entry::Literal(value) => name == value,
            Entry::Family(family) => {
                id.is_some_and(|id| &id.family == family) || names_word(name, family)
            }
            Entry::Model(entry) => id.is_some_and(|id| version_covers(entry, id)),
        }
    }
}

/// Whether the entry's version takes in the model's: same family and major,
/// the same minor where the entry names one (a model without one is `.0`),
/// and the same trailer or one that extends it.
fn version_covers(entry: &ModelId, model: &ModelId) -> bool {
    if entry.family != model.family || entry.major != model.major {
        return false;
    }
    if entry
        .minor
        .is_some_and(|minor| model.minor.unwrap_or(0) != minor)
    {
        return false;
    }
    let Some(trailer) = &entry.trailer else {
        return true;
    };
    let own = model.trailer.as_deref().unwrap_or("");
    own == trailer || own.starts_with(&format!("{trailer}-"))
}

/// Whether `word` occurs in `text` with no letter or digit either side.
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric())
            && !after.is_some_and(|c| c.is_ascii_alphanumeric())
    })
}

fn parse_entry(raw: &str) -> (Option<Entry>, Option<String>) {
    let lowered = raw.trim().to_lowercase();
    let name = strip_context_tags(&lowered).trim().to_owned();
    let context = if name != lowered { CONTEXT_NOTE } else { "" };
    let shown = display(raw);
    if name.is_empty() {
        return (
            None,
            Some("An empty deniedModels entry was ignored.".to_owned()),
        );
    }
    if FAMILIES.contains(&name.as_str()) {
        let warning = (!context.is_empty())
            .then(|| format!("\"{shown}\" blocks every {} model.{context}", title(&name)));
        return (Some(Entry::Family(name)), warning);
    }
    if ALIASES.contains(&name.as_str()) || name == "default" {
        return (
            None,
            Some(format!(
                "\"{shown}\" was ignored: it names a different model depending on the release and settings. Name the model instead, for example \"claude-opus-5-5\"."
            )),
        );
    }
    let direct = parse_model_id(&name);
    let spelled = if direct.is_some() || name.starts_with("claude-") {
        name.clone()
    } else {
        format!("claude-{name}")
    };
    let id = direct.or_else(|| {
        (spelled != name)
            .then(|| parse_model_id(&spelled))
            .flatten()
    });
    let Some(id) = id else {
        let warning = literal_warning(raw, &name);
        return (Some(Entry::Literal(name)), Some(warning));
    };
    let after_stem = spelled
        .rfind(&id.base)
        .map_or("", |at| &spelled[at + id.base.len()..]);
    let dropped = if id.trailer.is_none() && !after_stem.is_empty() {
        format!(" \"{}\" is ignored.", display(after_stem))
    } else {
        String::new()
    };
    let warning = (!context.is_empty() || !dropped.is_empty())
        .then(|| format!("\"{shown}\" blocks {}.{dropped}{context}", covers(&id)));
    (Some(Entry::Model(id)), warning)
}

fn covers(id: &ModelId) -> String {
    let family = title(&id.family);
    match id.minor {
        None => format!("every {family} {}.x model", id.major),
        Some(minor) => format!(
            "{family} {}.{minor} in every spelling and snapshot",
            id.major
        ),
    }
}

/// The note for an entry that blocks one exact name, with the likely fix.
fn literal_warning(raw: &str, name: &str) -> String {
    let base = format!(
        "\"{}\" blocks only the exact model name \"{}\"; other spellings of the same model are not blocked.",
        display(raw),
        display(name)
    );
    let hyphenated = dots_to_hyphens(name);
    if hyphenated != name {
        let id = if hyphenated.starts_with("claude-") {
            hyphenated
        } else {
            format!("claude-{hyphenated}")
        };
        if parse_model_id(&id).is_some() {
            return format!(
                "{base} To block a version, write it with a hyphen: \"{}\".",
                display(&id)
            );
        }
    }
    if let Some((family, major, minor)) = family_and_version(name) {
        return match minor {
            Some(minor) => format!(
                "{base} To block a version, write its model ID, for example \"claude-{family}-{major}-{minor}\"."
            ),
            None => format!(
                "{base} To block only version {major}, write \"claude-{family}-{major}-0\"; \"claude-{family}-{major}\" blocks every {} {major}.x model.",
                title(family)
            ),
        };
    }
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase()) {
        return match FAMILIES.iter().find(|f| one_edit_apart(name, f)) {
            Some(family) => format!(
                "{base} If you meant the {} family, write \"{family}\".",
                title(family)
            ),
            None => format!(
                "{base} To block a model family other than sonnet, opus, haiku or fable, list its versioned IDs."
            ),
        };
    }
    base
}

/// `opus 4` / `opus 4.1`: a family, spaces, a version.
fn family_and_version(name: &str) -> Option<(&'static str, &str, Option<&str>)> {
    let family = FAMILIES.iter().find(|f| name.starts_with(**f))?;
    let rest = &name[family.len()..];
    let version = rest.trim_start();
    if version.len() == rest.len() {
        return None;
    }
    let (major, minor) = match version.split_once('.') {
        Some((major, minor)) => (major, Some(minor)),
        None => (version, None),
    };
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (numeric(major) && minor.is_none_or(numeric)).then_some((family, major, minor))
}

/// `4.5` -> `4-5`, each digit-dot-digit once, left to right.
fn dots_to_hyphens(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len()
            && chars[i].is_ascii_digit()
            && chars[i + 1] == '.'
            && chars[i + 2].is_ascii_digit()
        {
            out.extend([chars[i], '-', chars[i + 2]]);
            i += 3;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// Whether one insertion, deletion, substitution or swap of neighbours turns
/// `a` into `b` (and they differ).
fn one_edit_apart(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[prefix..], &b[prefix..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Less => ra == &rb[1..],
        std::cmp::Ordering::Greater => &ra[1..] == rb,
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
    }
}

/// Text shown in a note: control characters as `?`, at most 128 characters.
fn display(text: &str) -> String {
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    match clean.char_indices().nth(128) {
        Some((cut, _)) => format!("{}…", &clean[..cut]),
        None => clean,
    }
}

fn title(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

/// The JavaScript `typeof` a settings reader would name the value by.
fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) | Value::Object(_) => "object",
    }
}

fn first_of_each(notes: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    notes
        .into_iter()
        .filter(|n| seen.insert(n.clone()))
        .collect()
}

#[cfg(test)]
#[path = "denied_models_tests.rs"]
mod tests;
