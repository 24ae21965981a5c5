//! The text of a block, a message and a result: what most programs print.
//!
//! The CLI writes one content block per `assistant` line, so a reply's text
//! arrives in pieces; [`Message::text`] gives each piece, in order.

use super::{AssistantMessage, ContentBlock, Message, ResultMessage};

impl ContentBlock {
    /// The text of a `text` block; `None` for any other kind.
    ///
    /// ```
    /// use claude_agent::protocol::ContentBlock;
    /// assert_eq!(ContentBlock::text("hi").as_text(), Some("hi"));
    /// ```
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(t.text.as_deref().unwrap_or_default()),
            _ => None,
        }
    }
}

impl AssistantMessage {
    /// The text of this message's `text` blocks, joined; `None` when it has
    /// none (a tool call, thinking).
    pub fn text(&self) -> Option<String> {
        let mut texts = self
            .message
            .blocks()
            .iter()
            .filter_map(ContentBlock::as_text);
        let first = texts.next()?;
        Some(texts.fold(first.to_owned(), |mut all, t| {
            all.push_str(t);
            all
        }))
    }
}

impl ResultMessage {
    /// The turn's final text (`result`; set when the turn succeeded).
    pub fn text(&self) -> Option<&str> {
        self.result.as_deref()
    }
}

impl Message {
    /// What the model said in this message: the text of an `assistant`
    /// message; `None` for every other kind (tool calls, tool results,
    /// system notices, the result).
    ///
    /// ```
    /// use claude_agent::protocol::{Message, parse_message};
    /// let line = br#"{"type":"assistant","message":{"content":[{"type":"text","text":"4"}]}}"#;
    /// let message = parse_message(line)?;
    /// assert_eq!(message.text().as_deref(), Some("4"));
    /// # Ok::<(), claude_agent::protocol::ParseError>(())
    /// ```
    pub fn text(&self) -> Option<String> {
        match self {
            Self::Assistant(a) => a.text(),
            _ => None,
        }
    }
}
