//! What a session helper can fail with.

use crate::store::StoreError;

/// A session helper failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionsError {
    /// The id is not a session id (the CLI's are UUIDs).
    #[error("{id:?} is not a session id (expected a UUID)")]
    InvalidSessionId {
        /// The id given.
        id: String,
    },
    /// The project key cannot name a project folder.
    #[error("{key:?} is not a usable project key")]
    InvalidProjectKey {
        /// The key given.
        key: String,
    },
    /// No such session in the source (`project_key` is `*` when every
    /// project was searched).
    #[error("session {session_id} not found in project {project_key}")]
    NotFound {
        /// The project searched.
        project_key: String,
        /// The session looked for.
        session_id: String,
    },
    /// A title or tag is empty once trimmed.
    #[error("the {what} is empty")]
    Empty {
        /// `title` or `tag`.
        what: &'static str,
    },
    /// The session has no messages to fork.
    #[error("session {session_id} has no messages to fork")]
    NothingToFork {
        /// The session.
        session_id: String,
    },
    /// The fork's cut-off message is not in the session.
    #[error("message {uuid} not found in session {session_id}")]
    MessageNotFound {
        /// The session.
        session_id: String,
        /// The message asked for.
        uuid: String,
    },
    /// Reading or writing the CLI's local transcripts failed.
    #[error("cannot {action}")]
    Io {
        /// What was being done, naming the file.
        action: String,
        /// The filesystem's error.
        #[source]
        source: std::io::Error,
    },
    /// The CLI's config folder could not be located.
    #[error("cannot find the Claude config folder: set CLAUDE_CONFIG_DIR or HOME")]
    NoConfigDir,
    /// The operation needs the CLI's local transcripts; a session store
    /// cannot do it (it is keyed by project, and holds no archive marks).
    #[error("{what} works on the CLI's local transcripts only, not on a session store")]
    LocalOnly {
        /// What was asked: `listing every project`, `archiving`, ...
        what: &'static str,
    },
    /// The session store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl SessionsError {
    pub(crate) fn io(action: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            action: action.into(),
            source,
        }
    }

    pub(crate) fn not_found(project_key: &str, session_id: &str) -> Self {
        Self::NotFound {
            project_key: project_key.to_owned(),
            session_id: session_id.to_owned(),
        }
    }
}

/// Reject an id that is not a session id.
pub(crate) fn check_session_id(id: &str) -> Result<(), SessionsError> {
    if crate::store::is_session_id(id) {
        Ok(())
    } else {
        Err(SessionsError::InvalidSessionId { id: id.to_owned() })
    }
}
