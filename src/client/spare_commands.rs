//! A spare's slash commands before its claim (the TypeScript SDK's
//! `SpareProcess.onCommands`): the list from the spare's `initialize`
//! reply, then each `commands_changed` frame's full list, which replaces
//! it (skills or plugins found while parked, for example).

use futures::StreamExt;

use super::Spare;
use crate::Result;
use crate::protocol::{Message, SlashCommand, SystemMessage};

impl Spare {
    /// The spare's slash commands: the last list a
    /// [`next_commands_change`](Self::next_commands_change) returned, else
    /// the one in its `initialize` reply.
    pub fn commands(&self) -> Result<Vec<SlashCommand>> {
        match &self.latest_commands {
            Some(commands) => Ok(commands.clone()),
            None => self.client.supported_commands(),
        }
    }

    /// Waits for the spare's next `commands_changed` frame and returns its
    /// list (also what [`commands`](Self::commands) returns from then on).
    /// `None` when the spare's output ends first. Other frames the parked
    /// CLI writes meanwhile are passed over: before the claim there is no
    /// turn for them to belong to. Bound it with a timeout: a spare whose
    /// commands never change sends none.
    pub async fn next_commands_change(&mut self) -> Result<Option<Vec<SlashCommand>>> {
        let mut messages = self.client.receive_messages();
        while let Some(message) = messages.next().await {
            if let Message::System(SystemMessage::CommandsChanged(changed)) = message? {
                let commands = changed.commands.unwrap_or_default();
                self.latest_commands = Some(commands.clone());
                return Ok(Some(commands));
            }
        }
        Ok(None)
    }
}
