//! `conversation_reset` messages.

wire_struct! {
    /// A `conversation_reset` line: the conversation was cleared (`/clear`).
    #[derive(Default)]
    pub struct ConversationReset = "conversation_reset", builder ConversationResetBuilder {
        /// The id of the conversation that starts now.
        new_conversation_id: opt String = "new_conversation_id",
        /// This line's uuid.
        uuid: opt String = "uuid",
        /// The CLI's session id.
        session_id: opt String = "session_id",
    }
}
