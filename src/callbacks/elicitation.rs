//! Elicitation callbacks: answering the CLI's `elicitation` request, sent
//! when an MCP server asks the user for input (a form, or a URL to open)
//! and no `Elicitation` hook answered first.
//!
//! Without a callback every elicitation is declined, as in the official
//! TypeScript SDK, so the server learns the user said no rather than
//! waiting or seeing a protocol error.

use std::future::Future;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::CallbackError;
use claude_agent_actors::CancellationToken;

/// How the server asks: a form to fill, or a URL to open.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ElicitationMode {
    /// Structured input described by
    /// [`requested_schema`](ElicitationRequest::requested_schema).
    Form,
    /// A browser flow (e.g. sign-in) at [`url`](ElicitationRequest::url).
    Url,
    /// A mode this crate does not know, as sent.
    #[serde(untagged)]
    Other(String),
}

/// An MCP server's request for user input, as the CLI forwards it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationRequest {
    /// The MCP server asking.
    #[serde(rename = "mcp_server_name")]
    pub server_name: String,
    /// The text to show the user.
    pub message: String,
    /// Form or URL (absent: form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ElicitationMode>,
    /// The URL to open (URL mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Pairs a URL elicitation with its later `elicitation_complete` notice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// JSON Schema of the requested input (form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Map<String, Value>>,
    /// The schema's top-level property names in the server's order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub property_order: Option<Vec<String>>,
    /// A permission-prompt title the server supplied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A short tool or server label the server supplied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// A permission-prompt subtitle the server supplied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Members this crate does not know, kept as sent.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitationAction {
    /// Answered (with [`content`](ElicitationResult::content) for a form).
    Accept,
    /// Said no.
    Decline,
    /// Dismissed the request without choosing.
    Cancel,
}

/// The answer sent back to the MCP server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitationResult {
    /// What the user did.
    pub action: ElicitationAction,
    /// The form's values, for [`Accept`](ElicitationAction::Accept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitationResult {
    /// Accepted with these form values (an empty map for a URL request).
    pub fn accept(content: Map<String, Value>) -> Self {
        Self {
            action: ElicitationAction::Accept,
            content: Some(content),
        }
    }

    /// Declined.
    pub fn decline() -> Self {
        Self {
            action: ElicitationAction::Decline,
            content: None,
        }
    }

    /// Cancelled.
    pub fn cancel() -> Self {
        Self {
            action: ElicitationAction::Cancel,
            content: None,
        }
    }
}

/// What an elicitation callback knows besides the request itself.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ElicitationContext {
    /// Fires when the CLI cancels the request or the session shuts down;
    /// the reply is then discarded.
    pub cancel: CancellationToken,
    /// The CLI's control request id (for logs).
    pub request_id: String,
}

impl ElicitationContext {
    /// A context for request `request_id` with a fresh cancellation token
    /// (for calling a callback directly, e.g. in a test).
    pub fn new(request_id: impl Into<String>) -> Self {
        Self {
            cancel: CancellationToken::new(),
            request_id: request_id.into(),
        }
    }
}

/// Answers MCP elicitations in the user's place.
///
/// Implemented for every `Fn(ElicitationRequest, ElicitationContext) -> Fut`
/// where `Fut: Future<Output = Result<ElicitationResult, CallbackError>>`.
///
/// ```
/// use claude_agent::callbacks::CallbackError;
/// use claude_agent::callbacks::elicitation::{
///     ElicitationContext, ElicitationRequest, ElicitationResult, OnElicitation,
/// };
///
/// let answer = |req: ElicitationRequest, _ctx: ElicitationContext| async move {
///     let mut form = serde_json::Map::new();
///     form.insert("name".into(), "Ada".into());
///     Ok::<_, CallbackError>(if req.server_name == "trusted" {
///         ElicitationResult::accept(form)
///     } else {
///         ElicitationResult::decline()
///     })
/// };
/// fn takes(_: impl OnElicitation) {}
/// takes(answer);
/// ```
pub trait OnElicitation: Send + Sync + 'static {
    /// Answers one request. An `Err` becomes an error reply to the CLI.
    fn on_elicitation(
        &self,
        request: ElicitationRequest,
        context: ElicitationContext,
    ) -> BoxFuture<'static, Result<ElicitationResult, CallbackError>>;
}

impl<F, Fut> OnElicitation for F
where
    F: Fn(ElicitationRequest, ElicitationContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<ElicitationResult, CallbackError>> + Send + 'static,
{
    fn on_elicitation(
        &self,
        request: ElicitationRequest,
        context: ElicitationContext,
    ) -> BoxFuture<'static, Result<ElicitationResult, CallbackError>> {
        self(request, context).boxed()
    }
}

/// The reply to one `elicitation` request: the callback's answer, or a
/// decline when there is none. `Err`: the error to reply with at once.
pub(super) fn route(
    callback: Option<std::sync::Arc<dyn OnElicitation>>,
    request: &claude_agent_actors::InboundRequest,
    cancel: CancellationToken,
) -> Result<BoxFuture<'static, Result<Value, String>>, String> {
    let mut decoded: ElicitationRequest = request
        .request
        .decode()
        .map_err(|e| format!("cannot decode elicitation request: {e}"))?;
    decoded.extra.remove("subtype");
    let Some(callback) = callback else {
        return Ok(futures::future::ready(to_reply(&ElicitationResult::decline())).boxed());
    };
    let context = ElicitationContext {
        cancel,
        request_id: request.request_id.clone(),
    };
    // Building the future runs user code: a panic there fails this request.
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        callback.on_elicitation(decoded, context)
    }))
    .map_err(|p| {
        format!(
            "elicitation callback panicked: {}",
            claude_agent_actors::panic_message(&*p)
        )
    })?;
    Ok(async move {
        let result = std::panic::AssertUnwindSafe(answer)
            .catch_unwind()
            .await
            .map_err(|p| {
                format!(
                    "elicitation callback panicked: {}",
                    claude_agent_actors::panic_message(&*p)
                )
            })?
            .map_err(|e| format!("elicitation callback failed: {}", crate::error::report(&e)))?;
        to_reply(&result)
    }
    .boxed())
}

fn to_reply(result: &ElicitationResult) -> Result<Value, String> {
    serde_json::to_value(result).map_err(|e| format!("cannot encode the elicitation answer: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_wire_request_decodes_typed_and_keeps_unknown_members() {
        let wire = json!({"subtype": "elicitation", "mcp_server_name": "auth",
            "message": "Sign in", "mode": "url", "url": "https://h/login",
            "elicitation_id": "e1", "future_field": 1});
        let req: ElicitationRequest = serde_json::from_value(wire).unwrap();
        assert_eq!(req.server_name, "auth");
        assert_eq!(req.mode, Some(ElicitationMode::Url));
        assert_eq!(req.url.as_deref(), Some("https://h/login"));
        assert_eq!(req.extra["future_field"], 1);
        let other: ElicitationMode = serde_json::from_value(json!("voice")).unwrap();
        assert_eq!(other, ElicitationMode::Other("voice".into()));
    }

    #[test]
    fn results_serialize_as_the_cli_expects() {
        let mut form = Map::new();
        form.insert("name".into(), "Ada".into());
        assert_eq!(
            serde_json::to_value(ElicitationResult::accept(form)).unwrap(),
            json!({"action": "accept", "content": {"name": "Ada"}})
        );
        assert_eq!(
            serde_json::to_value(ElicitationResult::decline()).unwrap(),
            json!({"action": "decline"})
        );
        assert_eq!(
            serde_json::to_value(ElicitationResult::cancel()).unwrap(),
            json!({"action": "cancel"})
        );
    }
}
