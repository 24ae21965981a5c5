//! What a session store can fail with.

/// A [`SessionStore`](super::SessionStore) operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store does not implement this optional operation.
    #[error("this session store does not support {operation}")]
    Unsupported {
        /// The operation asked for, e.g. `list_sessions`.
        operation: &'static str,
    },
    /// The key cannot be stored (an empty part, or a part this store
    /// cannot represent, e.g. a `/` in a file store's session id).
    #[error("invalid session key {key}: {reason}")]
    InvalidKey {
        /// The key, as `project/session[/subpath]`.
        key: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An entry to append is not a JSON object.
    #[error("entry {index} of the batch for {key} is not a JSON object")]
    NotAnObject {
        /// The key appended to.
        key: String,
        /// The entry's position in the batch.
        index: usize,
    },
    /// The backend (filesystem, database, server) failed.
    #[error("session store backend failed to {action}")]
    Backend {
        /// What the store was doing, e.g. `append to proj/sess`.
        action: String,
        /// The backend's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Stored data could not be read back (not JSON, or not the shape the
    /// store wrote).
    #[error("corrupt data in the session store at {location}: {what}")]
    Corrupt {
        /// Where: a file and line, a table row, a server key.
        location: String,
        /// What is wrong there.
        what: String,
    },
    /// The per-session lock could not be taken in time (another writer
    /// holds it).
    #[error("timed out after {waited_ms} ms waiting for the lock {lock}")]
    LockTimeout {
        /// The lock: a file's path, a server key.
        lock: String,
        /// How long the store waited.
        waited_ms: u64,
    },
    /// Concurrent writers kept changing the session while this append
    /// retried; nothing of this batch was written.
    #[error(
        "gave up appending to {key} after {attempts} attempts: concurrent writers kept changing it"
    )]
    Contended {
        /// The key appended to.
        key: String,
        /// How many times the store tried.
        attempts: u32,
    },
    /// A store URL could not be used (see [`open_store`](super::open_store)).
    #[error("cannot open session store {url}: {reason}")]
    BadUrl {
        /// The URL, without credentials.
        url: String,
        /// What is wrong.
        reason: String,
    },
}

impl StoreError {
    /// A [`StoreError::Backend`] for `action`.
    pub fn backend(
        action: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self::Backend {
            action: action.into(),
            source: source.into(),
        }
    }

    /// [`StoreError::Unsupported`] for `operation`: what the optional
    /// methods of [`SessionStore`](super::SessionStore) return by default.
    pub fn unsupported(operation: &'static str) -> Self {
        Self::Unsupported { operation }
    }

    /// Whether this says the operation is not implemented.
    pub fn is_unsupported(&self) -> bool {
        matches!(self, Self::Unsupported { .. })
    }

    pub(crate) fn invalid_key(key: &super::SessionKey, reason: impl Into<String>) -> Self {
        Self::InvalidKey {
            key: key.to_string(),
            reason: reason.into(),
        }
    }
}
