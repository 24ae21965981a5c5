//! Inbound control requests: the user's trait, and one `Handler` actor per
//! request id.
//!
//! The handler actor holds the request's [`ReplyToken`], which answers
//! exactly once: the callback's value, an error (failure, panic, timeout),
//! nothing when cancelled, or an error from the token's `Drop` if the
//! actor dies first. Its `pre_start` (which ractor runs on the spawner's
//! task, the reader's) builds the callback's future and polls it once: a
//! callback that is ready at once, as most permission callbacks are, is
//! answered right there, so the actor's set-up (link, task, mailbox) runs
//! after the reply is on its way, not before it. A callback that waits
//! goes on on a task of its own (bounded by `handler_timeout` and the
//! token's cancellation), which tells the actor its outcome
//! (`HandlerMsg::Answered`); the actor never waits inside `handle`.
//! The price: work a callback does before its first `.await` delays the
//! session's next frame, as blocking any tokio task would.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::BoxFuture;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use crate::dispatch::inbound::InboundRequest;
use crate::dispatch::outcome::ControlStatus;
use crate::dispatch::reply::{ReplyToken, Unsent};
use crate::error::HandlerError;
use crate::error::panic_message;
use crate::events::Diagnostic;
use crate::session::record::SessionRecord;

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

/// How a callback ended.
#[derive(Debug)]
pub(crate) enum Outcome {
    Replied(Value),
    Failed(String),
    TimedOut(Duration),
    Panicked(String),
    Cancelled,
}

/// What a handler hears: only from the tasks it owns, each telling it a
/// step of its one request is done.
pub(crate) enum HandlerMsg {
    /// The callback's task: the callback ended this way.
    Answered(Outcome),
    /// The reply task: the reply that had to wait for room is queued (or
    /// no longer can be).
    Queued,
}

pub(crate) struct HandlerArgs {
    pub(crate) request: InboundRequest,
    pub(crate) callback: Arc<dyn InboundHandler>,
    pub(crate) token: ReplyToken,
    pub(crate) timeout: Option<Duration>,
    pub(crate) shared: Arc<SessionRecord>,
}

/// Where the request is.
enum Work {
    /// The callback runs on `_task`; the token waits for its outcome.
    Answering {
        token: ReplyToken,
        _task: AbortOnDropHandle<()>,
    },
    /// Answered; the reply waits for room in the control lane on `_task`
    /// (the CLI is not reading stdin). The request is still pending.
    Queueing { _task: AbortOnDropHandle<()> },
    /// Answered, or cancelled: the actor stops.
    Done,
}

pub(crate) struct HandlerState {
    work: Work,
    request_id: String,
    subtype: String,
    shared: Arc<SessionRecord>,
    started: Instant,
    span: tracing::Span,
}

/// One actor per inbound request id.
pub(crate) struct HandlerActor;

/// The callback's answer in the making.
type Answer = BoxFuture<'static, Outcome>;

/// Starts the callback: its answer is bounded by the timeout, cut short by
/// the token, and a panic (in building the future or in it) is caught.
fn answer(
    callback: &dyn InboundHandler,
    request: InboundRequest,
    cancel: CancellationToken,
    timeout: Option<Duration>,
    span: tracing::Span,
) -> Answer {
    // Building the future runs user code too: a panic there is caught like one inside it.
    let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| {
        callback.handle(request, cancel.clone())
    })) {
        Ok(fut) => fut,
        Err(p) => return futures::future::ready(Outcome::Panicked(panic_message(&*p))).boxed(),
    };
    async move {
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
    .instrument(span)
    .boxed()
}

/// Polls `answer` once, without a waker: a pending future is polled again
/// on the actor's task at once, which registers the real one.
fn poll_once(answer: &mut Answer) -> Option<Outcome> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match answer.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(outcome) => Some(outcome),
        std::task::Poll::Pending => None,
    }
}

impl HandlerState {
    /// The span gets the request's outcome.
    fn record(&self, label: ControlStatus) {
        self.span
            .record("duration_ms", self.started.elapsed().as_millis() as u64);
        self.span.record("outcome", label.as_str());
    }

    /// The reply to write (none when cancelled) and the span's outcome label.
    fn reply(&self, outcome: Outcome) -> (Option<Result<Value, String>>, ControlStatus) {
        let id = &self.request_id;
        match outcome {
            Outcome::Replied(v) => {
                if self.shared.log_payloads {
                    tracing::debug!(parent: &self.span, response = %v, "inbound reply");
                }
                (Some(Ok(v)), ControlStatus::Success)
            }
            Outcome::Failed(e) => (Some(Err(e)), ControlStatus::Error),
            Outcome::TimedOut(t) => {
                self.shared.diagnostic(Diagnostic::HandlerTimedOut {
                    request_id: id.clone(),
                    subtype: self.subtype.clone(),
                });
                let e = format!("handler for {} timed out after {t:?}", self.subtype);
                (Some(Err(e)), ControlStatus::Timeout)
            }
            Outcome::Panicked(message) => {
                self.shared.diagnostic(Diagnostic::HandlerPanicked {
                    request_id: id.clone(),
                    subtype: self.subtype.clone(),
                    message: message.clone(),
                });
                let e = format!("handler for {} panicked: {message}", self.subtype);
                (Some(Err(e)), ControlStatus::Error)
            }
            Outcome::Cancelled => {
                self.shared.diagnostic(Diagnostic::HandlerCancelled {
                    request_id: id.clone(),
                });
                (None, ControlStatus::Cancelled)
            }
        }
    }

    /// Answers through the token. What is left: nothing, or a reply
    /// waiting for room, queued by a task that tells `myself` when done.
    fn answer(&self, token: ReplyToken, outcome: Outcome, myself: &ActorRef<HandlerMsg>) -> Work {
        let (reply, label) = self.reply(outcome);
        self.record(label);
        let unsent = match reply {
            Some(reply) => token.reply(reply),
            None => {
                token.cancelled();
                Ok(())
            }
        };
        match unsent {
            Ok(()) => Work::Done,
            Err(unsent) => Work::Queueing {
                _task: queue_later(unsent, myself.clone(), self.span.clone()),
            },
        }
    }
}

/// Queues a reply that waits for room, then tells the actor.
fn queue_later(
    unsent: Unsent,
    myself: ActorRef<HandlerMsg>,
    span: tracing::Span,
) -> AbortOnDropHandle<()> {
    AbortOnDropHandle::new(crate::task::spawn(
        async move {
            unsent.queue().await;
            let _ = myself.cast(HandlerMsg::Queued);
        }
        .instrument(span),
    ))
}

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
            token,
            timeout,
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
            tracing::debug!(parent: &span, request = %request.request.raw(), "inbound request");
        }
        let (request_id, subtype) = (token.request_id().to_owned(), request.subtype.clone());
        let cancel = token.cancel_token().clone();
        let mut answer = answer(&*callback, request, cancel, timeout, span.clone());
        let mut st = HandlerState {
            work: Work::Done,
            request_id,
            subtype,
            shared,
            started: Instant::now(),
            span,
        };
        st.work = match poll_once(&mut answer) {
            Some(outcome) => st.answer(token, outcome, &myself),
            None => {
                let me = myself.clone();
                let task = crate::task::spawn(async move {
                    let outcome = answer.await;
                    let _ = me.cast(HandlerMsg::Answered(outcome));
                });
                Work::Answering {
                    token,
                    _task: AbortOnDropHandle::new(task),
                }
            }
        };
        Ok(st)
    }

    async fn post_start(
        &self,
        myself: ActorRef<HandlerMsg>,
        st: &mut HandlerState,
    ) -> Result<(), ActorProcessingErr> {
        // Answered in pre_start: the actor had nothing more to do.
        if matches!(st.work, Work::Done) {
            myself.stop(None);
        }
        Ok(())
    }

    async fn handle(
        &self,
        myself: ActorRef<HandlerMsg>,
        msg: HandlerMsg,
        st: &mut HandlerState,
    ) -> Result<(), ActorProcessingErr> {
        st.work = match (msg, std::mem::replace(&mut st.work, Work::Done)) {
            (HandlerMsg::Answered(outcome), Work::Answering { token, .. }) => {
                st.answer(token, outcome, &myself)
            }
            (HandlerMsg::Queued, Work::Queueing { .. }) => Work::Done,
            // A message for a step already past: nothing changes.
            (_, work) => work,
        };
        if matches!(st.work, Work::Done) {
            myself.stop(None);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reject_all_names_the_subtype() {
        let r = RejectAll
            .handle(
                InboundRequest::new("x", "mcp_message", Value::Null),
                CancellationToken::new(),
            )
            .await;
        assert!(r.unwrap_err().message().contains("mcp_message"));
    }
}
