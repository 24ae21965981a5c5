//! Hook callbacks: registration, the `initialize` hooks JSON, and lookup by
//! callback id for `hook_callback` requests.
//!
//! Callback ids are assigned in a stable order: events in the order of
//! [`HookEventKind::ALL`], then matchers in registration order, then each
//! matcher's callbacks in order: `hook_0`, `hook_1`, ...

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::CallbackError;
use crate::protocol::{
    HookInput, HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseOutput,
};
use claude_agent_actors::CancellationToken;

/// The hook events the CLI delivers to SDK callbacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum HookEventKind {
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
}

impl HookEventKind {
    /// Every event, in callback-id order (a slice: the CLI adds events).
    pub const ALL: &'static [Self] = &[
        Self::PreToolUse,
        Self::PostToolUse,
        Self::PostToolUseFailure,
        Self::UserPromptSubmit,
        Self::Stop,
        Self::SubagentStop,
        Self::SubagentStart,
        Self::PreCompact,
        Self::Notification,
        Self::PermissionRequest,
    ];

    /// The wire name (`hook_event_name`, and the key in `initialize`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::PostToolUseFailure => "PostToolUseFailure",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::SubagentStart => "SubagentStart",
            Self::PreCompact => "PreCompact",
            Self::Notification => "Notification",
            Self::PermissionRequest => "PermissionRequest",
        }
    }

    /// The event with this wire name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|e| e.as_str() == name)
    }
}

impl fmt::Display for HookEventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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

/// Callbacks that run for one event when `matcher` matches (a tool-name
/// pattern; `None` for every occurrence).
#[derive(Clone, Default)]
pub struct HookMatcher {
    /// Tool-name pattern (e.g. `Bash`, `Write|Edit`), or `None` for all.
    pub matcher: Option<String>,
    /// The callbacks, run by the CLI in parallel.
    pub hooks: Vec<Arc<dyn HookCallback>>,
    /// How long the CLI waits for them (sent in whole seconds, rounded up).
    pub timeout: Option<Duration>,
}

impl fmt::Debug for HookMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HookMatcher")
            .field("matcher", &self.matcher)
            .field("hooks", &self.hooks.len())
            .field("timeout", &self.timeout)
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
}

/// A registered callback found by id.
pub(crate) struct HookEntry {
    pub(crate) event: HookEventKind,
    pub(crate) callback: Arc<dyn HookCallback>,
}

/// Every hook of a session, by event.
///
/// ```
/// use claude_agent::callbacks::{CallbackError, HookContext, HookEventKind, HookMatcher, Hooks};
/// use claude_agent::protocol::{HookInput, HookOutput};
/// use serde_json::json;
///
/// let log = |_input: HookInput, _id: Option<String>, _ctx: HookContext| async move {
///     Ok::<_, CallbackError>(HookOutput::default())
/// };
/// let hooks = Hooks::new().on(HookEventKind::PreToolUse, HookMatcher::tool("Bash").hook(log));
/// assert_eq!(
///     hooks.initialize_json(),
///     Some(json!({"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"]}]}))
/// );
/// ```
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    by_event: BTreeMap<HookEventKind, Vec<HookMatcher>>,
}

impl Hooks {
    /// No hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `matcher` for `event`.
    pub fn on(mut self, event: HookEventKind, matcher: HookMatcher) -> Self {
        self.by_event.entry(event).or_default().push(matcher);
        self
    }

    /// Whether no callback is registered.
    pub fn is_empty(&self) -> bool {
        self.callbacks().next().is_none()
    }

    /// `(callback id, event, callback)` in id order.
    fn callbacks(&self) -> impl Iterator<Item = (String, HookEventKind, &Arc<dyn HookCallback>)> {
        self.by_event
            .iter()
            .flat_map(|(event, ms)| {
                ms.iter()
                    .flat_map(move |m| m.hooks.iter().map(move |h| (*event, h)))
            })
            .enumerate()
            .map(|(i, (event, h))| (format!("hook_{i}"), event, h))
    }

    /// The callback registered as `callback_id`.
    pub(crate) fn find(&self, callback_id: &str) -> Option<HookEntry> {
        self.callbacks()
            .find(|(id, _, _)| id == callback_id)
            .map(|(_, event, callback)| HookEntry {
                event,
                callback: Arc::clone(callback),
            })
    }

    /// The `hooks` member of `initialize`:
    /// `{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":secs?}]}`,
    /// or `None` when no callback is registered (sent as `null`).
    pub fn initialize_json(&self) -> Option<Value> {
        let mut next = 0usize;
        let mut out = serde_json::Map::new();
        for (event, matchers) in &self.by_event {
            let mut list = Vec::new();
            for m in matchers.iter().filter(|m| !m.hooks.is_empty()) {
                let ids: Vec<String> = (next..next + m.hooks.len())
                    .map(|i| format!("hook_{i}"))
                    .collect();
                next += m.hooks.len();
                let mut entry = json!({"matcher": m.matcher, "hookCallbackIds": ids});
                if let (Some(t), Some(obj)) = (m.timeout, entry.as_object_mut()) {
                    let secs = t.as_secs() + u64::from(t.subsec_nanos() > 0);
                    obj.insert("timeout".into(), secs.into());
                }
                list.push(entry);
            }
            if !list.is_empty() {
                out.insert(event.as_str().to_owned(), Value::Array(list));
            }
        }
        (!out.is_empty()).then_some(Value::Object(out))
    }
}

/// A `PreToolUse` output with a permission decision and its reason.
pub fn pre_tool_use_decision(
    decision: PermissionDecision,
    reason: impl Into<String>,
) -> HookOutput {
    HookOutput {
        hook_specific_output: Some(HookSpecificOutput::PreToolUse(PreToolUseOutput {
            permission_decision: Some(decision),
            permission_decision_reason: Some(reason.into()),
            ..Default::default()
        })),
        ..Default::default()
    }
}
