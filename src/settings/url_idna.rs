//! IDNA (UTS #46) as WHATWG's domain-to-ASCII applies it to a URL's host,
//! read from a generated table (`url_host_ascii.rs`) rather than a
//! Unicode crate, which would weigh on every build: it says which code
//! points map to ASCII, which a host may not hold, which marks may not
//! begin a label and which are viramas. What it cannot give: the
//! bidirectional rule, a non-joiner's context, whether a decoded `xn--`
//! label is normalized and holds no character IDNA maps to another
//! non-ASCII one (`xn--dca`, an upper-case `É`). A label refused only by
//! those names no internal host, so they only decide whether a public
//! host's URL parses (kept here, dropped by TS).

use super::url_host_ascii::{MARKS, REFUSED, TO_ASCII, VIRAMAS};

/// UTS #46 as WHATWG's domain-to-ASCII applies it, from the generated
/// table: ASCII lower-cased, mapped code points replaced, a refused one
/// or a forbidden domain code point failing the host; a label left with
/// non-ASCII reads as `xn--` (its Punycode, which no check below looks
/// into).
pub(crate) fn domain_to_ascii(domain: &str) -> Option<String> {
    let mut mapped = String::with_capacity(domain.len());
    for c in domain.chars() {
        if c.is_ascii() {
            mapped.push(c.to_ascii_lowercase());
            continue;
        }
        let cp = u32::from(c);
        if let Ok(i) = TO_ASCII.binary_search_by_key(&cp, |(k, _)| *k) {
            mapped.push_str(TO_ASCII.get(i).map_or("", |(_, m)| m));
        } else if in_ranges(REFUSED, c) {
            return None;
        } else {
            mapped.push(c);
        }
    }
    // Punycode keeps a label's ASCII, so a forbidden one is seen here.
    if mapped.chars().any(is_forbidden_in_domain) {
        return None;
    }
    let mut labels = Vec::new();
    for label in mapped.split('.') {
        if let Some(code) = label.strip_prefix("xn--") {
            // Already Punycode: it must decode to a label IDNA accepts.
            let decoded = label.is_ascii().then(|| punycode_decode(code)).flatten()?;
            let unmapped = |c: &char| {
                c.is_ascii()
                    || TO_ASCII
                        .binary_search_by_key(&u32::from(*c), |(k, _)| *k)
                        .is_err()
            };
            if decoded.is_empty()
                || decoded.iter().any(|c| in_ranges(REFUSED, *c))
                || !decoded.iter().all(unmapped)
                || !label_is_valid(&decoded)
            {
                return None;
            }
            labels.push(label);
        } else if label.is_ascii() {
            labels.push(label);
        } else if label_is_valid(&label.chars().collect::<Vec<_>>()) {
            labels.push("xn--");
        } else {
            return None;
        }
    }
    Some(labels.join("."))
}

/// UTS #46's checks of a label as a whole that the tables can make, as
/// Node's parser makes them: the label does not begin with a combining
/// mark, and its first joiner, when it is a zero-width joiner, follows a
/// virama (the parser accepts the label at a joiner after a virama and
/// checks nothing after it). Normalization can move a mark between the
/// virama and the joiner, so any virama before it counts. A non-joiner's
/// context and the bidirectional rule are not read.
fn label_is_valid(label: &[char]) -> bool {
    if label.first().is_some_and(|c| in_ranges(MARKS, *c)) {
        return false;
    }
    let is_virama = |c: &char| VIRAMAS.binary_search(&u32::from(*c)).is_ok();
    match label
        .iter()
        .position(|c| matches!(c, '\u{200c}' | '\u{200d}'))
    {
        Some(at) if label.get(at) == Some(&'\u{200d}') => label
            .get(..at)
            .is_some_and(|before| before.iter().any(is_virama)),
        _ => true,
    }
}

/// Whether `c` falls in one of the sorted inclusive `ranges`.
fn in_ranges(ranges: &[(u32, u32)], c: char) -> bool {
    let cp = u32::from(c);
    ranges
        .binary_search_by(|(lo, hi)| {
            if *hi < cp {
                std::cmp::Ordering::Less
            } else if *lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// RFC 3492's decoder (the part of a label after `xn--`); `None` when it
/// is not valid Punycode.
fn punycode_decode(code: &str) -> Option<Vec<char>> {
    const BASE: u32 = 36;
    const T_MIN: u32 = 1;
    const T_MAX: u32 = 26;
    const SKEW: u32 = 38;
    const DAMP: u32 = 700;
    let adapt = |delta: u32, points: u32, first: bool| {
        let mut delta = if first { delta / DAMP } else { delta / 2 };
        delta += delta / points;
        let mut k = 0;
        while delta > ((BASE - T_MIN) * T_MAX) / 2 {
            delta /= BASE - T_MIN;
            k += BASE;
        }
        k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
    };
    let (basic, rest) = match code.rfind('-') {
        Some(i) => (&code[..i], &code[i + 1..]),
        None => ("", code),
    };
    let mut out: Vec<char> = basic.chars().collect();
    let digits: Vec<u32> = rest
        .bytes()
        .map(|b| match b {
            b'a'..=b'z' => Some(u32::from(b - b'a')),
            b'A'..=b'Z' => Some(u32::from(b - b'A')),
            b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let (mut n, mut i, mut bias) = (128u32, 0u32, 72u32);
    let mut at = 0;
    while at < digits.len() {
        let (old_i, mut w, mut k) = (i, 1u32, BASE);
        loop {
            let digit = *digits.get(at)?;
            at += 1;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = if k <= bias {
                T_MIN
            } else if k >= bias + T_MAX {
                T_MAX
            } else {
                k - bias
            };
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let points = u32::try_from(out.len() + 1).ok()?;
        bias = adapt(i - old_i, points, old_i == 0);
        n = n.checked_add(i / points)?;
        i %= points;
        out.insert(usize::try_from(i).ok()?, char::from_u32(n)?);
        i += 1;
    }
    Some(out)
}

/// A forbidden domain code point (WHATWG).
fn is_forbidden_in_domain(c: char) -> bool {
    c <= ' '
        || matches!(
            c,
            '#' | '/' | ':' | '<' | '>' | '?' | '@' | '[' | '\\' | ']' | '^' | '|' | '%' | '\u{7f}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punycode_decodes_as_rfc_3492_says() {
        let decoded = |s: &str| punycode_decode(s).map(|c| c.into_iter().collect::<String>());
        assert_eq!(decoded("bcher-kva").as_deref(), Some("b\u{fc}cher"));
        assert_eq!(decoded("ls8h").as_deref(), Some("\u{1f4a9}"));
        assert_eq!(decoded("abc-").as_deref(), Some("abc"));
        assert_eq!(decoded("-").as_deref(), Some(""));
        assert_eq!(decoded("a!"), None);
        assert_eq!(decoded("99999999999"), None);
    }

    #[test]
    fn mapping_lower_cases_replaces_and_refuses_by_the_table() {
        assert_eq!(
            domain_to_ascii("\u{ff2c}o\u{ad}cal\u{3002}HOST").as_deref(),
            Some("local.host")
        );
        assert_eq!(domain_to_ascii("a\u{fffd}b"), None);
        assert_eq!(domain_to_ascii("a\u{ff0f}b"), None);
        assert_eq!(
            domain_to_ascii("m\u{fc}nchen.de").as_deref(),
            Some("xn--.de")
        );
    }
}
