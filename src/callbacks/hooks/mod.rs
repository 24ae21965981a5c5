//! Hook callbacks: registration, the `initialize` hooks JSON, lookup by
//! callback id for `hook_callback` requests, and the startup check of
//! fail-closed hooks.
//!
//! Callback ids are assigned in a stable order: events in
//! [`HookEventKind`] order (the known events as in [`HookEventKind::ALL`],
//! then [`HookEventKind::Other`] events by name), then matchers in
//! registration order, then each matcher's callbacks in order: `hook_0`,
//! `hook_1`, ... Matchers without callbacks take no id.

mod event_kind;
mod matcher;
pub(in crate::callbacks) mod route;
mod support;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

pub use self::event_kind::HookEventKind;
pub use self::matcher::{HookCallback, HookContext, HookMatcher, OnFailure};
use crate::protocol::{HookOutput, HookSpecificOutput, PermissionDecision, PreToolUseOutput};

/// A registered callback found by id.
pub(crate) struct HookEntry {
    pub(crate) event: HookEventKind,
    pub(crate) callback: Arc<dyn HookCallback>,
    /// The matcher's timeout, enforced here as well as by the CLI.
    pub(crate) timeout: Option<Duration>,
    /// The matcher's policy (for the error reply's wording).
    pub(crate) on_failure: Option<OnFailure>,
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

    /// Registers `matcher` for `event`. A [`HookEventKind::Other`] naming
    /// a known event counts as that event.
    pub fn on(mut self, event: impl Into<HookEventKind>, matcher: HookMatcher) -> Self {
        let event = event.into().normalized();
        self.by_event.entry(event).or_default().push(matcher);
        self
    }

    /// Whether a matcher with callbacks is set to [`OnFailure::Block`]
    /// (which makes the session check the CLI's support at startup).
    pub fn blocks_on_failure(&self) -> bool {
        self.matchers()
            .any(|(_, m)| m.on_failure == Some(OnFailure::Block))
    }

    /// `(event, matcher)` of every matcher with callbacks, in id order.
    fn matchers(&self) -> impl Iterator<Item = (&HookEventKind, &HookMatcher)> {
        self.by_event.iter().flat_map(|(event, ms)| {
            ms.iter()
                .filter(|m| !m.hooks.is_empty())
                .map(move |m| (event, m))
        })
    }

    /// Whether no callback is registered.
    pub fn is_empty(&self) -> bool {
        self.callbacks().next().is_none()
    }

    /// `(callback id, event, matcher, callback)` in id order.
    fn callbacks(
        &self,
    ) -> impl Iterator<Item = (String, &HookEventKind, &HookMatcher, &Arc<dyn HookCallback>)> {
        self.matchers()
            .flat_map(|(event, m)| m.hooks.iter().map(move |h| (event, m, h)))
            .enumerate()
            .map(|(i, (event, m, h))| (format!("hook_{i}"), event, m, h))
    }

    /// The callback registered as `callback_id`.
    pub(crate) fn find(&self, callback_id: &str) -> Option<HookEntry> {
        self.callbacks()
            .find(|(id, ..)| id == callback_id)
            .map(|(_, event, m, callback)| HookEntry {
                event: event.clone(),
                callback: Arc::clone(callback),
                timeout: m.timeout,
                on_failure: m.on_failure,
            })
    }

    /// The `hooks` member of `initialize`:
    /// `{"PreToolUse":[{"matcher":"Bash","hookCallbackIds":["hook_0"],"timeout":secs?,"onFailure":"block"?}]}`,
    /// or `None` when no callback is registered (sent as `null`). Event
    /// names, [`HookEventKind::Other`] ones included, are sent verbatim.
    pub fn initialize_json(&self) -> Option<Value> {
        let mut out = serde_json::Map::new();
        let mut next = 0usize;
        for (event, m) in self.matchers() {
            let ids: Vec<String> = (next..next + m.hooks.len())
                .map(|i| format!("hook_{i}"))
                .collect();
            next += m.hooks.len();
            let mut entry = serde_json::Map::new();
            entry.insert("matcher".into(), json!(m.matcher));
            entry.insert("hookCallbackIds".into(), json!(ids));
            if let Some(t) = m.timeout {
                let secs = t.as_secs() + u64::from(t.subsec_nanos() > 0);
                entry.insert("timeout".into(), secs.into());
            }
            if let Some(policy) = m.on_failure {
                entry.insert("onFailure".into(), policy.as_str().into());
            }
            if let Value::Array(list) = out
                .entry(event.as_str().to_owned())
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                list.push(Value::Object(entry));
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
