//! [`Client::compact`]: what `/compact <instructions>` does in the CLI's
//! terminal, from the SDK. Neither official SDK has it, and the CLI has no
//! control request for it: over stream-json a user message that is the
//! slash command runs it (the CLI expands slash commands in user messages
//! unless the message is marked client-composed). The conversation so far
//! is summarized, with the instructions steering the summary; the turn
//! brings a `system/compact_boundary` and ends with a `result`.

use super::Client;
use super::prompt::Prompt;
use crate::Result;
use crate::protocol::UserMessage;

impl Client {
    /// Compacts the conversation now, the summary following `instructions`
    /// when given (e.g. "keep the file names and the failing test"). Read
    /// the turn with [`receive_response`](Self::receive_response): a
    /// `compact_boundary` system message, then a `result`. Sent as the
    /// slash command even when the options ask for verbatim prompts.
    pub async fn compact(&self, instructions: Option<&str>) -> Result<()> {
        let text = compact_command(instructions);
        let message = Prompt::from(text).into_message();
        // Not through `send_message`: with verbatim prompts on it would
        // mark the message client-composed, and the CLI would pass
        // "/compact" to the model as text.
        self.send_unstamped(&message).await
    }

    async fn send_unstamped(&self, message: &UserMessage) -> Result<()> {
        let line = Prompt::encode(message)?;
        self.inner.session.send_user_line(line).await?;
        if let Some(t) = &self.inner.transcript {
            t.record_sent_prompt(message);
        }
        Ok(())
    }
}

/// The slash command's text; blank instructions are none.
fn compact_command(instructions: Option<&str>) -> String {
    match instructions.map(str::trim) {
        Some(i) if !i.is_empty() => format!("/compact {i}"),
        _ => "/compact".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::compact_command;

    #[test]
    fn instructions_follow_the_command_and_blank_ones_are_dropped() {
        assert_eq!(compact_command(None), "/compact");
        assert_eq!(compact_command(Some("  ")), "/compact");
        assert_eq!(
            compact_command(Some(" keep the test names ")),
            "/compact keep the test names"
        );
    }
}
