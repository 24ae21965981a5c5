//! The finished command line: [`CliCommand`], and what the SDK layer adds
//! ([`CommandContext`]).

use std::ffi::OsString;
use std::path::PathBuf;

use super::{Options, OptionsError};

/// What the SDK layer knows that [`Options`] does not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandContext {
    /// A permission callback is registered: the CLI must send `can_use_tool`
    /// requests (`--permission-prompt-tool stdio`).
    pub permission_callback: bool,
    /// W3C `traceparent` of the active trace, exported as `TRACEPARENT`.
    pub trace_parent: Option<String>,
    /// W3C `tracestate` of the active trace, exported as `TRACESTATE`.
    pub trace_state: Option<String>,
    /// A session store mirrors the transcript: the CLI must print
    /// `transcript_mirror` frames (`--session-mirror`).
    pub session_mirror: bool,
}

impl CommandContext {
    /// With (or without) a registered permission callback.
    pub fn with_permission_callback(mut self, on: bool) -> Self {
        self.permission_callback = on;
        self
    }

    /// With (or without) a session store mirroring the transcript.
    pub fn with_session_mirror(mut self, on: bool) -> Self {
        self.session_mirror = on;
        self
    }

    /// With the active trace's `traceparent` and, if any, `tracestate`.
    pub fn with_trace(mut self, parent: impl Into<String>, state: Option<String>) -> Self {
        self.trace_parent = Some(parent.into());
        self.trace_state = state;
        self
    }
}

/// A fully resolved CLI invocation, ready for a process spawner.
///
/// The child inherits the host's environment, minus `env_remove`, with `env`
/// set on top (each key appears once in `env`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CliCommand {
    /// The CLI executable.
    pub program: PathBuf,
    /// Arguments, not including the program.
    pub args: Vec<OsString>,
    /// Variables to set.
    pub env: Vec<(OsString, OsString)>,
    /// Inherited variables to remove.
    pub env_remove: Vec<OsString>,
    /// Working directory; `None` inherits the host's.
    pub cwd: Option<PathBuf>,
}

impl Options {
    /// Validate and build the command that starts the CLI at `program`.
    ///
    /// Fails with a typed [`OptionsError`] before anything is spawned. Reads
    /// the filesystem only to check the cwd and, when sandbox settings must
    /// be merged into a settings file, to read that file.
    pub fn to_command(
        &self,
        program: PathBuf,
        ctx: &CommandContext,
    ) -> Result<CliCommand, OptionsError> {
        self.validate(ctx)?;
        let args = super::argv::build(self, ctx)?;
        let env = super::env::build(self, ctx);
        Ok(CliCommand {
            program,
            args,
            env: env.set,
            env_remove: env.remove,
            cwd: self.cwd.clone(),
        })
    }
}
