//! JSON text for argv values, spaced like the official Python SDK
//! (`json.dumps`: `", "` between items, `": "` after keys) so our argv is
//! byte-identical to the recorded fixtures.

use serde::Serialize;
use serde_json::ser::Formatter;
use std::io;

use super::OptionsError;

/// `serde_json` formatter with Python's default separators.
struct PySpaced;

impl Formatter for PySpaced {
    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// Serialize `value` as one line of Python-spaced JSON.
pub(crate) fn to_argv_json<T: Serialize + ?Sized>(
    value: &T,
    what: &'static str,
) -> Result<String, OptionsError> {
    let mut out = Vec::new();
    let mut ser = serde_json::Serializer::with_formatter(&mut out, PySpaced);
    value
        .serialize(&mut ser)
        .map_err(|source| OptionsError::Json { what, source })?;
    // serde_json only writes valid UTF-8.
    String::from_utf8(out).map_err(|e| OptionsError::Json {
        what,
        source: serde::ser::Error::custom(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn matches_python_json_dumps_spacing() {
        let v = json!({"a": [1, 2, {"b": null}], "c": "x"});
        assert_eq!(
            to_argv_json(&v, "test").unwrap(),
            r#"{"a": [1, 2, {"b": null}], "c": "x"}"#
        );
        assert_eq!(to_argv_json(&json!({}), "test").unwrap(), "{}");
        assert_eq!(to_argv_json(&json!([]), "test").unwrap(), "[]");
    }
}
