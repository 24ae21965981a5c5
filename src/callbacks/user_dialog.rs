//! User-dialog callbacks: answering the CLI's `request_user_dialog`, a
//! blocking dialog a tool asks the host to render (the kinds it can are
//! declared in `initialize.supportedDialogKinds`).
//!
//! A dialog of a kind the host did not declare, or one arriving with no
//! callback, gets an error reply: the CLI discards it and the dialog stays
//! pending until its deadline. Answering `cancelled` instead would count
//! as the user dismissing it. The TypeScript SDK sends no reply at all
//! without a callback (another attached client may render the dialog),
//! which the CLI treats the same way, and never answers `cancelled` on its
//! own: only a callback does, as [`UserDialogResult::Cancelled`] here.

use std::future::Future;
use std::sync::Arc;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::CallbackError;
use claude_agent_actors::{CancellationToken, InboundRequest, panic_message};

/// A dialog the CLI asks the host to show.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[non_exhaustive]
pub struct UserDialogRequest {
    /// Which dialog (an open set of names).
    pub dialog_kind: String,
    /// The dialog's data; its shape depends on the kind.
    #[serde(default)]
    pub payload: Map<String, Value>,
    /// The tool call the dialog belongs to, if any.
    #[serde(default)]
    pub tool_use_id: Option<String>,
}

/// How the dialog ended.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum UserDialogResult {
    /// The user finished it; the result's shape depends on the kind.
    Completed(Value),
    /// The user dismissed it.
    Cancelled,
}

impl UserDialogResult {
    fn to_json(&self) -> Value {
        match self {
            Self::Completed(result) => json!({"behavior": "completed", "result": result}),
            Self::Cancelled => json!({"behavior": "cancelled"}),
        }
    }
}

/// What a dialog callback knows besides the request itself.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct UserDialogContext {
    /// Fires when the CLI withdraws the dialog or the session shuts down.
    pub cancel: CancellationToken,
    /// The CLI's control request id.
    pub request_id: String,
}

/// Shows a dialog and returns how it ended. Implemented for every
/// `Fn(UserDialogRequest, UserDialogContext) -> Fut` with
/// `Fut: Future<Output = Result<UserDialogResult, CallbackError>>`.
pub trait OnUserDialog: Send + Sync + 'static {
    /// Answers one dialog. An `Err` becomes an error reply.
    fn on_user_dialog(
        &self,
        request: UserDialogRequest,
        context: UserDialogContext,
    ) -> BoxFuture<'static, Result<UserDialogResult, CallbackError>>;
}

impl<F, Fut> OnUserDialog for F
where
    F: Fn(UserDialogRequest, UserDialogContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<UserDialogResult, CallbackError>> + Send + 'static,
{
    fn on_user_dialog(
        &self,
        request: UserDialogRequest,
        context: UserDialogContext,
    ) -> BoxFuture<'static, Result<UserDialogResult, CallbackError>> {
        self(request, context).boxed()
    }
}

impl super::Callbacks {
    /// Sets the callback showing the CLI's blocking dialogs of `kinds`
    /// (announced in `initialize.supportedDialogKinds`; the CLI sends no
    /// other kind).
    pub fn with_on_user_dialog<I, S>(mut self, kinds: I, callback: impl OnUserDialog) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.user_dialog = Some(DialogHandler {
            kinds: kinds.into_iter().map(Into::into).collect(),
            callback: Arc::new(callback),
        });
        self
    }

    /// Adds the `initialize` fields the callbacks need besides `hooks`
    /// (`supportedDialogKinds`), unless already there.
    pub(crate) fn add_initialize_fields(&self, request: &mut Value) {
        if let (Some(d), Some(req)) = (&self.user_dialog, request.as_object_mut()) {
            req.entry("supportedDialogKinds")
                .or_insert_with(|| json!(d.kinds));
        }
    }
}

/// The dialog callback and the kinds it renders.
#[derive(Clone)]
pub(crate) struct DialogHandler {
    pub(crate) kinds: Vec<String>,
    pub(crate) callback: Arc<dyn OnUserDialog>,
}

/// The reply to one `request_user_dialog`; `Err`: the error to reply with.
pub(super) fn route(
    handler: Option<&DialogHandler>,
    request: &InboundRequest,
    cancel: CancellationToken,
) -> Result<BoxFuture<'static, Result<Value, String>>, String> {
    let handler = handler.ok_or("no user-dialog callback is registered")?;
    let decoded: UserDialogRequest = request
        .request
        .decode()
        .map_err(|e| format!("cannot decode request_user_dialog request: {e}"))?;
    if !handler.kinds.contains(&decoded.dialog_kind) {
        return Err(format!(
            "dialog kind {:?} was not declared in supportedDialogKinds",
            decoded.dialog_kind
        ));
    }
    let context = UserDialogContext {
        cancel,
        request_id: request.request_id.clone(),
    };
    let callback = Arc::clone(&handler.callback);
    let panicked = |p: Box<dyn std::any::Any + Send>| {
        format!("user-dialog callback panicked: {}", panic_message(&*p))
    };
    // Building the future runs user code: a panic there fails this request.
    let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        callback.on_user_dialog(decoded, context)
    }))
    .map_err(panicked)?;
    Ok(async move {
        let result = std::panic::AssertUnwindSafe(answer)
            .catch_unwind()
            .await
            .map_err(panicked)?
            .map_err(|e| format!("user-dialog callback failed: {}", crate::error::report(&e)))?;
        Ok(result.to_json())
    }
    .boxed())
}
