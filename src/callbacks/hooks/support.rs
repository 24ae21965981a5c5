//! The startup check the official SDKs make before a session with
//! fail-closed hooks may run: the CLI's `initialize` reply must confirm
//! that it honors `onFailure` and that it registered the hooks.

use serde_json::Value;

use super::Hooks;

/// The CLI cannot be trusted to block when a fail-closed hook fails; the
/// session is not started (no prompt is sent).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HookSupportError {
    /// The `initialize` reply lacks `hook_on_failure_supported: true`: the
    /// CLI predates `onFailure` (it would let a failed hook's action run),
    /// or what answered does not run the host's hooks.
    #[error(
        "the CLI does not honor onFailure on hook matchers, so a hook set to block would not block \
         when it fails; update the CLI or remove OnFailure::Block from the hooks"
    )]
    OnFailureUnsupported,
    /// The `initialize` reply says `hooks_applied: false`: the session was
    /// already running and did not register these hooks.
    #[error(
        "the CLI did not register the hooks (the session was already running), so a hook set to \
         block would never run; start a new session or remove OnFailure::Block from the hooks"
    )]
    HooksNotApplied,
}

impl Hooks {
    /// Checks the CLI's `initialize` reply when a matcher is set to
    /// [`OnFailure::Block`](super::OnFailure::Block) (nothing to check
    /// otherwise): `hook_on_failure_supported` must be `true`, and
    /// `hooks_applied` must not be `false`.
    ///
    /// ```
    /// use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher,
    ///     HookSupportError, Hooks};
    /// use claude_agent::protocol::{HookInput, HookOutput};
    /// use serde_json::json;
    ///
    /// let guard = |_: HookInput, _: Option<String>, _: HookContext| async {
    ///     Ok::<_, CallbackError>(HookOutput::default())
    /// };
    /// let hooks = Hooks::new().on(HookEventKind::PreToolUse, HookMatcher::any().hook(guard).fail_closed());
    /// assert_eq!(hooks.check_initialize_reply(&json!({})), Err(HookSupportError::OnFailureUnsupported));
    /// assert_eq!(hooks.check_initialize_reply(&json!({"hook_on_failure_supported": true})), Ok(()));
    /// ```
    pub fn check_initialize_reply(&self, reply: &Value) -> Result<(), HookSupportError> {
        if !self.blocks_on_failure() {
            return Ok(());
        }
        if reply.get("hook_on_failure_supported") != Some(&Value::Bool(true)) {
            return Err(HookSupportError::OnFailureUnsupported);
        }
        if reply.get("hooks_applied") == Some(&Value::Bool(false)) {
            return Err(HookSupportError::HooksNotApplied);
        }
        Ok(())
    }
}
