//! The crate's top-level error.
//!
//! Each module has its own precise error ([`OptionsError`],
//! [`DiscoveryError`], [`ParseError`], the runtime's [`StartError`],
//! [`SessionError`] and [`ControlError`]); [`Error`] gathers them for
//! callers that want one type, and grows new variants without breaking
//! anyone (`#[non_exhaustive]`). Every wrapped error is the variant's
//! [`source()`](std::error::Error::source), so a report walks the chain
//! down to the OS error.

use crate::discovery::DiscoveryError;
use crate::options::{CapabilityError, OptionsError};
use crate::protocol::{EncodeError, ParseError};
use crate::runtime::channel::ChannelError;
use crate::runtime::{ControlError, SessionError, StartError};
#[cfg(feature = "transcript")]
use crate::transcript::RecordingError;

/// Anything this crate can fail with.
///
/// Its `Debug` form is a report, as `anyhow`'s is: the message and then
/// each cause, on one line, so `fn main() -> claude_agent::Result<()>`
/// prints what the tool would (`{:#?}` gives the structure instead).
///
/// ```
/// use claude_agent::Error;
/// use claude_agent::options::OptionsError;
///
/// let e = Error::from(OptionsError::ZeroMaxTurns);
/// assert!(e.is_invalid_options());
/// assert_eq!(format!("{e:?}"), "invalid options: max_turns must be at least 1");
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The options do not make a valid CLI invocation.
    #[error("invalid options")]
    Options(#[from] OptionsError),
    /// The `claude` executable could not be found or used.
    #[error(transparent)]
    Discovery(#[from] DiscoveryError),
    /// A line from the CLI could not be parsed.
    #[error("protocol error")]
    Parse(#[from] ParseError),
    /// The session could not be started: the CLI or its cwd is missing, it
    /// exited before answering `initialize` (exit status and stderr tail
    /// inside), or `initialize` timed out.
    #[error("failed to start the session")]
    Start(#[from] StartError),
    /// The session failed while running, e.g. the CLI closed its output
    /// before the turn's result (exit status and stderr tail inside).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// A control request (interrupt, set_model, ...) failed.
    #[error("control request failed")]
    Control(#[from] ControlError),
    /// A frame could not be encoded as JSON.
    #[error("failed to encode a frame")]
    Encode(#[from] EncodeError),
    /// A reply from the CLI did not decode into its type (e.g. the
    /// `initialize` reply into [`ServerInfo`](crate::protocol::ServerInfo)).
    #[error("failed to decode the CLI's reply")]
    Decode(#[source] serde_json::Error),
    /// The raw-frame recording could not be opened (feature `transcript`).
    #[cfg(feature = "transcript")]
    #[error(transparent)]
    Recording(#[from] RecordingError),
    /// The configuration cannot work (e.g. in-process MCP servers together
    /// with an `--mcp-config` file path).
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// Resuming with a session store: the session could not be loaded from
    /// the store or written where the CLI reads it; nothing was started
    /// (feature `store`).
    #[cfg(feature = "store")]
    #[error("failed to restore the session from the store")]
    Resume(#[from] crate::store::ResumeError),
    /// The CLI's `initialize` reply does not confirm what the options rely
    /// on (fail-closed hooks, MCP servers sent in `initialize`); the session
    /// was shut down before any prompt.
    #[error("the session cannot run as configured")]
    Capability(#[from] CapabilityError),
    /// A turn ended in an error result
    /// ([`ResultMessage::into_result`](crate::protocol::ResultMessage::into_result)),
    /// so `?` can pass it on.
    #[error(transparent)]
    Result(#[from] Box<crate::protocol::ResultError>),
    /// A user's [`Extension`](crate::extensions::Extension) failed the
    /// connect (see [`Error::extension`]).
    #[error("extension {extension} failed the connect")]
    Extension {
        /// The extension's name.
        extension: String,
        /// Why.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// [`ClientBuilder::prewarm`](crate::client::ClientBuilder::prewarm) could not
    /// make the spare's parking directory.
    #[error("could not make the spare's parking directory {}", path.display())]
    ParkingDir {
        /// The directory.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

impl std::fmt::Debug for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if f.alternate() {
            return self.fmt_structure(f);
        }
        f.write_str(&report(self))
    }
}

/// An error and its causes on one line: the message, then `: ` and every
/// cause the text does not already say. This crate's errors never repeat
/// their source, but foreign ones in a chain do: `redis::RedisError`
/// prints its inner error and returns it from `source()`, and so does
/// async-nats's `ConnectError` (a store backend's or the fleet's source).
pub(crate) fn report(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}

impl Error {
    /// `{:#?}`: the variant and its value's own `Debug`.
    fn fmt_structure(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (name, value): (&str, &dyn std::fmt::Debug) = match self {
            Self::Options(e) => ("Options", e),
            Self::Discovery(e) => ("Discovery", e),
            Self::Parse(e) => ("Parse", e),
            Self::Start(e) => ("Start", e),
            Self::Session(e) => ("Session", e),
            Self::Control(e) => ("Control", e),
            Self::Encode(e) => ("Encode", e),
            Self::Decode(e) => ("Decode", e),
            #[cfg(feature = "transcript")]
            Self::Recording(e) => ("Recording", e),
            Self::InvalidConfig(e) => ("InvalidConfig", e),
            #[cfg(feature = "store")]
            Self::Resume(e) => ("Resume", e),
            Self::Capability(e) => ("Capability", e),
            Self::Result(e) => ("Result", e),
            Self::Extension { extension, source } => {
                return f
                    .debug_struct("Extension")
                    .field("extension", extension)
                    .field("source", source)
                    .finish();
            }
            Self::ParkingDir { path, source } => {
                return f
                    .debug_struct("ParkingDir")
                    .field("path", path)
                    .field("source", source)
                    .finish();
            }
        };
        f.debug_tuple(name).field(value).finish()
    }
}

impl From<crate::protocol::ResultError> for Error {
    fn from(e: crate::protocol::ResultError) -> Self {
        Self::Result(Box::new(e))
    }
}

impl Error {
    /// The error an [`Extension`](crate::extensions::Extension) named
    /// `extension` fails a connect with.
    ///
    /// ```
    /// let e = claude_agent::Error::extension("min_version", "the CLI is 2.0.1, older than 2.1.0");
    /// assert_eq!(e.to_string(), "extension min_version failed the connect");
    /// ```
    pub fn extension(
        extension: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self::Extension {
            extension: extension.into(),
            source: source.into(),
        }
    }

    /// Whether the CLI executable could not be found (install it with
    /// [`INSTALL_COMMAND`](crate::discovery::INSTALL_COMMAND)).
    pub fn is_cli_not_found(&self) -> bool {
        matches!(
            self,
            Self::Discovery(_) | Self::Start(StartError::Channel(ChannelError::NotFound { .. }))
        )
    }

    /// Whether the options were rejected before anything was started.
    pub fn is_invalid_options(&self) -> bool {
        matches!(self, Self::Options(_) | Self::InvalidConfig(_))
    }

    /// Whether a wait ran out: `initialize` or a control request got no
    /// reply in time.
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            Self::Start(StartError::InitializeTimeout { .. })
                | Self::Control(ControlError::Timeout { .. })
        )
    }

    /// Whether the CLI went away: it exited before `initialize`, closed its
    /// output before a turn's result, or closed before replying.
    pub fn is_closed(&self) -> bool {
        matches!(
            self,
            Self::Start(StartError::ExitedBeforeInitialize { .. })
                | Self::Session(SessionError::ClosedBeforeResult { .. })
                | Self::Control(ControlError::Closed { .. })
        )
    }

    /// How the CLI ended, when this error knows: it exited before
    /// answering `initialize`, closed its output before a turn's result,
    /// or went away before replying to a control request.
    pub fn exit(&self) -> Option<crate::runtime::process::ExitInfo> {
        match self {
            Self::Start(StartError::ExitedBeforeInitialize { exit, .. })
            | Self::Session(SessionError::ClosedBeforeResult { exit, .. })
            | Self::Control(ControlError::Closed { exit, .. }) => *exit,
            _ => None,
        }
    }

    /// The CLI's last stderr lines (joined with `\n`), when this error
    /// carries them (the same cases as [`exit`](Self::exit), and an
    /// `initialize` that timed out).
    pub fn stderr_tail(&self) -> Option<&str> {
        match self {
            Self::Start(
                StartError::ExitedBeforeInitialize { stderr_tail, .. }
                | StartError::InitializeTimeout { stderr_tail, .. },
            )
            | Self::Session(SessionError::ClosedBeforeResult { stderr_tail, .. })
            | Self::Control(ControlError::Closed { stderr_tail, .. }) => Some(stderr_tail),
            _ => None,
        }
    }

    /// Whether the session was shutting down and refused new work.
    pub fn is_shutting_down(&self) -> bool {
        matches!(
            self,
            Self::Session(SessionError::ShuttingDown) | Self::Control(ControlError::ShuttingDown)
        )
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_cli_says_how_to_install_it() {
        let e = Error::from(DiscoveryError::NotFound { searched: vec![] });
        assert!(e.is_cli_not_found());
        assert!(!e.is_invalid_options());
        assert!(
            e.to_string()
                .contains("npm install -g @anthropic-ai/claude-code")
        );
    }

    #[test]
    fn the_debug_form_is_a_report_and_the_alternate_form_the_structure() {
        let e = Error::from(DiscoveryError::NotFound { searched: vec![] });
        let report = format!("{e:?}");
        assert_eq!(report, e.to_string());
        assert!(report.contains("npm install -g @anthropic-ai/claude-code"));
        assert!(format!("{e:#?}").starts_with("Discovery(\n    NotFound {"));
    }

    #[test]
    fn a_cli_that_exited_before_initialize_says_how_it_ended() {
        let exit = crate::runtime::process::ExitInfo {
            code: Some(3),
            signal: None,
        };
        let e = Error::from(StartError::ExitedBeforeInitialize {
            exit: Some(exit),
            stderr_tail: "loading\nfatal: no config".into(),
        });
        assert_eq!(e.exit(), Some(exit));
        assert_eq!(e.stderr_tail(), Some("loading\nfatal: no config"));
        let e = Error::from(OptionsError::ZeroMaxTurns);
        assert_eq!((e.exit(), e.stderr_tail()), (None, None));
    }

    #[test]
    fn options_errors_say_what_failed_and_carry_the_reason_as_source() {
        let e = Error::from(OptionsError::ZeroMaxTurns);
        assert!(e.is_invalid_options());
        assert_eq!(e.to_string(), "invalid options");
        assert_eq!(
            format!("{e:?}"),
            "invalid options: max_turns must be at least 1"
        );
    }
}
