//! Reading back what a program commonly needs from its [`Options`]: the
//! working directory, the model, the permission mode and the rest that
//! logs and reports name.
//!
//! Options are set in one way only, by their consuming builder methods;
//! the fields are private. The getters carry clap's `get_` prefix because
//! each setter already has the field's name.

use std::path::Path;

use super::{Options, PermissionMode};

impl Options {
    /// The working directory the CLI starts in, if set.
    pub fn get_cwd(&self) -> Option<&Path> {
        self.cwd.as_deref()
    }

    /// The CLI binary to run, if set (else discovery decides).
    pub fn get_cli_path(&self) -> Option<&Path> {
        self.cli_path.as_deref()
    }

    /// The model, if set.
    pub fn get_model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// The permission mode, if set.
    pub fn get_permission_mode(&self) -> Option<PermissionMode> {
        self.permission_mode
    }

    /// Tools allowed without asking.
    pub fn get_allowed_tools(&self) -> &[String] {
        &self.allowed_tools
    }

    /// The session this one resumes, if any.
    pub fn get_resume(&self) -> Option<&str> {
        self.resume.as_deref()
    }

    /// The turn limit, if set.
    pub fn get_max_turns(&self) -> Option<u32> {
        self.max_turns
    }

    /// Whether partial (streaming) messages are asked for.
    pub fn get_include_partial_messages(&self) -> bool {
        self.include_partial_messages
    }
}
