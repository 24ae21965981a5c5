//! Permission callbacks: answering `can_use_tool`.
//!
//! A [`CanUseTool`] gets the CLI's typed [`PermissionRequest`] (tool name,
//! input, suggestions, blocked path, tool_use_id, agent id, decision reason)
//! and a [`PermissionContext`], and returns a [`PermissionResult`]. Any
//! `Fn(PermissionRequest, PermissionContext) -> impl Future` closure is one;
//! [`AllowList`] is a ready-made policy.

use std::future::Future;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::Value;

use super::CallbackError;
use crate::protocol::{PermissionRequest, PermissionResult, PermissionUpdate};
use claude_agent_actors::CancellationToken;

/// What a permission callback knows besides the request itself.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PermissionContext {
    /// Fires when the CLI cancels the request or the session shuts down;
    /// the reply is then discarded.
    pub cancel: CancellationToken,
    /// The CLI's control request id (for logs).
    pub request_id: String,
}

impl PermissionContext {
    /// A context for request `request_id` with a fresh cancellation token
    /// (for calling a callback directly, e.g. in a test).
    pub fn new(request_id: impl Into<String>) -> Self {
        Self {
            cancel: CancellationToken::new(),
            request_id: request_id.into(),
        }
    }
}

/// Decides whether a tool call may run.
///
/// Implemented for every `Fn(PermissionRequest, PermissionContext) -> Fut`
/// where `Fut: Future<Output = Result<PermissionResult, CallbackError>>`;
/// annotate the closure's parameter types so the compiler can pick the impl.
///
/// The callback runs up to its first `.await` on the session's read loop
/// (a callback that answers at once is answered without a task hop), the
/// rest on its request's own handler actor: do not block in it; move
/// blocking work to `tokio::task::spawn_blocking`.
///
/// ```
/// use claude_agent::callbacks::{CallbackError, CanUseTool, PermissionContext, allow, deny};
/// use claude_agent::protocol::{PermissionRequest, PermissionResult};
///
/// let policy = |req: PermissionRequest, _ctx: PermissionContext| async move {
///     Ok::<_, CallbackError>(match req.tool_name.as_deref() {
///         Some("Read") => allow(),
///         _ => deny("read-only session"),
///     })
/// };
/// fn takes(_: impl CanUseTool) {}
/// takes(policy);
/// ```
pub trait CanUseTool: Send + Sync + 'static {
    /// Answers one request. An `Err` becomes an error reply to the CLI.
    fn can_use_tool(
        &self,
        request: PermissionRequest,
        context: PermissionContext,
    ) -> BoxFuture<'static, Result<PermissionResult, CallbackError>>;
}

impl<F, Fut> CanUseTool for F
where
    F: Fn(PermissionRequest, PermissionContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<PermissionResult, CallbackError>> + Send + 'static,
{
    fn can_use_tool(
        &self,
        request: PermissionRequest,
        context: PermissionContext,
    ) -> BoxFuture<'static, Result<PermissionResult, CallbackError>> {
        self(request, context).boxed()
    }
}

/// Allow the call with its input unchanged.
pub fn allow() -> PermissionResult {
    PermissionResult::Allow {
        updated_input: None,
        updated_permissions: None,
        decision_classification: None,
    }
}

/// Allow the call with a replacement input.
pub fn allow_with_input(input: Value) -> PermissionResult {
    PermissionResult::Allow {
        updated_input: Some(input),
        updated_permissions: None,
        decision_classification: None,
    }
}

/// Allow the call and apply rule changes (e.g. one of the request's
/// `permission_suggestions`).
pub fn allow_and_update(updates: Vec<PermissionUpdate>) -> PermissionResult {
    PermissionResult::Allow {
        updated_input: None,
        updated_permissions: Some(updates),
        decision_classification: None,
    }
}

/// Refuse the call; `message` is shown to the model.
pub fn deny(message: impl Into<String>) -> PermissionResult {
    PermissionResult::Deny {
        message: message.into(),
        interrupt: None,
        decision_classification: None,
    }
}

/// Refuse the call and stop the turn.
pub fn deny_and_interrupt(message: impl Into<String>) -> PermissionResult {
    PermissionResult::Deny {
        message: message.into(),
        interrupt: Some(true),
        decision_classification: None,
    }
}

/// The reply payload for `result`: an allow without `updated_input` carries
/// the request's original input, because the CLI requires `updatedInput`;
/// every reply names the request's `toolUseID`, as the TypeScript SDK's do.
pub(crate) fn reply_payload(
    result: &PermissionResult,
    original_input: Option<Value>,
    tool_use_id: Option<&str>,
) -> Result<Value, serde_json::Error> {
    let mut reply = serde_json::to_value(result)?;
    if let (Some(id), Some(obj)) = (tool_use_id, reply.as_object_mut()) {
        obj.insert("toolUseID".to_owned(), Value::String(id.to_owned()));
    }
    if let (
        PermissionResult::Allow {
            updated_input: None,
            ..
        },
        Some(obj),
    ) = (result, reply.as_object_mut())
    {
        let input = original_input.unwrap_or_else(|| Value::Object(Default::default()));
        obj.insert("updatedInput".to_owned(), input);
    }
    Ok(reply)
}

/// A fixed policy: allow the tools in `allow`, deny the ones in `deny`, and
/// deny everything else with a message saying the tool is neither allowed
/// nor denied. A name ending in `*` matches by prefix (`mcp__calc__*`);
/// `deny` wins over `allow`.
///
/// ```
/// use claude_agent::callbacks::{AllowList, CanUseTool, PermissionContext};
/// use claude_agent::protocol::{PermissionRequest, PermissionResult};
///
/// let policy = AllowList::new(["Read", "mcp__calc__*"], ["Bash"]);
/// let ctx = PermissionContext::new("r1");
/// let mut req = PermissionRequest::default();
/// req.tool_name = Some("Write".into());
/// let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
/// let result = rt.block_on(policy.can_use_tool(req, ctx)).unwrap();
/// assert!(matches!(result, PermissionResult::Deny { ref message, .. }
///     if message.contains("neither allowed nor denied")));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowList {
    allow: Vec<String>,
    deny: Vec<String>,
}

impl AllowList {
    /// A policy from tool names (or `prefix*` patterns) to allow and deny.
    pub fn new<A, D>(allow: A, deny: D) -> Self
    where
        A: IntoIterator,
        A::Item: Into<String>,
        D: IntoIterator,
        D::Item: Into<String>,
    {
        Self {
            allow: allow.into_iter().map(Into::into).collect(),
            deny: deny.into_iter().map(Into::into).collect(),
        }
    }

    /// The decision for `tool_name`.
    pub fn decide(&self, tool_name: &str) -> PermissionResult {
        let matches = |p: &String| match p.strip_suffix('*') {
            Some(prefix) => tool_name.starts_with(prefix),
            None => p == tool_name,
        };
        if self.deny.iter().any(matches) {
            deny(format!("tool {tool_name} is denied"))
        } else if self.allow.iter().any(matches) {
            allow()
        } else {
            deny(format!("tool {tool_name} is neither allowed nor denied"))
        }
    }
}

impl CanUseTool for AllowList {
    fn can_use_tool(
        &self,
        request: PermissionRequest,
        _context: PermissionContext,
    ) -> BoxFuture<'static, Result<PermissionResult, CallbackError>> {
        let result = self.decide(request.tool_name.as_deref().unwrap_or_default());
        futures::future::ready(Ok(result)).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn allow_without_input_sends_the_original() {
        let input = json!({"command": "ls"});
        let v = reply_payload(&allow(), Some(input.clone()), None).unwrap();
        assert_eq!(
            v,
            json!({"behavior": "allow", "updatedInput": {"command": "ls"}})
        );
        let v = reply_payload(
            &allow_with_input(json!({"command": "pwd"})),
            Some(input.clone()),
            None,
        )
        .unwrap();
        assert_eq!(v["updatedInput"], json!({"command": "pwd"}));
        let v = reply_payload(&allow(), None, None).unwrap();
        assert_eq!(v["updatedInput"], json!({}));
    }

    #[test]
    fn replies_name_the_tool_use_id_and_the_classification() {
        use crate::protocol::DecisionClassification;
        let result = allow().with_classification(DecisionClassification::UserPermanent);
        let v = reply_payload(&result, Some(json!({})), Some("toolu_7")).unwrap();
        assert_eq!(
            v,
            json!({"behavior": "allow", "updatedInput": {},
                   "decisionClassification": "user_permanent", "toolUseID": "toolu_7"})
        );
        let result = deny("no").with_classification(DecisionClassification::UserReject);
        let v = reply_payload(&result, None, Some("toolu_8")).unwrap();
        assert_eq!(
            v,
            json!({"behavior": "deny", "message": "no",
                   "decisionClassification": "user_reject", "toolUseID": "toolu_8"})
        );
        let back: PermissionResult = serde_json::from_value(v).unwrap();
        assert_eq!(back, result);
    }

    #[test]
    fn deny_wins_and_prefixes_match() {
        let p = AllowList::new(["mcp__calc__*", "Bash"], ["Bash"]);
        assert!(matches!(
            p.decide("mcp__calc__add"),
            PermissionResult::Allow { .. }
        ));
        assert_eq!(p.decide("Bash"), deny("tool Bash is denied"));
        assert_eq!(
            p.decide("Write"),
            deny("tool Write is neither allowed nor denied")
        );
    }
}
