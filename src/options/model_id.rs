//! The model-ID grammar behind [`match_denied_models`](super::match_denied_models):
//! a Claude model name read into family, major and minor version and what
//! follows (snapshot date, `-fast`, provider revision), through provider
//! prefixes (`us.anthropic.`, a path before `/`) and context tags (`[1m]`).

/// The model families an entry may name alone (`"opus"` blocks every Opus).
pub(super) const FAMILIES: [&str; 4] = ["sonnet", "opus", "haiku", "fable"];

/// Names that stand for a different model per release or setting: a deny-list
/// entry naming one is ignored rather than guessed.
pub(super) const ALIASES: [&str; 9] = [
    "sonnet",
    "opus",
    "haiku",
    "fable",
    "best",
    "sonnet[1m]",
    "opus[1m]",
    "fable[1m]",
    "opusplan",
];

/// Cloud regions a Bedrock-style `<region>.anthropic.` prefix may carry.
const REGIONS: [&str; 7] = ["us", "eu", "apac", "jp", "au", "us-gov", "global"];

/// A model name read by the grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ModelId {
    pub family: String,
    pub major: u32,
    pub minor: Option<u32>,
    /// The `claude-...` stem the version was read from (`claude-opus-4-1`).
    pub base: String,
    /// What follows the stem when it is not a date / `-fast` / revision tail.
    pub trailer: Option<String>,
}

/// Reads `name` as a model ID, or `None` when it is not one.
pub(super) fn parse_model_id(name: &str) -> Option<ModelId> {
    let lowered = name.trim().to_lowercase();
    if lowered.is_empty() || lowered.chars().any(char::is_whitespace) {
        return None;
    }
    let mut t = lowered.as_str();
    for tag in ["[1m]", "[2m]"] {
        if let Some(stripped) = t.strip_suffix(tag) {
            t = stripped;
            break;
        }
    }
    if let Some(slash) = t.rfind('/') {
        t = &t[slash + 1..];
    }
    t = strip_provider_prefix(t)?;
    let (family, major, minor, base_len) = version_stem(t)?;
    let rest = &t[base_len..];
    if !rest.is_empty() && !rest.starts_with(['-', '@']) {
        return None;
    }
    Some(ModelId {
        family,
        major,
        minor,
        base: t[..base_len].to_owned(),
        trailer: (!is_known_tail(rest)).then(|| rest.to_owned()),
    })
}

/// Drops `anthropic.` or `<region>.anthropic.` before a `claude-` name;
/// `None` for a region that is not one.
fn strip_provider_prefix(t: &str) -> Option<&str> {
    const VENDOR: &str = "anthropic.claude-";
    if t.starts_with(VENDOR) {
        return Some(&t["anthropic.".len()..]);
    }
    if let Some(dot) = t.find('.') {
        let (region, after) = (&t[..dot], &t[dot + 1..]);
        let region_shaped =
            !region.is_empty() && region.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
        if region_shaped && after.starts_with(VENDOR) {
            return REGIONS
                .contains(&region)
                .then(|| &after["anthropic.".len()..]);
        }
    }
    Some(t)
}

/// A run of 1 or 2 ASCII digits at the start of `s` with no third after it.
fn short_number(s: &str) -> Option<(u32, usize)> {
    let run = s.bytes().take_while(u8::is_ascii_digit).count();
    if run == 0 || run > 2 {
        return None;
    }
    s[..run].parse().ok().map(|n| (n, run))
}

fn letters(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_lowercase).count()
}

/// `claude-<family>-<major>[-<minor>]` or the older `claude-<major>[-<minor>]-<family>`:
/// family, major, minor and the stem's length.
fn version_stem(t: &str) -> Option<(String, u32, Option<u32>, usize)> {
    let body = t.strip_prefix("claude-")?;
    let at = "claude-".len();
    let fam = letters(body);
    if fam > 0 && body[fam..].starts_with('-') {
        let after = &body[fam + 1..];
        let (major, m_len) = short_number(after)?;
        let mut end = at + fam + 1 + m_len;
        let mut minor = None;
        if let Some(rest) = t[end..].strip_prefix('-')
            && let Some((n, n_len)) = short_number(rest)
        {
            minor = Some(n);
            end += 1 + n_len;
        }
        return Some((body[..fam].to_owned(), major, minor, end));
    }
    let (major, m_len) = short_number(body)?;
    let after_major = at + m_len;
    // The minor is taken only when a family follows it, as the older names do.
    if let Some(rest) = t[after_major..].strip_prefix('-')
        && let Some((n, n_len)) = short_number(rest)
        && let Some(tail) = t[after_major + 1 + n_len..].strip_prefix('-')
        && letters(tail) > 0
    {
        let fam_len = letters(tail);
        let end = after_major + 1 + n_len + 1 + fam_len;
        return Some((tail[..fam_len].to_owned(), major, Some(n), end));
    }
    let tail = t[after_major..].strip_prefix('-')?;
    let fam_len = letters(tail);
    (fam_len > 0).then(|| {
        let end = after_major + 1 + fam_len;
        (tail[..fam_len].to_owned(), major, None, end)
    })
}

fn digits(s: &str, min: usize, max: usize) -> Option<usize> {
    let run = s.bytes().take_while(u8::is_ascii_digit).count();
    (run >= min && run <= max).then_some(run)
}

/// Whether `tail` is `[-fast|-latest][<date>|-v<rev>@<date>][-v<n>[:<n>]]`:
/// what a snapshot or provider spelling adds without naming another model.
fn is_known_tail(tail: &str) -> bool {
    let mut starts = vec![tail];
    for speed in ["-fast", "-latest"] {
        if let Some(rest) = tail.strip_prefix(speed) {
            starts.push(rest);
        }
    }
    starts.into_iter().any(|s| {
        let mut after_date = vec![s];
        if let Some(rest) = s.strip_prefix(['-', '@'])
            && digits(rest, 8, 8) == Some(8)
        {
            after_date.push(&rest[8..]);
        }
        if let Some(rest) = s.strip_prefix("-v")
            && let Some(n) = digits(rest, 1, 3)
            && let Some(date) = rest[n..].strip_prefix('@')
            && digits(date, 8, 8) == Some(8)
        {
            after_date.push(&date[8..]);
        }
        after_date.into_iter().any(is_revision_or_end)
    })
}

fn is_revision_or_end(s: &str) -> bool {
    if s.is_empty() {
        return true;
    }
    let Some(rest) = s.strip_prefix("-v") else {
        return false;
    };
    let Some(n) = digits(rest, 1, 3) else {
        return false;
    };
    let rest = &rest[n..];
    if rest.is_empty() {
        return true;
    }
    rest.strip_prefix(':')
        .is_some_and(|r| digits(r, 1, 3).is_some_and(|m| m == r.len()))
}

/// Removes every `[1m]` / `[2m]` context tag, in any case.
pub(super) fn strip_context_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while !rest.is_empty() {
        let tag = rest.get(..4).is_some_and(|head| {
            head.eq_ignore_ascii_case("[1m]") || head.eq_ignore_ascii_case("[2m]")
        });
        if tag {
            rest = &rest[4..];
        } else {
            let c = rest.chars().next().unwrap_or_default();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}
