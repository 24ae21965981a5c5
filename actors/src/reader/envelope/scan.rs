//! One pass over a line: is it a valid JSON object, and where are the
//! top-level members the router needs?
//!
//! The router used to deserialize every line through serde with raw-value
//! fields; skipping the bulk of an `assistant` line that way cost about as
//! much as parsing it for meaning. This scanner validates the same grammar
//! (RFC 8259, as `serde_json` checks it when skipping a value: escapes and
//! hex digits, no control characters in strings, no leading zeros, no
//! trailing commas) without building anything, and hands back the raw bytes
//! of the few members the router looks at. What it cannot decide cheaply
//! (escaped top-level keys, nesting deeper than 128) is left to serde.

/// The raw value bytes of the top-level members the router reads.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Members<'a> {
    pub(super) kind: Option<&'a [u8]>,
    pub(super) subtype: Option<&'a [u8]>,
    pub(super) session_id: Option<&'a [u8]>,
    pub(super) request_id: Option<&'a [u8]>,
    pub(super) request: Option<&'a [u8]>,
    pub(super) response: Option<&'a [u8]>,
    /// The last `error` member; `error_twice` when there were more (serde
    /// refuses a duplicate where it reads `error`, inside a reply).
    pub(super) error: Option<&'a [u8]>,
    pub(super) error_twice: bool,
    /// `request_id`, `request` or `response` is present (control traffic
    /// fields).
    pub(super) control_fields: bool,
}

/// The outcome of a scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scan<'a> {
    /// A valid JSON object (up to trailing whitespace).
    Object(Members<'a>),
    /// Not valid JSON, or a routed member appears twice.
    Invalid,
    /// Valid or not, this scanner does not decide: use serde.
    Undecided,
}

/// Why scanning stopped early.
enum Stop {
    Invalid,
    Undecided,
}

/// The index of the first byte at or after `from` that ends the plain part
/// of a string: `"`, `\\` or a control byte. Eight bytes at a time while
/// eight remain (strings are most of a line's bytes, and most are short).
#[inline(always)]
fn string_stop(b: &[u8], from: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut i = from;
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        // High bit of a byte set where it is zero / below 0x20: exact for
        // the lowest such byte (borrows only spoil bytes above it).
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        let hit = zero(x ^ (ONES * u64::from(b'"')))
            | zero(x ^ (ONES * u64::from(b'\\')))
            | (x.wrapping_sub(ONES * 0x20) & !x & HIGH);
        if hit != 0 {
            return Some(i + (hit.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let tail = b.get(i..)?;
    tail.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|n| i + n)
}

/// Deepest nesting tracked (one bit per level).
const MAX_DEPTH: u32 = 128;

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    #[inline(always)]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline(always)]
    fn next(&mut self) -> Result<u8, Stop> {
        let b = *self.b.get(self.i).ok_or(Stop::Invalid)?;
        self.i += 1;
        Ok(b)
    }

    #[inline(always)]
    fn expect(&mut self, want: u8) -> Result<(), Stop> {
        self.ws();
        if self.next()? == want {
            Ok(())
        } else {
            Err(Stop::Invalid)
        }
    }

    /// After the opening quote: skips to just past the closing one.
    /// Returns whether the string held an escape.
    #[inline(always)]
    fn string(&mut self) -> Result<bool, Stop> {
        let mut escaped = false;
        loop {
            let n = string_stop(self.b, self.i).ok_or(Stop::Invalid)?;
            self.i = n + 1;
            match self.b[n] {
                b'"' => return Ok(escaped),
                b'\\' => {
                    escaped = true;
                    match self.next()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            for _ in 0..4 {
                                if !self.next()?.is_ascii_hexdigit() {
                                    return Err(Stop::Invalid);
                                }
                            }
                        }
                        _ => return Err(Stop::Invalid),
                    }
                }
                _ => return Err(Stop::Invalid), // a control character
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    /// After the first byte of a number (`-` or a digit).
    fn number(&mut self, first: u8) -> Result<(), Stop> {
        let lead = if first == b'-' { self.next()? } else { first };
        match lead {
            b'0' => {}
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return Err(Stop::Invalid),
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(Stop::Invalid);
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(Stop::Invalid);
            }
        }
        Ok(())
    }

    fn literal(&mut self, rest: &[u8]) -> Result<(), Stop> {
        if self.b.get(self.i..self.i + rest.len()) == Some(rest) {
            self.i += rest.len();
            Ok(())
        } else {
            Err(Stop::Invalid)
        }
    }

    /// One object key (at the quote) and its colon.
    #[inline(always)]
    fn key(&mut self) -> Result<(), Stop> {
        self.expect(b'"')?;
        self.string()?;
        self.expect(b':')
    }

    /// Skips one complete value, validating it, without recursion.
    fn value(&mut self) -> Result<(), Stop> {
        // Bit d set: the container at depth d is an object.
        let mut objects: u128 = 0;
        let mut depth: u32 = 0;
        loop {
            self.ws();
            match self.next()? {
                open @ (b'{' | b'[') => {
                    self.ws();
                    let close = if open == b'{' { b'}' } else { b']' };
                    if self.b.get(self.i) == Some(&close) {
                        self.i += 1;
                    } else {
                        if depth == MAX_DEPTH {
                            return Err(Stop::Undecided);
                        }
                        if open == b'{' {
                            objects |= 1 << depth;
                            self.key()?;
                        } else {
                            objects &= !(1 << depth);
                        }
                        depth += 1;
                        continue;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b't' => self.literal(b"rue")?,
                b'f' => self.literal(b"alse")?,
                b'n' => self.literal(b"ull")?,
                first @ (b'-' | b'0'..=b'9') => self.number(first)?,
                _ => return Err(Stop::Invalid),
            }
            // A value ended: close containers until one continues.
            loop {
                if depth == 0 {
                    return Ok(());
                }
                let in_object = objects & (1 << (depth - 1)) != 0;
                self.ws();
                match (self.next()?, in_object) {
                    (b',', true) => {
                        self.key()?;
                        break;
                    }
                    (b',', false) => break,
                    (b'}', true) | (b']', false) => depth -= 1,
                    _ => return Err(Stop::Invalid),
                }
            }
        }
    }
}

/// Scans one line (the caller has checked that it starts with `{` after
/// whitespace).
pub(super) fn scan(line: &[u8]) -> Scan<'_> {
    match members(line) {
        Ok(m) => Scan::Object(m),
        Err(Stop::Invalid) => Scan::Invalid,
        Err(Stop::Undecided) => Scan::Undecided,
    }
}

fn members(line: &[u8]) -> Result<Members<'_>, Stop> {
    let mut c = Cursor { b: line, i: 0 };
    let mut m = Members::default();
    c.expect(b'{')?;
    c.ws();
    if c.b.get(c.i) == Some(&b'}') {
        c.i += 1;
    } else {
        loop {
            c.expect(b'"')?;
            let start = c.i;
            if c.string()? {
                return Err(Stop::Undecided); // an escaped key may spell `type`
            }
            let key = &line[start..c.i - 1];
            if !key.is_ascii() && std::str::from_utf8(key).is_err() {
                return Err(Stop::Invalid); // serde reads keys as text
            }
            c.expect(b':')?;
            c.ws();
            let at = c.i;
            c.value()?;
            let raw = &line[at..c.i];
            // serde refuses a duplicate of a field it routes on.
            let dup = match key {
                b"type" => m.kind.replace(raw).is_some(),
                b"subtype" => m.subtype.replace(raw).is_some(),
                b"session_id" => m.session_id.replace(raw).is_some(),
                b"request_id" => m.request_id.replace(raw).is_some(),
                b"request" => m.request.replace(raw).is_some(),
                b"response" => m.response.replace(raw).is_some(),
                b"error" => {
                    m.error_twice |= m.error.replace(raw).is_some();
                    false
                }
                _ => false,
            };
            if dup {
                return Err(Stop::Invalid);
            }
            c.ws();
            match c.next()? {
                b',' => {}
                b'}' => break,
                _ => return Err(Stop::Invalid),
            }
        }
        m.control_fields = m.request_id.is_some() || m.request.is_some() || m.response.is_some();
    }
    c.ws();
    if c.i == line.len() {
        Ok(m)
    } else {
        Err(Stop::Invalid) // trailing characters
    }
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
