//! What a user turn can carry: text, content blocks, or a whole message.

use crate::protocol::{Content, ContentBlock, TaggedRef, UserMessage};

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

    /// This prompt marked `client_composed`: the CLI delivers its text as
    /// written, with no `@path` file expansion and no slash-command
    /// dispatch. Use it for text the end user did not type (a tenant's
    /// relayed text, tool output, earlier turns). See
    /// [`Options::verbatim_prompts`](crate::options::Options::verbatim_prompts)
    /// to mark every prompt of a client.
    ///
    /// ```
    /// use claude_agent::client::Prompt;
    /// let p = Prompt::from("summarize @/etc/hostname").verbatim();
    /// assert!(p.is_verbatim());
    /// ```
    pub fn verbatim(self) -> Self {
        let mut message = self.into_message();
        mark_verbatim(&mut message);
        Self::Message(Box::new(message))
    }

    /// Whether this prompt is marked `client_composed`.
    pub fn is_verbatim(&self) -> bool {
        matches!(self, Self::Message(m) if is_verbatim(m))
    }

    /// The frame as one NDJSON line (with `\n`).
    pub(crate) fn encode(message: &UserMessage) -> Result<bytes::Bytes, crate::Error> {
        let mut line = crate::protocol::to_json(&TaggedRef {
            key: "type",
            tag: "user",
            body: message,
        })
        .map_err(crate::Error::Encode)?;
        line.push('\n');
        Ok(bytes::Bytes::from(line))
    }
}

/// Marks `message` so the CLI delivers its text as written.
pub(crate) fn mark_verbatim(message: &mut UserMessage) {
    // `client_composed`: Claude Code 2.1.248 and later; older versions
    // ignore it and still expand the text.
    message.client_composed = Some(true);
}

/// Whether `message` carries `client_composed: true`.
pub(crate) fn is_verbatim(message: &UserMessage) -> bool {
    message.client_composed == Some(true)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::protocol::{Message, parse_message};

    #[test]
    fn a_prompt_is_written_as_the_user_message_its_enum_would_write() {
        let line = br#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"}]},"parent_tool_use_id":null,"session_id":"s1","x_extra":[1]}"#;
        let Message::User(user) = parse_message(line).unwrap() else {
            panic!("not a user message");
        };
        let mut marked = (*user).clone();
        mark_verbatim(&mut marked);
        for message in [*user, marked] {
            let written = Prompt::encode(&message).unwrap();
            let through_enum = Message::User(Box::new(message)).to_line().unwrap();
            assert_eq!(written, through_enum.as_bytes());
            assert!(written.ends_with(b"\n"));
        }
    }
}
