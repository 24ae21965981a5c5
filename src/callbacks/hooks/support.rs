//! The startup check the official SDKs make before a session with
//! fail-closed hooks may run: the CLI's `initialize` reply must confirm
//! that it honors `onFailure` and that it registered the hooks.

use serde_json::Value;

use super::Hooks;
use crate::options::CapabilityError;

impl Hooks {
    /// Checks the CLI's `initialize` reply when a matcher is set to
    /// [`OnFailure::Block`](super::OnFailure::Block) (nothing to check
    /// otherwise): `hook_on_failure_supported` must be `true`, and
    /// `hooks_applied` must not be `false`.
    ///
    /// ```
    /// use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher, Hooks};
    /// use claude_agent::options::CapabilityError;
    /// use claude_agent::protocol::{HookInput, HookOutput};
    /// use serde_json::json;
    ///
    /// let guard = |_: HookInput, _: Option<String>, _: HookContext| async {
    ///     Ok::<_, CallbackError>(HookOutput::default())
    /// };
    /// let hooks = Hooks::new().on(HookEventKind::PreToolUse, HookMatcher::any().hook(guard).fail_closed());
    /// assert_eq!(hooks.check_initialize_reply(&json!({})), Err(CapabilityError::HookOnFailureUnsupported));
    /// assert_eq!(hooks.check_initialize_reply(&json!({"hook_on_failure_supported": true})), Ok(()));
    /// ```
    pub fn check_initialize_reply(&self, reply: &Value) -> Result<(), CapabilityError> {
        if !self.blocks_on_failure() {
            return Ok(());
        }
        if reply.get("hook_on_failure_supported") != Some(&Value::Bool(true)) {
            return Err(CapabilityError::HookOnFailureUnsupported);
        }
        if reply.get("hooks_applied") == Some(&Value::Bool(false)) {
            return Err(CapabilityError::HooksNotApplied);
        }
        Ok(())
    }
}
