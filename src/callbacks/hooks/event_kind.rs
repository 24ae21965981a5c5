//! [`HookEventKind`]: the events a hook can be registered for, with an
//! open variant for names this version does not know.

use std::fmt;

/// Declares the enum, its id-order list and its wire names from one table,
/// so the three cannot drift apart.
macro_rules! hook_event_kinds {
    ($( $(#[$doc:meta])* $var:ident, )*) => {
        /// An event hooks can be registered for.
        ///
        /// The known variants are the 34 events of CLI 2.1.332 (the
        /// TypeScript SDK's `HOOK_EVENTS`); [`HookEventKind::Other`] carries
        /// any other name to `initialize` verbatim, for events of a newer
        /// CLI. The order of the variants is the callback-id order (see
        /// [`Hooks`](super::Hooks)): the ten events of earlier versions of
        /// this crate come first, so their ids did not move.
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum HookEventKind {
            $( $(#[$doc])* $var, )*
            /// An event this version does not know, by its wire name.
            /// Registered like any other; its input arrives as
            /// [`HookEvent::Other`](crate::protocol::HookEvent::Other).
            Other(String),
        }

        impl HookEventKind {
            /// Every known event, in callback-id order.
            pub const ALL: &'static [Self] = &[$( Self::$var, )*];

            /// The wire name (`hook_event_name`, and the key in `initialize`).
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$var => stringify!($var), )*
                    Self::Other(name) => name,
                }
            }

            /// The event with this wire name: a known variant when there is
            /// one, else [`HookEventKind::Other`].
            pub fn from_name(name: &str) -> Self {
                match name {
                    $( stringify!($var) => Self::$var, )*
                    other => Self::Other(other.to_owned()),
                }
            }
        }
    };
}

hook_event_kinds! {
    /// Before a tool runs.
    PreToolUse,
    /// After a tool succeeded.
    PostToolUse,
    /// After a tool failed.
    PostToolUseFailure,
    /// A user prompt arrived.
    UserPromptSubmit,
    /// The main agent is about to stop.
    Stop,
    /// A subagent is about to stop.
    SubagentStop,
    /// A subagent started.
    SubagentStart,
    /// Compaction is about to run.
    PreCompact,
    /// The CLI shows a notification.
    Notification,
    /// A permission dialog is about to show.
    PermissionRequest,
    /// After every call of one assistant message finished.
    PostToolBatch,
    /// A slash command or MCP prompt is expanded.
    UserPromptExpansion,
    /// A session started, resumed, was cleared or compacted.
    SessionStart,
    /// The session is ending.
    SessionEnd,
    /// The turn ended on an API error.
    StopFailure,
    /// Compaction finished.
    PostCompact,
    /// The model is about to change.
    PreModelSwitch,
    /// The model changed.
    PostModelSwitch,
    /// A tool call was refused.
    PermissionDenied,
    /// `--init` or maintenance ran.
    Setup,
    /// A teammate has nothing to do.
    TeammateIdle,
    /// A task was created.
    TaskCreated,
    /// A task was completed.
    TaskCompleted,
    /// An MCP server asks the user for input.
    Elicitation,
    /// The user answered an elicitation.
    ElicitationResult,
    /// A settings file or the skills changed.
    ConfigChange,
    /// A git worktree is to be created.
    WorktreeCreate,
    /// A git worktree is to be removed.
    WorktreeRemove,
    /// An instructions file was loaded.
    InstructionsLoaded,
    /// The working directory changed.
    CwdChanged,
    /// A watched file changed.
    FileChanged,
    /// A working directory was added.
    DirectoryAdded,
    /// Assistant text is about to be shown.
    MessageDisplay,
    /// A skill's shell command is about to run.
    PreSkillShellCommand,
}

impl HookEventKind {
    /// The same event with an `Other` that names a known event turned into
    /// that event, so both spellings share one entry and one id range.
    pub(crate) fn normalized(self) -> Self {
        match self {
            Self::Other(name) => Self::from_name(&name),
            known => known,
        }
    }

    /// Whether the CLI ignores `onFailure` for this event (it cannot block
    /// anything): `Stop`, `SubagentStop`, `TaskCompleted`, `TeammateIdle`.
    pub fn ignores_on_failure(&self) -> bool {
        matches!(
            self,
            Self::Stop | Self::SubagentStop | Self::TaskCompleted | Self::TeammateIdle
        )
    }
}

impl fmt::Display for HookEventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for HookEventKind {
    fn from(name: &str) -> Self {
        Self::from_name(name)
    }
}

impl From<String> for HookEventKind {
    fn from(name: String) -> Self {
        Self::Other(name).normalized()
    }
}
