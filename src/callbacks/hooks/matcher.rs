//! One registration: [`HookMatcher`] (a pattern, callbacks, a timeout and
//! an [`OnFailure`] policy), the [`HookCallback`] trait and what a
//! callback is told besides its input ([`HookContext`]).

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;

use super::HookEventKind;
use crate::callbacks::CallbackError;
use crate::protocol::{HookInput, HookOutput};
use claude_agent_actors::CancellationToken;

/// What a hook callback knows besides its input.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HookContext {
    /// Fires when the CLI cancels the request or the session shuts down.
    pub cancel: CancellationToken,
    /// The id the callback was registered under (`hook_0`, ...).
    pub callback_id: String,
    /// The event it was registered for.
    pub event: HookEventKind,
}

impl HookContext {
    /// A context for callback `callback_id` registered for `event`, with a
    /// fresh cancellation token (for calling a hook directly, e.g. in a test).
    pub fn new(event: HookEventKind, callback_id: impl Into<String>) -> Self {
        Self {
            cancel: CancellationToken::new(),
            callback_id: callback_id.into(),
            event,
        }
    }
}

/// A hook callback: gets the typed input and the tool call's id (when the
/// event concerns one) and returns the hook's output.
///
/// Implemented for every `Fn(HookInput, Option<String>, HookContext) -> Fut`
/// where `Fut: Future<Output = Result<HookOutput, CallbackError>>`.
pub trait HookCallback: Send + Sync + 'static {
    /// Runs the hook. An `Err` becomes an error reply to the CLI.
    fn call(
        &self,
        input: HookInput,
        tool_use_id: Option<String>,
        context: HookContext,
    ) -> BoxFuture<'static, Result<HookOutput, CallbackError>>;
}

impl<F, Fut> HookCallback for F
where
    F: Fn(HookInput, Option<String>, HookContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<HookOutput, CallbackError>> + Send + 'static,
{
    fn call(
        &self,
        input: HookInput,
        tool_use_id: Option<String>,
        context: HookContext,
    ) -> BoxFuture<'static, Result<HookOutput, CallbackError>> {
        self(input, tool_use_id, context).boxed()
    }
}

/// What a failing callback of a matcher does to the action its event
/// guards. A failure is an `Err`, a panic, or running past the matcher's
/// timeout: each is answered with an error reply, and the CLI applies this
/// policy (sent as the matcher's `onFailure`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OnFailure {
    /// Fail open: the CLI reports the failure and goes ahead as if the
    /// hook had no opinion (the CLI's default).
    Continue,
    /// Fail closed: the CLI blocks the action (a tool call, a permission
    /// request, a prompt, ...). The CLI ignores it on `Stop`,
    /// `SubagentStop`, `TaskCompleted` and `TeammateIdle`
    /// ([`HookEventKind::ignores_on_failure`]). A session with a `Block`
    /// matcher refuses to start on a CLI that does not confirm it honors
    /// the option (see [`CapabilityError`](crate::options::CapabilityError)).
    Block,
}

impl OnFailure {
    /// The wire spelling (`onFailure` of an `initialize` matcher).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::Block => "block",
        }
    }
}

impl fmt::Display for OnFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Callbacks that run for one event when `matcher` matches (a tool-name
/// pattern; `None` for every occurrence).
#[derive(Clone, Default)]
pub struct HookMatcher {
    /// Tool-name pattern (e.g. `Bash`, `Write|Edit`), or `None` for all.
    pub matcher: Option<String>,
    /// The callbacks, run by the CLI in parallel.
    pub hooks: Vec<Arc<dyn HookCallback>>,
    /// How long the CLI waits for them (sent in whole seconds, rounded
    /// up). A callback still running after it is answered with an error
    /// here too, so a hung callback fails like an erroring one.
    pub timeout: Option<Duration>,
    /// What a failing callback does; `None` sends no `onFailure`, which
    /// the CLI reads as [`OnFailure::Continue`].
    pub on_failure: Option<OnFailure>,
}

impl fmt::Debug for HookMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookMatcher")
            .field("matcher", &self.matcher)
            .field("hooks", &self.hooks.len())
            .field("timeout", &self.timeout)
            .field("on_failure", &self.on_failure)
            .finish()
    }
}

impl HookMatcher {
    /// A matcher for every occurrence of the event.
    pub fn any() -> Self {
        Self::default()
    }

    /// A matcher for tools matching `pattern`.
    pub fn tool(pattern: impl Into<String>) -> Self {
        Self {
            matcher: Some(pattern.into()),
            ..Self::default()
        }
    }

    /// Adds a callback.
    pub fn hook(mut self, callback: impl HookCallback) -> Self {
        self.hooks.push(Arc::new(callback));
        self
    }

    /// Sets the timeout.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Sets the failure policy.
    pub fn on_failure(mut self, policy: OnFailure) -> Self {
        self.on_failure = Some(policy);
        self
    }

    /// Fail closed: shorthand for `on_failure(OnFailure::Block)`.
    pub fn fail_closed(self) -> Self {
        self.on_failure(OnFailure::Block)
    }
}
