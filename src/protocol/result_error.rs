//! [`ResultError`]: a `result` that ended its turn in error, as an `Err`.

use std::fmt;

use serde_json::Value;

use super::{ResultMessage, ResultSubtype, TerminalReason};

/// A turn that ended in error, from [`ResultMessage::into_result`]: the
/// subtype, the CLI's error messages, and the whole `result` line.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the turn ended in error ({}): {}", self.subtype(), Summary(self))]
pub struct ResultError {
    /// The `result` line, unchanged.
    pub message: Box<ResultMessage>,
}

impl ResultError {
    /// How the turn ended (`error_max_turns`, `error_during_execution`, or
    /// `success` with `is_error` set, as an API failure is).
    pub fn subtype(&self) -> &ResultSubtype {
        &self.message.subtype
    }

    /// The CLI's error messages (`errors`; string members only), else the
    /// `result` text of a failed `success`.
    pub fn errors(&self) -> Vec<&str> {
        let listed: Vec<&str> = self
            .message
            .errors
            .iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if listed.is_empty() {
            self.message.result.as_deref().into_iter().collect()
        } else {
            listed
        }
    }

    /// Why the CLI ended the turn, if it said.
    pub fn terminal_reason(&self) -> Option<&TerminalReason> {
        self.message.terminal_reason.as_ref()
    }

    /// HTTP status of the failing API call, if any.
    pub fn api_error_status(&self) -> Option<u16> {
        self.message.api_error_status
    }

    /// The `result` line.
    pub fn into_message(self) -> ResultMessage {
        *self.message
    }
}

/// The error text of a [`ResultError`]: its messages, or a fallback.
struct Summary<'a>(&'a ResultError);

impl fmt::Display for Summary<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let errors = self.0.errors();
        if errors.is_empty() {
            return match self.0.terminal_reason() {
                Some(r) => write!(f, "terminal reason {r}"),
                None => f.write_str("no error message"),
            };
        }
        f.write_str(&errors.join("; "))
    }
}

impl ResultMessage {
    /// `Ok(self)` for a turn that succeeded, else a [`ResultError`] carrying
    /// it; the test is [`ResultMessage::is_error`].
    ///
    /// ```
    /// use claude_agent::protocol::{Message, parse_message};
    /// let line = br#"{"type":"result","subtype":"error_max_turns","errors":["Reached maximum number of turns (1)"]}"#;
    /// let Ok(Message::Result(r)) = parse_message(line) else { panic!("a result") };
    /// let err = r.into_result().unwrap_err();
    /// assert_eq!(err.errors(), ["Reached maximum number of turns (1)"]);
    /// assert_eq!(
    ///     err.to_string(),
    ///     "the turn ended in error (error_max_turns): Reached maximum number of turns (1)"
    /// );
    /// ```
    pub fn into_result(self) -> Result<ResultMessage, ResultError> {
        if self.is_error() {
            Err(ResultError {
                message: Box::new(self),
            })
        } else {
            Ok(self)
        }
    }
}
