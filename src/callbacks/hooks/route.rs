//! `hook_callback`: runs the hook registered under the request's
//! `callback_id` and answers with its output, or with an error reply that
//! says whether the CLI is to block the action.

use std::panic::AssertUnwindSafe;

use claude_agent_actors::{CancellationToken, InboundRequest, panic_message};
use futures::FutureExt;

use super::{HookContext, Hooks, OnFailure};
use crate::callbacks::Decision;
use crate::callbacks::decision::Observers;
use crate::callbacks::route::{HOOK_CALLBACK, Routed, decode, failed};
use crate::protocol::HookCallbackRequest;

/// Routes one `hook_callback` request to its hook.
pub(in crate::callbacks) fn route(
    hooks: &Hooks,
    observers: &Observers,
    request: InboundRequest,
    cancel: CancellationToken,
) -> Routed {
    let decoded: HookCallbackRequest = decode(&request)?;
    let callback_id = decoded
        .callback_id
        .ok_or("hook_callback request has no callback_id")?;
    let entry = hooks
        .find(&callback_id)
        .ok_or_else(|| format!("no hook callback is registered with id {callback_id:?}"))?;
    let input = decoded
        .input
        .ok_or_else(|| format!("hook_callback request for {callback_id} has no input"))?;
    let event = input.hook_event_name().to_owned();
    let tool_use_id = decoded.tool_use_id;
    let observers = observers.clone();
    // The CLI ignores onFailure on events that cannot block anything.
    let policy = entry
        .on_failure
        .filter(|_| !entry.event.ignores_on_failure());
    let context = HookContext {
        cancel,
        callback_id: callback_id.clone(),
        event: entry.event,
    };
    // Building the future runs user code: a panic there is a failure
    // of this callback like one inside it.
    let answer = std::panic::catch_unwind(AssertUnwindSafe(|| {
        entry.callback.call(input, tool_use_id.clone(), context)
    }));
    Ok(async move {
        let fail = |e: String| failed(&observers, HOOK_CALLBACK, failure(&callback_id, e, policy));
        let answer = answer.map_err(|p| fail(format!("panicked: {}", panic_message(&*p))))?;
        let guarded = AssertUnwindSafe(answer).catch_unwind();
        let outcome = match entry.timeout {
            Some(t) => tokio::time::timeout(t, guarded)
                .await
                .map_err(|_| fail(format!("did not answer within {} ms", t.as_millis())))?,
            None => guarded.await,
        };
        let output = outcome
            .map_err(|p| fail(format!("panicked: {}", panic_message(&*p))))?
            .map_err(|e| fail(format!("failed: {}", crate::error::report(&e))))?;
        let payload = serde_json::to_value(&output).map_err(|e| fail(e.to_string()))?;
        observers.notify(&Decision::Hook {
            callback_id,
            event,
            tool_use_id,
            output: Box::new(output),
        });
        Ok(payload)
    }
    .boxed())
}

/// The error reply's text for a failed hook callback; it says when the
/// CLI is to block because of it (the CLI decides, from `onFailure`).
fn failure(callback_id: &str, what: String, policy: Option<OnFailure>) -> String {
    let blocks = if policy == Some(OnFailure::Block) {
        " (on_failure is block: the action is blocked)"
    } else {
        ""
    };
    format!("hook callback {callback_id} {what}{blocks}")
}
