//! Moving a running session to another working directory: the CLI's
//! `set_cwd` control (the headless twin of `/cd`; the CLI marks it
//! internal, neither official SDK wraps it). Sent before the first turn,
//! it lets one warm CLI serve a session in a directory chosen after it
//! started: the first request is built as if it had been launched there.
//! SessionStart hooks are not run again, and the settings read at start-up
//! (project `env`, model, MCP servers of the old directory) stay.

use std::path::Path;

use super::Client;
use crate::protocol::{ControlRequestPayload, SetCwd, SetCwdReply};
use crate::{Error, Result};

/// What [`Client::set_cwd`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CwdChange {
    /// The session runs in `cwd` now (`changed` false: it already did).
    Moved {
        /// The canonical directory.
        cwd: String,
        /// False when it was already the working directory.
        changed: bool,
        /// False only when the transcript could not follow the move, so a
        /// lookup of the session by directory will miss it.
        transcript_relocated: bool,
    },
    /// Nothing changed: the directory is not trusted yet. Show the user a
    /// trust dialog for `directory` and, on accept, call
    /// [`Client::set_cwd_trusting`] with it.
    NeedsTrust {
        /// The canonical directory, safe to show verbatim.
        directory: String,
        /// The repository root that accepting would trust as a whole.
        trust_root: Option<String>,
    },
    /// The CLI refused (`not_found`, `not_a_directory`, `blocked_by_rule`,
    /// `busy` while a turn runs, `unsafe_path`, ...).
    Rejected {
        /// The CLI's reason code.
        reason: String,
        /// Its explanation.
        message: String,
    },
}

impl Client {
    /// Moves the session to `path`. Before the first turn the first request
    /// is built as if the CLI had been launched there; after a turn the
    /// move is appended as a notice. SessionStart hooks are not run again,
    /// and what was read at start-up (project `env`, model, MCP servers)
    /// stays. Refused (`busy`) while a turn runs.
    pub async fn set_cwd(&self, path: impl AsRef<Path>) -> Result<CwdChange> {
        self.send_set_cwd(path.as_ref(), None).await
    }

    /// [`set_cwd`](Self::set_cwd) after the user accepted the trust dialog
    /// for `trusted_directory` (the `directory` of a
    /// [`CwdChange::NeedsTrust`]): the CLI records it as trusted first.
    pub async fn set_cwd_trusting(
        &self,
        path: impl AsRef<Path>,
        trusted_directory: &str,
    ) -> Result<CwdChange> {
        self.send_set_cwd(path.as_ref(), Some(trusted_directory))
            .await
    }

    async fn send_set_cwd(&self, path: &Path, trusted: Option<&str>) -> Result<CwdChange> {
        let path = path.to_str().ok_or_else(|| {
            Error::InvalidConfig(format!(
                "set_cwd: the path {} is not valid UTF-8",
                path.display()
            ))
        })?;
        let request = SetCwd {
            path: Some(path.to_owned()),
            trust_accepted: trusted.map(|_| true),
            trusted_directory: trusted.map(str::to_owned),
            ..SetCwd::default()
        };
        let reply: SetCwdReply = self
            .control_typed(&ControlRequestPayload::SetCwd(request))
            .await?;
        Ok(CwdChange::from_reply(reply))
    }
}

impl CwdChange {
    /// Reads the reply by its `status`; an unknown status is a rejection
    /// naming it, so a newer CLI's answer is never taken for a move.
    fn from_reply(r: SetCwdReply) -> Self {
        match r.status.as_deref() {
            Some("ok") => Self::Moved {
                cwd: r.cwd.unwrap_or_default(),
                changed: r.changed.unwrap_or(true),
                transcript_relocated: r.transcript_relocated.unwrap_or(true),
            },
            Some("needs_trust") => Self::NeedsTrust {
                directory: r.directory.unwrap_or_default(),
                trust_root: r.trust_root,
            },
            Some("rejected") => Self::Rejected {
                reason: r.reason.unwrap_or_default(),
                message: r.message.unwrap_or_default(),
            },
            other => Self::Rejected {
                reason: "unknown_status".to_owned(),
                message: format!("set_cwd answered with status {other:?}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: serde_json::Value) -> CwdChange {
        CwdChange::from_reply(serde_json::from_value(v).unwrap())
    }

    #[test]
    fn each_status_reads_as_its_change() {
        assert_eq!(
            read(json!({"status": "ok", "cwd": "/w/b", "changed": true,
                        "transcript_relocated": true})),
            CwdChange::Moved {
                cwd: "/w/b".into(),
                changed: true,
                transcript_relocated: true
            }
        );
        assert_eq!(
            read(json!({"status": "needs_trust", "directory": "/w/b"})),
            CwdChange::NeedsTrust {
                directory: "/w/b".into(),
                trust_root: None
            }
        );
        assert_eq!(
            read(json!({"status": "rejected", "reason": "busy", "message": "a turn runs"})),
            CwdChange::Rejected {
                reason: "busy".into(),
                message: "a turn runs".into()
            }
        );
        assert!(matches!(
            read(json!({"status": "later"})),
            CwdChange::Rejected { reason, .. } if reason == "unknown_status"
        ));
    }

    #[test]
    fn a_trusted_move_sends_the_attestation() {
        let request = SetCwd {
            path: Some("b".into()),
            trust_accepted: Some(true),
            trusted_directory: Some("/w/b".into()),
            ..SetCwd::default()
        };
        let v = serde_json::to_value(ControlRequestPayload::SetCwd(request)).unwrap();
        assert_eq!(
            v,
            json!({"subtype": "set_cwd", "path": "b", "trust_accepted": true,
                   "trusted_directory": "/w/b"})
        );
    }
}
