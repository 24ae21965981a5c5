//! What a hook callback answers: the success payload of `hook_callback`.
//! The per-event `hookSpecificOutput` is in [`specific`].

pub mod specific;

use self::specific::HookSpecificOutput;

wire_struct! {
    /// A hook's output. All members are optional; the async form is
    /// `{"async": true, "asyncTimeout"?: ms}` (see [`HookOutput::async_ack`]).
    ///
    /// ```
    /// use claude_agent::protocol::{HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseOutput};
    ///
    /// // Wire types may grow, so they are built from `Default`, field by field.
    /// let mut decision = PreToolUseOutput::default();
    /// decision.permission_decision = Some(PermissionDecision::Allow);
    /// let mut out = HookOutput::default();
    /// out.hook_specific_output = Some(HookSpecificOutput::PreToolUse(decision));
    /// assert_eq!(
    ///     serde_json::to_string(&out).unwrap(),
    ///     r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#
    /// );
    /// ```
    #[derive(Default)]
    pub struct HookOutput = "hook output", builder HookOutputBuilder {
        /// Whether the CLI should continue after the hook (default true).
        continue_: opt bool = "continue",
        /// Hide the hook's stdout from the transcript.
        suppress_output: opt bool = "suppressOutput",
        /// Shown to the user when `continue` is false.
        stop_reason: opt String = "stopReason",
        /// `approve` or `block` (older hook API).
        decision: opt String = "decision",
        /// A message shown to the user.
        system_message: opt String = "systemMessage",
        /// A terminal escape sequence for the CLI's terminal (e.g. a bell).
        terminal_sequence: opt String = "terminalSequence",
        /// Why, for `decision`.
        reason: opt String = "reason",
        /// Per-event output.
        hook_specific_output: opt HookSpecificOutput = "hookSpecificOutput",
        /// The hook runs in the background.
        is_async: opt bool = "async",
        /// How long the background hook may run, in ms.
        async_timeout: opt u64 = "asyncTimeout",
    }
}

impl HookOutput {
    /// The async acknowledgement: `{"async": true, "asyncTimeout"?: ms}`.
    pub fn async_ack(timeout_ms: Option<u64>) -> Self {
        Self {
            is_async: Some(true),
            async_timeout: timeout_ms,
            ..Self::default()
        }
    }
}

string_enum! {
    /// A `PreToolUse` hook's decision.
    pub enum PermissionDecision {
        /// Run the tool without asking.
        Allow = "allow",
        /// Refuse the tool call.
        Deny = "deny",
        /// Ask the user.
        Ask = "ask",
        /// Leave the decision to the next source.
        Defer = "defer",
    }
}
