//! `system/mirror_error`: a session store could not keep a mirrored batch.
//!
//! The CLI never writes this line: the SDK emits it into the message stream
//! when a session store's append fails, so it is constructible here.

wire_struct! {
    /// `system/mirror_error`: a session store append failed after its
    /// retries; the batch was dropped (the local transcript is intact).
    ///
    /// ```
    /// use claude_agent::protocol::{Message, MirrorError, MirrorKey, SystemMessage};
    /// let key = MirrorKey::new("proj", "sess-1");
    /// let m = Message::from(SystemMessage::from(MirrorError::new(key, "store down", "u-1")));
    /// assert_eq!(m.kind(), "system/mirror_error");
    /// let json: serde_json::Value = serde_json::from_str(&m.to_json().unwrap()).unwrap();
    /// assert_eq!(json["key"]["sessionId"], "sess-1");
    /// assert_eq!(json["session_id"], "sess-1");
    /// ```
    #[derive(Default)]
    pub struct MirrorError = "system/mirror_error", builder MirrorErrorBuilder {
        /// What failed.
        error: opt String = "error",
        /// The session whose batch was dropped.
        key: opt MirrorKey = "key",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The session id.
        session_id: opt String = "session_id",
    }
}

wire_struct! {
    /// Which session file a [`MirrorError`] is about.
    #[derive(Default)]
    pub struct MirrorKey = "mirror key", builder MirrorKeyBuilder {
        /// The project key.
        project_key: opt String = "projectKey",
        /// The session id.
        session_id: opt String = "sessionId",
        /// A subagent's file within the session, if any.
        subpath: opt String = "subpath",
    }
}

impl MirrorKey {
    /// The key of a session's main file.
    pub fn new(project_key: impl Into<String>, session_id: impl Into<String>) -> Self {
        Self {
            project_key: Some(project_key.into()),
            session_id: Some(session_id.into()),
            ..Self::default()
        }
    }

    /// The same key for a file within the session (a subagent's).
    pub fn with_subpath(mut self, subpath: impl Into<String>) -> Self {
        self.subpath = Some(subpath.into());
        self
    }
}

impl MirrorError {
    /// The message for a failed append of `key`'s batch; `uuid` names this
    /// line. The session id is the key's.
    pub fn new(key: MirrorKey, error: impl Into<String>, uuid: impl Into<String>) -> Self {
        Self {
            error: Some(error.into()),
            session_id: key.session_id.clone(),
            key: Some(key),
            uuid: Some(uuid.into()),
            extra: Default::default(),
        }
    }
}

impl From<MirrorError> for super::SystemMessage {
    fn from(m: MirrorError) -> Self {
        Self::MirrorError(Box::new(m))
    }
}
