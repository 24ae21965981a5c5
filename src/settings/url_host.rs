//! URLs as TS reads them: the WHATWG URL parser as far as it refuses a
//! URL or names its host (TS passes URLs through `new URL()`, zod's URL
//! check among them), and an `archive` plugin source's test (TS `B2e`):
//! the URL parses, its scheme is `https` and its host is not a loopback,
//! link-local or cloud-metadata host (TS `E4`). The host is read as the
//! parser reads it, so every spelling of an address is caught: `0x7f.1`,
//! `0177.0.0.1`, `127.1`, `2130706433`, `[::ffff:127.0.0.1]`, full-width
//! digits, percent-encoding.
//!
//! IDNA is `url_idna.rs`'s, from a generated table.

use super::url_idna::domain_to_ascii;

/// A URL's host, as the WHATWG URL parser reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Host {
    /// A domain in ASCII, lower-case; a non-ASCII label reads as `xn--`.
    Domain(String),
    /// An IPv4 address.
    V4([u8; 4]),
    /// An IPv6 address.
    V6([u8; 16]),
}

/// A string zod's URL check accepts, as it leaves it: trimmed (as
/// JavaScript trims), without tabs and line breaks, and parsed by the
/// WHATWG URL parser.
pub(crate) fn zod_url(s: &str) -> Option<String> {
    let value: String = js_trim(s)
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    parse_url(&value).map(|_| value)
}

/// An `archive` source's `url` as TS keeps it when it accepts it: zod's
/// URL check, then an `https` URL to a host that is not internal.
pub(crate) fn archive_url(s: &str) -> Option<String> {
    let value = zod_url(s)?;
    let host = https_host(&value)?;
    (!is_internal(&host)).then_some(value)
}

/// JavaScript's `String.prototype.trim`: its white space and line
/// terminators (not Rust's: U+FEFF is one, U+0085 is not).
fn js_trim(s: &str) -> &str {
    const SPACES: &[char] = &[
        '\t', '\n', '\u{b}', '\u{c}', '\r', ' ', '\u{a0}', '\u{1680}', '\u{2028}', '\u{2029}',
        '\u{202f}', '\u{205f}', '\u{3000}', '\u{feff}',
    ];
    s.trim_matches(|c: char| SPACES.contains(&c) || ('\u{2000}'..='\u{200a}').contains(&c))
}

/// What the WHATWG parser reads of an absolute URL, or `None` when it
/// refuses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Parsed {
    /// The scheme, lower-case.
    pub(crate) scheme: String,
    /// The host of a special scheme (`http`, `https`, `ws`, `wss`, `ftp`,
    /// and `file` when it names one); other schemes' opaque hosts are
    /// only checked.
    pub(crate) host: Option<Host>,
}

/// The WHATWG URL parser, with no base, as far as it can refuse a URL:
/// its scheme, authority, host and port (a path, query or fragment is
/// never refused).
pub(crate) fn parse_url(url: &str) -> Option<Parsed> {
    // The parser trims C0 controls and spaces and drops tabs and newlines.
    let url: String = url
        .trim_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, rest) = url.split_once(':')?;
    let mut chars = scheme.chars();
    let scheme_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !scheme_ok {
        return None;
    }
    let scheme = scheme.to_ascii_lowercase();
    let host = match scheme.as_str() {
        "file" => file_host(rest)?,
        // A special scheme skips any slashes and backslashes before the
        // authority.
        "http" | "https" | "ws" | "wss" | "ftp" => {
            Some(authority_host(rest.trim_start_matches(['/', '\\']), true)??)
        }
        _ => match rest.strip_prefix("//") {
            Some(authority) => authority_host(authority, false)?,
            None => None,
        },
    };
    Some(Parsed { scheme, host })
}

/// The host of `https` URL `url`, `None` when it is not one or does not
/// parse.
pub(crate) fn https_host(url: &str) -> Option<Host> {
    parse_url(url)
        .filter(|p| p.scheme == "https")
        .and_then(|p| p.host)
}

/// The authority at the start of `rest`: `None` when the parser refuses
/// it, else the host of a special scheme (`Some(None)` for another's).
fn authority_host(rest: &str, special: bool) -> Option<Option<Host>> {
    let ends: &[char] = if special {
        &['/', '\\', '?', '#']
    } else {
        &['/', '?', '#']
    };
    let end = rest.find(ends).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host_port = match authority.rfind('@') {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    let mut in_brackets = false;
    let mut split = None;
    for (i, c) in host_port.char_indices() {
        match c {
            '[' => in_brackets = true,
            ']' => in_brackets = false,
            ':' if !in_brackets => {
                split = Some(i);
                break;
            }
            _ => {}
        }
    }
    let (host, port) = match split {
        Some(i) => (&host_port[..i], Some(&host_port[i + 1..])),
        None => (host_port, None),
    };
    // An empty host fails a special scheme, and any scheme before a port
    // or after credentials.
    if host.is_empty() && (special || split.is_some() || authority.contains('@')) {
        return None;
    }
    if let Some(port) = port
        && !port.is_empty()
        && !(port.bytes().all(|b| b.is_ascii_digit())
            && port.trim_start_matches('0').len() <= 5
            && port.parse::<u32>().is_ok_and(|p| p <= 65535))
    {
        return None;
    }
    if special {
        parse_host(host).map(Some)
    } else {
        opaque_host_ok(host).then_some(None)
    }
}

/// A `file:` URL's host: named after two slashes, where a drive letter or
/// nothing names none.
fn file_host(rest: &str) -> Option<Option<Host>> {
    let mut chars = rest.chars();
    let slash = |c: Option<char>| matches!(c, Some('/' | '\\'));
    if !(slash(chars.next()) && slash(chars.next())) {
        return Some(None);
    }
    let after = chars.as_str();
    let end = after.find(['/', '\\', '?', '#']).unwrap_or(after.len());
    let buffer = &after[..end];
    let mut b = buffer.chars();
    let drive = buffer.chars().count() == 2
        && b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && matches!(b.next(), Some(':' | '|'));
    if drive || buffer.is_empty() {
        return Some(None);
    }
    parse_host(buffer).map(Some)
}

/// A non-special scheme's opaque host: an IPv6 address in brackets, or
/// text without a forbidden host code point.
fn opaque_host_ok(host: &str) -> bool {
    if let Some(inner) = host.strip_prefix('[') {
        return inner.strip_suffix(']').and_then(parse_ipv6).is_some();
    }
    !host.chars().any(|c| {
        matches!(
            c,
            '\0' | '\t'
                | '\n'
                | '\r'
                | ' '
                | '#'
                | '/'
                | ':'
                | '<'
                | '>'
                | '?'
                | '@'
                | '['
                | '\\'
                | ']'
                | '^'
                | '|'
        )
    })
}

/// The WHATWG host parser for a special scheme.
fn parse_host(input: &str) -> Option<Host> {
    if let Some(inner) = input.strip_prefix('[') {
        return parse_ipv6(inner.strip_suffix(']')?).map(Host::V6);
    }
    let domain = String::from_utf8_lossy(&percent_decode(input)).into_owned();
    let ascii = domain_to_ascii(&domain)?;
    if ascii.is_empty() {
        return None;
    }
    if ends_in_a_number(&ascii) {
        return parse_ipv4(&ascii).map(|n| Host::V4(n.to_be_bytes()));
    }
    Some(Host::Domain(ascii))
}

/// Bytes of `s` with each `%XX` decoded; a `%` not before two hex digits
/// stays.
fn percent_decode(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |j: usize| bytes.get(j).and_then(|h| (*h as char).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// WHATWG's "ends in a number": the last label (bar one empty one after a
/// final dot) is digits, or a number in IPv4's notations.
fn ends_in_a_number(domain: &str) -> bool {
    let mut parts: Vec<&str> = domain.split('.').collect();
    if parts.last().is_some_and(|p| p.is_empty()) {
        if parts.len() == 1 {
            return false;
        }
        parts.pop();
    }
    let last = parts.last().copied().unwrap_or_default();
    (!last.is_empty() && last.bytes().all(|b| b.is_ascii_digit())) || ipv4_number(last).is_some()
}

/// One part of an IPv4 address: decimal, octal after `0`, hex after `0x`
/// (saturating: a huge part is refused by the bounds checked after).
fn ipv4_number(part: &str) -> Option<u64> {
    if part.is_empty() {
        return None;
    }
    let (digits, radix) =
        if let Some(hex) = part.strip_prefix("0x").or_else(|| part.strip_prefix("0X")) {
            (hex, 16)
        } else if part.len() > 1 && part.starts_with('0') {
            (&part[1..], 8)
        } else {
            (part, 10)
        };
    let mut n: u64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(radix)?;
        n = n
            .saturating_mul(u64::from(radix))
            .saturating_add(u64::from(d));
    }
    Some(n)
}

/// WHATWG's IPv4 parser: up to four parts, the last filling the bytes
/// left (`127.1`, `2130706433`).
fn parse_ipv4(s: &str) -> Option<u32> {
    let mut parts: Vec<&str> = s.split('.').collect();
    if parts.last().is_some_and(|p| p.is_empty()) && parts.len() > 1 {
        parts.pop();
    }
    if parts.len() > 4 {
        return None;
    }
    let numbers: Vec<u64> = parts
        .iter()
        .map(|p| ipv4_number(p))
        .collect::<Option<_>>()?;
    let (last, first) = numbers.split_last()?;
    if first.iter().any(|n| *n > 255) || *last >= 256u64.pow(5 - numbers.len() as u32) {
        return None;
    }
    let high = first
        .iter()
        .enumerate()
        .fold(0u64, |acc, (i, n)| acc + n * 256u64.pow(3 - i as u32));
    u32::try_from(high + last).ok()
}

/// WHATWG's IPv6 parser (the text between the brackets).
fn parse_ipv6(s: &str) -> Option<[u8; 16]> {
    let c: Vec<char> = s.chars().collect();
    let at = |i: usize| c.get(i).copied();
    let mut pieces = [0u16; 8];
    let mut index = 0usize;
    let mut compress = None;
    let mut p = 0usize;
    if at(0) == Some(':') {
        if at(1) != Some(':') {
            return None;
        }
        p = 2;
        index = 1;
        compress = Some(1);
    }
    while let Some(ch) = at(p) {
        if index == 8 {
            return None;
        }
        if ch == ':' {
            if compress.is_some() {
                return None;
            }
            p += 1;
            index += 1;
            compress = Some(index);
            continue;
        }
        let (mut value, mut length) = (0u16, 0usize);
        while length < 4
            && let Some(d) = at(p).and_then(|h| h.to_digit(16))
        {
            value = value * 16 + d as u16;
            p += 1;
            length += 1;
        }
        if at(p) == Some('.') {
            if length == 0 || index > 6 {
                return None;
            }
            p -= length;
            let mut seen = 0;
            while at(p).is_some() {
                if seen > 0 {
                    if at(p) == Some('.') && seen < 4 {
                        p += 1;
                    } else {
                        return None;
                    }
                }
                let mut part: Option<u16> = None;
                while let Some(d) = at(p).and_then(|h| h.to_digit(10)) {
                    part = match part {
                        None => Some(d as u16),
                        Some(0) => return None,
                        Some(n) => Some(n * 10 + d as u16),
                    };
                    if part.is_some_and(|n| n > 255) {
                        return None;
                    }
                    p += 1;
                }
                let part = part?;
                let piece = pieces.get_mut(index)?;
                *piece = *piece * 0x100 + part;
                seen += 1;
                if seen == 2 || seen == 4 {
                    index += 1;
                }
            }
            if seen != 4 {
                return None;
            }
            break;
        }
        match at(p) {
            Some(':') => {
                p += 1;
                at(p)?;
            }
            Some(_) => return None,
            None => {}
        }
        *pieces.get_mut(index)? = value;
        index += 1;
    }
    match compress {
        Some(start) => {
            let mut swaps = index - start;
            let mut i = 7;
            while i != 0 && swaps > 0 {
                pieces.swap(i, start + swaps - 1);
                i -= 1;
                swaps -= 1;
            }
        }
        None if index != 8 => return None,
        None => {}
    }
    let mut out = [0u8; 16];
    for (i, piece) in pieces.iter().enumerate() {
        out[2 * i..2 * i + 2].copy_from_slice(&piece.to_be_bytes());
    }
    Some(out)
}

/// Names TS refuses (`JVe`).
const NAMES: &[&str] = &[
    "metadata.google.internal",
    "metadata.goog",
    "metadata",
    "instance-data",
    "instance-data.ec2.internal",
    "ip6-localhost",
    "ip6-loopback",
    "localhost.localdomain",
    "localhost4",
    "localhost4.localdomain4",
    "localhost6",
    "localhost6.localdomain6",
];

/// Cloud metadata IPv4 addresses TS refuses (`_4`).
const METADATA_V4: &[[u8; 4]] = &[[100, 100, 100, 200], [168, 63, 129, 16], [192, 0, 0, 192]];

/// Cloud metadata IPv6 addresses TS refuses (`XVe`): `fd00:ec2::254`,
/// `fd00:ec2::23`, `fd20:ce::254`, `fd00:c1::a9fe:a9fe`,
/// `fd00:a9fe:a9fe::1`.
const METADATA_V6: &[[u16; 8]] = &[
    [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254],
    [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23],
    [0xfd20, 0xce, 0, 0, 0, 0, 0, 0x254],
    [0xfd00, 0xc1, 0, 0, 0, 0, 0xa9fe, 0xa9fe],
    [0xfd00, 0xa9fe, 0xa9fe, 0, 0, 0, 0, 1],
];

/// TS `E4`: a loopback, link-local, unspecified or cloud-metadata host.
pub(crate) fn is_internal(host: &Host) -> bool {
    match host {
        Host::Domain(name) => {
            let name = name.strip_suffix('.').unwrap_or(name);
            name.is_empty()
                || name == "localhost"
                || name.ends_with(".localhost")
                || NAMES.contains(&name)
                || (name.starts_with("instance-data.") && name.ends_with(".compute.internal"))
        }
        Host::V4(v4) => is_internal_v4(*v4),
        Host::V6(v6) => is_internal_v6(v6),
    }
}

/// TS `S4` with the metadata addresses: `127/8`, `169.254/16`, `0/8`.
fn is_internal_v4(a: [u8; 4]) -> bool {
    a[0] == 127 || (a[0] == 169 && a[1] == 254) || a[0] == 0 || METADATA_V4.contains(&a)
}

fn is_internal_v6(b: &[u8; 16]) -> bool {
    let nat64 = b[..4] == [0, 100, 255, 155];
    let zeros = |r: std::ops::Range<usize>| b.get(r).is_some_and(|s| s.iter().all(|x| *x == 0));
    let pieces: [u16; 8] = std::array::from_fn(|i| u16::from_be_bytes([b[2 * i], b[2 * i + 1]]));
    // `64:ff9b:1::/48`, `::`, `::1`, the metadata addresses, `fe80::/10`.
    if (nat64 && b[4] == 0 && b[5] == 1)
        || zeros(0..16)
        || (zeros(0..15) && b[15] == 1)
        || METADATA_V6.contains(&pieces)
        || (b[0] == 254 && (128..=191).contains(&b[1]))
    {
        return true;
    }
    // IPv4 addresses carried inside (TS `e2e`): 6to4 (`2002::/16`), mapped
    // (`::ffff:0:0/96`), compatible (`::/96`), NAT64 (`64:ff9b::/96`),
    // ISATAP (`::0:5efe:0:0/96`, `::200:5efe:0:0/96` in the last half).
    let mut carried = Vec::new();
    if b[0] == 0x20 && b[1] == 0x02 {
        carried.push([b[2], b[3], b[4], b[5]]);
    }
    let first_ten = zeros(0..10);
    let mapped = first_ten && b[10] == 255 && b[11] == 255;
    let compatible = first_ten && b[10] == 0 && b[11] == 0;
    let nat64_96 = nat64 && zeros(4..12);
    let isatap = (b[8] == 0 || b[8] == 2) && b[9] == 0 && b[10] == 0x5e && b[11] == 0xfe;
    if mapped || compatible || nat64_96 || isatap {
        carried.push([b[12], b[13], b[14], b[15]]);
    }
    carried.into_iter().any(is_internal_v4)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether TS would keep `host` in `https://{host}/p.zip` (every value
    /// here was answered so by the TS SDK 0.3.332).
    fn public(host: &str) -> bool {
        archive_url(&format!("https://{host}/p.zip")).is_some()
    }

    /// Asserts that each host is refused, as TS refused it.
    fn refused(hosts: &[&str]) {
        for host in hosts {
            assert!(!public(host), "TS refuses {host}");
        }
    }

    /// Asserts that each host is kept, as TS kept it.
    fn kept(hosts: &[&str]) {
        for host in hosts {
            assert!(public(host), "TS keeps {host}");
        }
    }

    #[test]
    fn every_ipv4_notation_of_a_loopback_address_is_refused() {
        refused(&[
            "127.0.0.1",
            "127.1",
            "127.0.1",
            "2130706433",
            "0x7f000001",
            "0x7f.1",
            "0X7F.1",
            "0177.0.0.1",
            "0177.1",
            "017700000001",
            "127.000.000.001",
            "127.0.0.1.",
            "127.0.0.0x1",
            "%31%32%37.0.0.1",
            "127%2e0%2e0%2e1",
            "127.0.0.1:443",
            "user@127.0.0.1",
            "example.com@127.0.0.1",
        ]);
    }

    #[test]
    fn unspecified_link_local_and_metadata_ipv4_are_refused_and_private_ranges_are_not() {
        refused(&[
            "0",
            "0.0.0.0",
            "0x0",
            "0.1.2.3",
            "169.254.169.254",
            "0xa9.0xfe.0xa9.0xfe",
            "2852039166",
            "100.100.100.200",
            "168.63.129.16",
            "192.0.0.192",
        ]);
        // TS refuses no private range: only loopback, link-local, `0/8`.
        kept(&[
            "10.0.0.1",
            "192.168.1.1",
            "172.16.0.1",
            "128.0.0.1",
            "126.255.255.255",
            "169.255.0.1",
            "169.254",
            "4294967295",
            "1.2.3.0x",
        ]);
    }

    #[test]
    fn ipv6_loopback_unspecified_link_local_and_metadata_are_refused() {
        refused(&[
            "[::1]",
            "[0:0:0:0:0:0:0:1]",
            "[0::1]",
            "[::]",
            "[fe80::1]",
            "[FE80::1]",
            "[febf::1]",
            "[fd00:ec2::254]",
            "[fd00:ec2::23]",
            "[fd20:ce::254]",
            "[fd00:c1::a9fe:a9fe]",
            "[fd00:a9fe:a9fe::1]",
            "[64:ff9b:1::1]",
            "[::1]:443",
        ]);
        kept(&[
            "[fec0::1]",
            "[fd00:ec2::255]",
            "[64:ff9b:2::1]",
            "[2606:4700::1111]",
        ]);
    }

    #[test]
    fn an_ipv4_address_carried_in_ipv6_is_judged_as_ipv4() {
        refused(&[
            "[::ffff:127.0.0.1]",
            "[::FFFF:127.0.0.1]",
            "[::ffff:7f00:1]",
            "[0:0:0:0:0:ffff:7f00:1]",
            "[::127.0.0.1]",
            "[::0.0.0.1]",
            "[::ffff:169.254.169.254]",
            "[::ffff:100.100.100.200]",
            "[64:ff9b::7f00:1]",
            "[64:ff9b::169.254.0.1]",
            "[2002:7f00:1::]",
            "[2002:a9fe:a9fe::1]",
            "[2001:db8::5efe:7f00:1]",
            "[fe80::200:5efe:a9fe:a9fe]",
        ]);
        kept(&[
            "[::ffff:10.0.0.1]",
            "[64:ff9b::8.8.8.8]",
            "[2002:808:808::1]",
            "[2001:db8::200:5efe:808:808]",
            "[2001:db8::100:5efe:7f00:1]",
        ]);
    }

    #[test]
    fn internal_names_are_refused_whatever_their_case_or_final_dot() {
        refused(&[
            "localhost",
            "LOCALHOST",
            "localhost.",
            "foo.localhost",
            "foo.localhost.",
            "metadata.google.internal",
            "METADATA.google.internal.",
            "metadata.goog",
            "metadata",
            "metadata.",
            "instance-data",
            "instance-data.ec2.internal",
            "instance-data.us-east-1.compute.internal",
            "ip6-localhost",
            "ip6-loopback",
            "localhost.localdomain",
            "localhost4",
            "localhost4.localdomain4",
            "localhost6",
            "localhost6.localdomain6",
            "%6c%6fcalhost",
            ".",
        ]);
        kept(&[
            "localhost.example.com",
            "mylocalhost",
            "metadata.google.internal.example",
            "localhost..",
            "..",
            "a!b",
        ]);
    }

    #[test]
    fn a_host_is_judged_after_idna_maps_it_to_ascii() {
        refused(&[
            "\u{ff11}\u{ff12}\u{ff17}\u{ff0e}\u{ff10}\u{ff0e}\u{ff10}\u{ff0e}\u{ff11}",
            "127\u{3002}0\u{3002}0\u{3002}1",
            "127\u{ff61}0\u{ff61}0\u{ff61}1",
            "\u{2460}\u{2461}\u{2466}.0.0.1",
            "\u{1d7cf}\u{1d7d0}\u{1d7d5}.\u{1d7ce}.\u{1d7ce}.\u{1d7cf}",
            "\u{ff10}\u{ff58}\u{ff17}\u{ff46}\u{ff0e}\u{ff11}",
            "\u{ff4c}\u{ff4f}\u{ff43}\u{ff41}\u{ff4c}\u{ff48}\u{ff4f}\u{ff53}\u{ff54}",
            "local\u{ad}host",
            "\u{217c}ocalhost",
            "b\u{fc}cher.localhost",
            "instance-data.\u{fc}.compute.internal",
            "localhost\u{3002}",
        ]);
        kept(&[
            "m\u{fc}nchen.de",
            "xn--ls8h",
            "a%c3%bcb",
            "\u{e9}.com",
            "exam\u{feff}ple.com",
            "127.0.0.1\u{301}",
        ]);
    }

    #[test]
    fn a_label_idna_refuses_as_a_whole_is_refused() {
        refused(&[
            "\u{301}.b",
            "\u{300}a",
            "a\u{200d}",
            "z\u{200d}k\u{94d}\u{200d}",
            "xn--",
            "xn---",
            "xn--a",
            "xn--1ug",
            "xn--b-yq0i",
            "xn--\u{fc}b",
        ]);
        kept(&[
            "k\u{94d}\u{200d}z\u{200d}",
            "k\u{94d}\u{200d}\u{5d0}",
            "xn--abc-",
            "xn--xn--",
            "xn--bcher-kva",
            "XN--LS8H",
            "\u{c3c}\u{c36}",
        ]);
    }

    #[test]
    fn a_url_the_parser_refuses_is_refused() {
        refused(&[
            "256.0.0.1",
            "1.2.3.4.5",
            "0x100000000",
            "4294967296",
            "1.2.3.09",
            "[::1",
            "[1:2:3:4:5:6:7:8:9]",
            "[::ffff:127.0.0.01]",
            "[::1%25eth0]",
            "[:1]",
            "[1:::2]",
            "[::1.2.3]",
            "exa mple.com",
            "exa%mple.com",
            "a%00b",
            "a|b",
            "%ff",
            "a%c3b",
            "a\u{fffd}b",
            "a\u{2100}b",
            "a\u{ff0f}b",
            "example.com:65536",
            "example.com:8a",
        ]);
        for url in [
            "http://example.com/p.zip",
            "https://",
            "https://@/",
            "https://a@/",
            "not a url",
        ] {
            assert_eq!(archive_url(url), None, "{url}");
        }
    }

    #[test]
    fn the_url_is_kept_as_zods_check_leaves_it() {
        assert_eq!(
            archive_url(" https://exa\tmple.com/p.zip\u{feff}").as_deref(),
            Some("https://example.com/p.zip")
        );
        // The parser's own trimming is not zod's: this control char stays.
        assert_eq!(
            archive_url("\u{1}https://example.com/").as_deref(),
            Some("\u{1}https://example.com/")
        );
        for url in [
            "HTTPS://EXAMPLE.COM/p.zip",
            "https:example.com/p.zip",
            "https:\\\\example.com",
        ] {
            assert_eq!(archive_url(url).as_deref(), Some(url), "{url}");
        }
    }

    #[test]
    fn every_scheme_is_refused_or_accepted_as_the_whatwg_parser_does() {
        for url in [
            "foo:bar",
            "mailto:x",
            "javascript:alert(1)",
            "file:///x",
            "file://c:/x",
            "https:x.example",
            "https:///x.example",
            "foo://a%b/",
            "foo://",
            "HTTP://X.EXAMPLE",
            "wss://x.example",
            "https://x.example:0080/",
        ] {
            assert!(parse_url(url).is_some(), "{url}");
        }
        for url in [
            "http:",
            "http://",
            "a b:c",
            "1http://x",
            "foo://a b/",
            "foo://[x/",
            "foo://a|b/",
            "foo://a:xx/",
            "foo://a\\b/",
            "foo://@/",
            "foo://:1/",
            "file://exa mple/x",
            "https://user@/",
            "https://[fe80::1%25x]/",
        ] {
            assert_eq!(parse_url(url), None, "{url}");
        }
        assert_eq!(
            zod_url("\u{a0}https://x.example/\u{3000}").as_deref(),
            Some("https://x.example/")
        );
    }

    #[test]
    fn ipv6_compressed_and_embedded_forms_parse_to_their_bytes() {
        let v6 = |s: &str| parse_ipv6(s);
        assert_eq!(v6("::ffff:127.0.0.1"), v6("0:0:0:0:0:ffff:7f00:1"));
        assert_eq!(v6("1::"), v6("1:0:0:0:0:0:0:0"));
        assert_eq!(v6("1:2:3:4:5:6:1.2.3.4"), v6("1:2:3:4:5:6:102:304"));
        assert_eq!(v6("::"), Some([0; 16]));
        assert_eq!(v6("1:2:3:4:5:6:7:1.2.3.4"), None);
        assert_eq!(v6("::1.2.3.4.5"), None);
    }
}
