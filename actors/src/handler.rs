//! Inbound control requests: the user's trait, and one `Handler` actor per
//! request id.
//!
//! The handler actor runs the callback on a task it owns (never inside
//! `handle`), bounded by `handler_timeout` and a cancellation token, and
//! writes exactly one reply: the callback's value, an error (failure, panic,
//! timeout), or nothing when cancelled. Stopping the actor drops the task.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use crate::error::{HandlerError, panic_message};
use crate::events::Diagnostic;
use crate::outcome::ControlStatus;
use crate::shared::Shared;
use crate::transport::TransportMsg;

/// A control request from the CLI (`can_use_tool`, `hook_callback`,
/// `mcp_message`, or anything newer).
#[derive(Debug, Clone, PartialEq)]
pub struct InboundRequest {
    /// The CLI's request id (opaque).
    pub request_id: String,
    /// `request.subtype`.
    pub subtype: String,
    /// The whole `request` object.
    pub request: Value,
}

/// Answers the CLI's control requests. Each call runs in its own Handler
/// actor, concurrently with the others; `cancel` fires when the CLI sends
/// `control_cancel_request` for it or the session shuts down.
pub trait InboundHandler: Send + Sync + 'static {
    /// The reply's `response` object, or an error sent as an error reply.
    fn handle(
        &self,
        request: InboundRequest,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>>;
}

/// Answers every request with an error naming its subtype.
#[derive(Debug, Clone, Copy, Default)]
pub struct RejectAll;

impl InboundHandler for RejectAll {
    fn handle(
        &self,
        request: InboundRequest,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Value, HandlerError>> {
        let msg = format!(
            "no handler for control request subtype {:?}",
            request.subtype
        );
        Box::pin(async move { Err(HandlerError::new(msg)) })
    }
}

/// A `control_response` line answering a CLI request.
pub(crate) fn reply_line(request_id: &str, outcome: Result<Value, String>) -> Bytes {
    let response = match outcome {
        Ok(v) => json!({"subtype": "success", "request_id": request_id, "response": v}),
        Err(e) => json!({"subtype": "error", "request_id": request_id, "error": e}),
    };
    let mut line = json!({"type": "control_response", "response": response}).to_string();
    line.push('\n');
    Bytes::from(line)
}

/// How a callback ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    Replied(Value),
    Failed(String),
    TimedOut(Duration),
    Panicked(String),
    Cancelled,
}

pub(crate) enum HandlerMsg {
    Finished(Outcome),
}

pub(crate) struct HandlerArgs {
    pub(crate) request: InboundRequest,
    pub(crate) callback: Arc<dyn InboundHandler>,
    pub(crate) cancel: CancellationToken,
    pub(crate) timeout: Option<Duration>,
    pub(crate) transport: ActorRef<TransportMsg>,
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct HandlerState {
    request_id: String,
    subtype: String,
    transport: ActorRef<TransportMsg>,
    shared: Arc<Shared>,
    started: Instant,
    span: tracing::Span,
    _task: AbortOnDropHandle<()>,
}

/// One actor per inbound request id.
pub(crate) struct HandlerActor;

impl Actor for HandlerActor {
    type Msg = HandlerMsg;
    type State = HandlerState;
    type Arguments = HandlerArgs;

    async fn pre_start(
        &self,
        myself: ActorRef<HandlerMsg>,
        args: HandlerArgs,
    ) -> Result<HandlerState, ActorProcessingErr> {
        let HandlerArgs {
            request,
            callback,
            cancel,
            timeout,
            transport,
            shared,
        } = args;
        let span = tracing::info_span!(
            parent: &shared.span,
            "inbound_request",
            request_id = request.request_id.as_str(),
            subtype = request.subtype.as_str(),
            duration_ms = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        if shared.log_payloads {
            tracing::debug!(parent: &span, request = %request.request, "inbound request");
        }
        let request_id = request.request_id.clone();
        let subtype = request.subtype.clone();
        // Building the future runs user code too: a panic there is caught like one inside it.
        let fut = std::panic::catch_unwind(AssertUnwindSafe(|| {
            callback.handle(request, cancel.clone())
        }));
        let task = tokio::spawn(
            async move {
                let outcome = match fut {
                    Err(p) => Outcome::Panicked(panic_message(&*p)),
                    Ok(fut) => {
                        let guarded = AssertUnwindSafe(fut).catch_unwind();
                        let bounded = async {
                            match timeout {
                                Some(t) => tokio::time::timeout(t, guarded).await.map_err(|_| t),
                                None => Ok(guarded.await),
                            }
                        };
                        tokio::select! {
                            biased;
                            _ = cancel.cancelled() => Outcome::Cancelled,
                            r = bounded => match r {
                                Err(t) => Outcome::TimedOut(t),
                                Ok(Err(p)) => Outcome::Panicked(panic_message(&*p)),
                                Ok(Ok(Ok(v))) => Outcome::Replied(v),
                                Ok(Ok(Err(e))) => Outcome::Failed(e.to_string()),
                            },
                        }
                    }
                };
                let _ = myself.cast(HandlerMsg::Finished(outcome));
            }
            .instrument(span.clone()),
        );
        Ok(HandlerState {
            request_id,
            subtype,
            transport,
            shared,
            started: Instant::now(),
            span,
            _task: AbortOnDropHandle::new(task),
        })
    }

    async fn handle(
        &self,
        myself: ActorRef<HandlerMsg>,
        msg: HandlerMsg,
        st: &mut HandlerState,
    ) -> Result<(), ActorProcessingErr> {
        let HandlerMsg::Finished(outcome) = msg;
        let id = st.request_id.clone();
        let (reply, label) = match outcome {
            Outcome::Replied(v) => {
                if st.shared.log_payloads {
                    tracing::debug!(parent: &st.span, response = %v, "inbound reply");
                }
                (Some(Ok(v)), ControlStatus::Success)
            }
            Outcome::Failed(e) => (Some(Err(e)), ControlStatus::Error),
            Outcome::TimedOut(t) => {
                st.shared.diagnostic(Diagnostic::HandlerTimedOut {
                    request_id: id.clone(),
                    subtype: st.subtype.clone(),
                });
                (
                    Some(Err(format!(
                        "handler for {} timed out after {t:?}",
                        st.subtype
                    ))),
                    ControlStatus::Timeout,
                )
            }
            Outcome::Panicked(message) => {
                st.shared.diagnostic(Diagnostic::HandlerPanicked {
                    request_id: id.clone(),
                    subtype: st.subtype.clone(),
                    message: message.clone(),
                });
                (
                    Some(Err(format!(
                        "handler for {} panicked: {message}",
                        st.subtype
                    ))),
                    ControlStatus::Error,
                )
            }
            Outcome::Cancelled => {
                st.shared.diagnostic(Diagnostic::HandlerCancelled {
                    request_id: id.clone(),
                });
                (None, ControlStatus::Cancelled)
            }
        };
        if let Some(reply) = reply {
            let _ = st.transport.cast(TransportMsg::Write {
                line: reply_line(&id, reply),
                done: None,
            });
        }
        st.span
            .record("duration_ms", st.started.elapsed().as_millis() as u64);
        st.span.record("outcome", label.as_str());
        myself.stop(None);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reply_lines_pair_by_id() {
        let ok: Value =
            serde_json::from_slice(&reply_line("a-1", Ok(json!({"behavior":"allow"})))).unwrap();
        assert_eq!(ok["response"]["request_id"], "a-1");
        assert_eq!(ok["response"]["subtype"], "success");
        assert_eq!(ok["response"]["response"]["behavior"], "allow");
        let err: Value = serde_json::from_slice(&reply_line("a-2", Err("boom".into()))).unwrap();
        assert_eq!(err["response"]["subtype"], "error");
        assert_eq!(err["response"]["error"], "boom");
    }

    #[tokio::test]
    async fn reject_all_names_the_subtype() {
        let r = RejectAll
            .handle(
                InboundRequest {
                    request_id: "x".into(),
                    subtype: "mcp_message".into(),
                    request: Value::Null,
                },
                CancellationToken::new(),
            )
            .await;
        assert!(r.unwrap_err().message().contains("mcp_message"));
    }
}
