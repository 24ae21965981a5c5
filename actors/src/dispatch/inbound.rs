//! A control request from the CLI, carried as the bytes it arrived in.
//!
//! The reader finds the `request` member's span in the line and hands the
//! line on; whoever answers decodes that span once, straight into its own
//! typed payload ([`RawRequest::decode`]). A `serde_json::Value` is built
//! only if someone asks for one ([`RawRequest::value`], or `Deref`).

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::OnceLock;

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

/// A control request from the CLI (`can_use_tool`, `hook_callback`,
/// `mcp_message`, or anything newer).
#[derive(Debug, Clone, PartialEq)]
pub struct InboundRequest {
    /// The CLI's request id (opaque).
    pub request_id: String,
    /// `request.subtype`.
    pub subtype: String,
    /// The whole `request` object, as received.
    pub request: RawRequest,
}

impl InboundRequest {
    /// A request built by hand (tests, replays): `request` is encoded once.
    pub fn new(
        request_id: impl Into<String>,
        subtype: impl Into<String>,
        request: impl Into<RawRequest>,
    ) -> Self {
        Self {
            request_id: request_id.into(),
            subtype: subtype.into(),
            request: request.into(),
        }
    }
}

/// The JSON text of a request object, shared with the line it came in.
#[derive(Clone)]
pub struct RawRequest {
    line: Bytes,
    span: Range<usize>,
    value: OnceLock<Value>,
}

impl RawRequest {
    /// The span `span` of `line`; `None` (out of bounds, not UTF-8) if it
    /// is not JSON text taken from that line.
    pub(crate) fn in_line(line: Bytes, span: Range<usize>) -> Option<Self> {
        std::str::from_utf8(line.get(span.clone())?).ok()?;
        Some(Self {
            line,
            span,
            value: OnceLock::new(),
        })
    }

    /// A request that had no `request` member.
    pub(crate) fn null() -> Self {
        let line = Bytes::from_static(b"null");
        Self {
            span: 0..line.len(),
            line,
            value: OnceLock::new(),
        }
    }

    /// The JSON text, exactly as the CLI sent it.
    pub fn json(&self) -> &[u8] {
        &self.line[self.span.clone()]
    }

    /// The JSON text as a `str` (it was checked to be UTF-8).
    pub fn raw(&self) -> &str {
        std::str::from_utf8(self.json()).unwrap_or("null")
    }

    /// Decodes the request into `T`, in one pass over its text.
    pub fn decode<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_slice(self.json())
    }

    /// The request as a `Value`, parsed on first use and kept (`Null` if
    /// it does not parse, which the reader's validation rules out).
    pub fn value(&self) -> &Value {
        self.value
            .get_or_init(|| serde_json::from_slice(self.json()).unwrap_or(Value::Null))
    }

    /// A member of the request object, if it is one (parses the request).
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self.value() {
            Value::Object(m) => m.get(key),
            _ => None,
        }
    }
}

impl Deref for RawRequest {
    type Target = Value;

    /// See [`RawRequest::value`].
    fn deref(&self) -> &Value {
        self.value()
    }
}

impl From<Value> for RawRequest {
    fn from(value: Value) -> Self {
        let line = Bytes::from(value.to_string());
        let cache = OnceLock::new();
        let _ = cache.set(value);
        Self {
            span: 0..line.len(),
            line,
            value: cache,
        }
    }
}

impl PartialEq for RawRequest {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json() || self.value() == other.value()
    }
}

impl fmt::Debug for RawRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw())
    }
}

impl fmt::Display for RawRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.raw())
    }
}

impl Default for RawRequest {
    fn default() -> Self {
        Self::null()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_span_of_the_line_decodes_without_a_value() {
        let line = Bytes::from_static(br#"{"request":{"subtype":"x","n":3},"z":1}"#);
        let r = RawRequest::in_line(line, 11..32).unwrap();
        assert_eq!(r.raw(), r#"{"subtype":"x","n":3}"#);
        #[derive(Deserialize)]
        struct N {
            n: u32,
        }
        assert_eq!(r.decode::<N>().unwrap().n, 3);
        assert!(r.value.get().is_none(), "decode built no Value");
        assert_eq!(r["n"], 3);
    }

    #[test]
    fn out_of_bounds_spans_are_refused() {
        assert!(RawRequest::in_line(Bytes::from_static(b"{}"), 1..5).is_none());
    }

    #[test]
    fn hand_built_requests_compare_by_value() {
        let a = RawRequest::from(json!({"a": 1, "b": 2}));
        let line = Bytes::from_static(br#"{ "b": 2, "a": 1 }"#);
        let b = RawRequest::in_line(line.clone(), 0..line.len()).unwrap();
        assert_eq!(a, b);
        assert_eq!(RawRequest::null().value(), &Value::Null);
    }
}
