//! Where a user message came from (`origin` on `user` lines): a person, an
//! MCP channel, or another session.

wire_struct! {
    /// A user message's `origin`. `from`, `name` and `from_session` are
    /// what the sender asserts: route replies by them, never grant by them.
    #[derive(Default)]
    pub struct MessageOrigin = "user origin", builder MessageOriginBuilder {
        /// `human`, `channel`, `peer`, `task-notification`, `coordinator`,
        /// `observer`, `auto-continuation`, ...
        kind: opt String = "kind",
        /// The channel's MCP server (`channel`).
        server: opt String = "server",
        /// The sending session's address (`peer`).
        from: opt String = "from",
        /// The sender's permission class, as its host declared it
        /// (`bypass` or `prompting`).
        from_mode: opt String = "fromMode",
        /// The sender's display name, normalised by the CLI.
        name: opt String = "name",
        /// The sending session's id, for linking back to it.
        from_session: opt String = "fromSession",
        /// The in-process background subagent that sent it.
        sender_task_id: opt String = "senderTaskId",
        /// The message body without the peer envelope, as the model sees it.
        body: opt String = "body",
        /// The pid of the process that connected to deliver it (verified by
        /// the kernel; a relay's, for relayed messages).
        verified_peer_pid: opt u32 = "verifiedPeerPid",
        /// What delivered a `task-notification` (`scheduled-trigger`, ...).
        subkind: opt String = "subkind",
        /// Why a scheduled trigger fired (`scheduled`, `manual`, ...).
        fire_reason: opt String = "fireReason",
        /// The background task run a notification is about.
        run_id: opt String = "runId",
    }
}
