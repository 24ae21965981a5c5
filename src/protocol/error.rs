//! Typed errors for parsing and encoding protocol lines.

/// How many bytes of an offending line an error keeps.
pub(crate) const PREFIX_LEN: usize = 120;

/// Why a line could not be parsed into a protocol value.
///
/// Every variant carries `prefix`, the first ~120 bytes of the offending
/// line (lossy UTF-8), for diagnostics. Unknown message, block, subtype and
/// hook event types are *not* errors: they parse into `Unknown`/`Other`
/// variants.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The line is empty or is not JSON at all (e.g. noise on stdout).
    #[error("line is not json (starts {prefix:?})")]
    NotJson {
        /// The start of the offending line.
        prefix: String,
    },
    /// The line is valid JSON but not an object.
    #[error("line is json but not an object (starts {prefix:?})")]
    NotAnObject {
        /// The start of the offending line.
        prefix: String,
    },
    /// The line starts like a JSON object but is malformed or truncated.
    #[error("malformed json at line {line} column {column}: {reason} (line starts {prefix:?})")]
    Malformed {
        /// 1-based line of the error as reported by serde_json.
        line: usize,
        /// 1-based column of the error as reported by serde_json.
        column: usize,
        /// serde_json's description.
        reason: String,
        /// The start of the offending line.
        prefix: String,
    },
    /// A required field is absent.
    #[error("{message_type} is missing required field `{field}` (line starts {prefix:?})")]
    MissingField {
        /// The message type, e.g. `assistant` or `system/init`.
        message_type: &'static str,
        /// Dotted path of the field inside the message, e.g. `response.subtype`.
        field: String,
        /// The start of the offending line.
        prefix: String,
    },
    /// A field has the wrong JSON type or an invalid value.
    #[error("{message_type} has invalid field `{field}`: {reason} (line starts {prefix:?})")]
    InvalidField {
        /// The message type, e.g. `result`.
        message_type: &'static str,
        /// Dotted path of the field inside the message.
        field: String,
        /// What was wrong, from serde.
        reason: String,
        /// The start of the offending line.
        prefix: String,
    },
}

impl ParseError {
    /// The start of the offending line.
    pub fn prefix(&self) -> &str {
        match self {
            Self::NotJson { prefix }
            | Self::NotAnObject { prefix }
            | Self::Malformed { prefix, .. }
            | Self::MissingField { prefix, .. }
            | Self::InvalidField { prefix, .. } => prefix,
        }
    }
}

/// A protocol value could not be encoded as JSON.
///
/// The protocol types always serialize; this exists because serde's API is
/// fallible (it would surface e.g. a failing writer).
#[derive(Debug, thiserror::Error)]
#[error("could not encode protocol value as json")]
pub struct EncodeError(#[from] pub serde_json::Error);

/// The first [`PREFIX_LEN`] bytes of `line`, as text.
pub(crate) fn prefix_of(line: &[u8]) -> String {
    let end = line.len().min(PREFIX_LEN);
    String::from_utf8_lossy(&line[..end]).into_owned()
}
