//! `workspaceTrust`: the host's word that the user accepted a trust dialog
//! for a directory before the session started, the launch-time twin of
//! `set_cwd`'s `trust_accepted`. The CLI honours it once, on the session's
//! first `initialize` (or, for a spare, in `claim_session`), when the
//! directory resolves to the trust key of the session's working directory
//! (a repository's root when inside one), and persists the grant as its
//! terminal trust dialog does; `workspace_trust_recorded` in the reply says
//! whether it did.

use std::path::PathBuf;

use serde_json::{Value, json};

/// A trust attestation for [`Options::workspace_trust`](super::Options)
/// and [`Claim::workspace_trust`](crate::client::Claim::workspace_trust).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct WorkspaceTrust {
    /// Whether the user accepted the dialog. Send `true` only after showing
    /// one.
    pub accepted: bool,
    /// The directory the dialog named, absolute, as it exists where the CLI
    /// runs. Required when `accepted`: an accepted attestation without an
    /// absolute directory is not sent (as the TypeScript SDK drops it).
    pub directory: Option<PathBuf>,
}

impl WorkspaceTrust {
    /// The user accepted the trust dialog for `directory`.
    pub fn accepted(directory: impl Into<PathBuf>) -> Self {
        Self {
            accepted: true,
            directory: Some(directory.into()),
        }
    }

    /// Whether an accepted attestation names no absolute directory, so it
    /// is not sent.
    fn unusable(&self) -> bool {
        self.accepted && !self.directory.as_ref().is_some_and(|d| d.is_absolute())
    }

    /// The `initialize` value (`{accepted, directory}`), or `None`, with a
    /// warning, when it is unusable.
    pub(crate) fn initialize_value(&self) -> Option<Value> {
        if self.unusable() {
            tracing::warn!(
                "workspace_trust ignored: accepted requires an absolute directory, as it exists where the CLI runs"
            );
            return None;
        }
        let mut value = json!({"accepted": self.accepted});
        if let Some(dir) = &self.directory {
            value["directory"] = dir.to_string_lossy().into_owned().into();
        }
        Some(value)
    }

    /// The `claim_session` value: sent only when accepted (a claim has no
    /// use for a refusal).
    pub(crate) fn claim_value(&self) -> Option<Value> {
        self.initialize_value().filter(|_| self.accepted)
    }
}
