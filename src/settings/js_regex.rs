//! Whether a credential's `extract` pattern is one the CLI takes: a
//! JavaScript regular expression (no flags, so Annex B's lenient syntax)
//! with at least one capturing group. A reading of that syntax's errors,
//! not JavaScript's parser: unclosed or unopened groups and classes, an
//! unknown `(?` group, a quantifier with nothing to repeat, `{n,m}` out of
//! order, a class range out of order, a trailing `\`.

/// One step of the pattern after an atom: whether a quantifier may follow.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// Start, `|` or `(`: nothing to repeat.
    Nothing,
    /// An atom.
    Atom,
    /// A quantifier (a `?` after it makes it lazy, once).
    Quantifier,
    /// A lookbehind or an assertion (`^`, `$`, `\b`, `\B`): nothing to
    /// repeat either.
    Assertion,
}

/// `{n}`, `{n,}` or `{n,m}` at the start of `rest`: its length and whether
/// its bounds are in order; `None` when it is a literal `{`.
fn braces(rest: &[char]) -> Option<(usize, bool)> {
    let close = rest.iter().position(|c| *c == '}')?;
    let inner: String = rest[1..close].iter().collect();
    let (lo, hi) = match inner.split_once(',') {
        Some((lo, hi)) => (lo, Some(hi)),
        None => (inner.as_str(), None),
    };
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if !digits(lo) || hi.is_some_and(|h| !h.is_empty() && !digits(h)) {
        return None;
    }
    let n = |s: &str| s.parse::<f64>().unwrap_or(f64::INFINITY);
    let ordered = hi.is_none_or(|h| h.is_empty() || n(lo) <= n(h));
    Some((close + 1, ordered))
}

/// A class `[...]` from `chars[i]` (the `[`): the index after it, or
/// `None` when it is unclosed or holds a range out of order.
fn class(chars: &[char], mut i: usize) -> Option<usize> {
    i += 1;
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    // The previous single character, for a range's start.
    let mut prev: Option<char> = None;
    let mut pending_range: Option<char> = None;
    while let Some(&c) = chars.get(i) {
        let (atom, next) = match c {
            ']' => return Some(i + 1),
            '\\' => {
                let e = *chars.get(i + 1)?;
                // An escape that stands for one character keeps a range;
                // a class escape (`\d`) makes `-` literal.
                let single = match e {
                    'd' | 'D' | 'w' | 'W' | 's' | 'S' => None,
                    'n' => Some('\n'),
                    't' => Some('\t'),
                    'r' => Some('\r'),
                    'f' => Some('\u{c}'),
                    'v' => Some('\u{b}'),
                    'b' => Some('\u{8}'),
                    '0' => Some('\0'),
                    c if c.is_ascii_alphanumeric() => None,
                    c => Some(c),
                };
                (single, i + 2)
            }
            c => (Some(c), i + 1),
        };
        if let Some(start) = pending_range.take() {
            if let Some(end) = atom
                && end < start
            {
                return None;
            }
            prev = None;
        } else if c == '-' && prev.is_some() && chars.get(next) != Some(&']') {
            pending_range = prev;
            prev = None;
        } else {
            prev = atom;
        }
        i = next;
    }
    None
}

/// Whether `pattern` compiles as a JavaScript regular expression (no
/// flags) with at least one capturing group.
pub(crate) fn is_extract_pattern(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut groups = 0;
    let mut depth = 0usize;
    let mut last = Last::Nothing;
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '\\' => {
                let Some(&e) = chars.get(i + 1) else {
                    return false;
                };
                last = match e {
                    'b' | 'B' => Last::Assertion,
                    _ => Last::Atom,
                };
                i += 2;
            }
            '[' => {
                let Some(next) = class(&chars, i) else {
                    return false;
                };
                last = Last::Atom;
                i = next;
            }
            '(' => {
                let rest: String = chars[i + 1..].iter().take(3).collect();
                let skip =
                    if rest.starts_with("?:") || rest.starts_with("?=") || rest.starts_with("?!") {
                        3
                    } else if rest.starts_with("?<=") || rest.starts_with("?<!") {
                        4
                    } else if rest.starts_with("?<") {
                        let name_end = chars[i + 3..].iter().position(|c| *c == '>');
                        let Some(len) = name_end else {
                            return false;
                        };
                        let name = &chars[i + 3..i + 3 + len];
                        let ok = name
                            .first()
                            .is_some_and(|c| c.is_alphabetic() || *c == '_' || *c == '$')
                            && name
                                .iter()
                                .all(|c| c.is_alphanumeric() || *c == '_' || *c == '$');
                        if !ok {
                            return false;
                        }
                        groups += 1;
                        3 + len + 1
                    } else if rest.starts_with('?') {
                        return false;
                    } else {
                        groups += 1;
                        1
                    };
                depth += 1;
                last = Last::Nothing;
                i += skip;
            }
            ')' => {
                if depth == 0 {
                    return false;
                }
                depth -= 1;
                last = Last::Atom;
                i += 1;
            }
            '|' => {
                last = Last::Nothing;
                i += 1;
            }
            '^' | '$' => {
                last = Last::Assertion;
                i += 1;
            }
            '*' | '+' | '?' => {
                match (last, c) {
                    (Last::Atom, _) => last = Last::Quantifier,
                    // `a*?`: lazy; a second `?` has nothing to repeat.
                    (Last::Quantifier, '?') => last = Last::Assertion,
                    _ => return false,
                }
                i += 1;
            }
            '{' => match braces(&chars[i..]) {
                Some((_, false)) => return false,
                Some((len, true)) => {
                    match last {
                        Last::Atom => last = Last::Quantifier,
                        _ => return false,
                    }
                    i += len;
                }
                None => {
                    last = Last::Atom;
                    i += 1;
                }
            },
            _ => {
                last = Last::Atom;
                i += 1;
            }
        }
    }
    depth == 0 && groups > 0
}

#[cfg(test)]
mod tests {
    use super::is_extract_pattern;

    #[test]
    fn patterns_with_a_group_are_taken() {
        for p in [
            "token:\\s*(\\S+)",
            "(a)",
            "(?<key>[A-Z]+)",
            "x{2}(y)",
            "a{,2}(b)",
            "[)(](c)",
            "(a)|b*?",
            "{(x)",
            "(?:a)(b)+",
            "]( )",
        ] {
            assert!(is_extract_pattern(p), "{p}");
        }
    }

    #[test]
    fn wrong_or_groupless_patterns_are_refused() {
        for p in [
            "", "a", "(?:a)", "(a", "a)(b)", "[a(b)", "*(a)", "(+a)", "(a)\\", "(?x)", "(a){2,1}",
            "[z-a](b)", "(a)??+", "(?<1a>b)", "a**(b)",
        ] {
            assert!(!is_extract_pattern(p), "{p}");
        }
    }
}
