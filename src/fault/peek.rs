//! The envelope of one NDJSON line: `type`, the subtype (of a `system`
//! frame or of a control request's `request`), the request id (of a
//! control request, a cancel, or a reply's `response`). Other members are
//! skipped without being built.

use std::borrow::Cow;

use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
struct Inner<'a> {
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    request_id: Option<Cow<'a, str>>,
}

/// The members of a line that decide which points it meets.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct Peek<'a> {
    #[serde(rename = "type", borrow, default)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    subtype: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    request_id: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    request: Option<Inner<'a>>,
    #[serde(borrow, default)]
    response: Option<Inner<'a>>,
}

impl<'a> Peek<'a> {
    /// The envelope of `line`; a line that is not a JSON object has none
    /// (kind `""`).
    pub(crate) fn of(line: &'a [u8]) -> Self {
        serde_json::from_slice(line).unwrap_or_default()
    }

    pub(crate) fn kind(&self) -> &str {
        self.kind.as_deref().unwrap_or("")
    }

    /// `request.subtype` of a control request, else `subtype`.
    pub(crate) fn subtype(&self) -> Option<&str> {
        match (&self.request, self.kind()) {
            (Some(r), "control_request") => r.subtype.as_deref(),
            _ => self.subtype.as_deref(),
        }
    }

    pub(crate) fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// `response.request_id` of a control response.
    pub(crate) fn response_request_id(&self) -> Option<&str> {
        self.response.as_ref().and_then(|r| r.request_id.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_request_subtype_and_id_are_read_from_their_places() {
        let line = br#"{"type":"control_request","request_id":"r1","request":{"subtype":"can_use_tool","input":{"x":[1,2]}}}"#;
        let p = Peek::of(line);
        assert_eq!(
            (p.kind(), p.subtype(), p.request_id()),
            ("control_request", Some("can_use_tool"), Some("r1"))
        );
        let reply =
            br#"{"type":"control_response","response":{"subtype":"success","request_id":"r1"}}"#;
        assert_eq!(Peek::of(reply).response_request_id(), Some("r1"));
        let init = br#"{"type":"system","subtype":"init","tools":[]}"#;
        assert_eq!(Peek::of(init).subtype(), Some("init"));
        assert_eq!(Peek::of(b"not json").kind(), "");
    }
}
