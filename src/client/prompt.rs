//! What a user turn can carry: text, content blocks, or a whole message.

use crate::protocol::{Content, ContentBlock, Message, UserMessage};

/// One user turn to send: plain text, content blocks (text, images,
/// documents), or a ready [`UserMessage`].
#[derive(Debug, Clone, PartialEq)]
pub enum Prompt {
    /// Plain text.
    Text(String),
    /// Content blocks, e.g. an image and a question about it.
    Blocks(Vec<ContentBlock>),
    /// A complete user message frame (sent as given).
    Message(Box<UserMessage>),
}

impl Prompt {
    /// The `user` frame for the CLI's stdin.
    pub(crate) fn into_message(self) -> UserMessage {
        match self {
            Self::Text(t) => UserMessage::prompt(Content::Text(t)),
            Self::Blocks(b) => UserMessage::prompt(Content::Blocks(b)),
            Self::Message(m) => *m,
        }
    }

    /// The frame as one NDJSON line (with `\n`).
    pub(crate) fn encode(message: &UserMessage) -> Result<bytes::Bytes, crate::Error> {
        let line = Message::User(Box::new(message.clone()))
            .to_line()
            .map_err(crate::Error::Encode)?;
        Ok(bytes::Bytes::from(line))
    }
}

impl From<&str> for Prompt {
    fn from(s: &str) -> Self {
        Self::Text(s.to_owned())
    }
}

impl From<String> for Prompt {
    fn from(s: String) -> Self {
        Self::Text(s)
    }
}

impl From<Vec<ContentBlock>> for Prompt {
    fn from(b: Vec<ContentBlock>) -> Self {
        Self::Blocks(b)
    }
}

impl From<UserMessage> for Prompt {
    fn from(m: UserMessage) -> Self {
        Self::Message(Box::new(m))
    }
}
