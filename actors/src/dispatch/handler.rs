//! Inbound control requests: the user's trait, and one `Handler` actor per
//! request id.
//!
//! The handler actor answers exactly once: the callback's value, an error
//! (failure, panic, timeout), or nothing when cancelled, written straight
//! into the stdin queue's control lane. Its `pre_start` (which ractor runs
//! on the spawner's task, the reader's) builds the callback's future and
//! polls it once: a callback that is ready at once, as most permission
//! callbacks are, is answered right there, so the actor's set-up (link,
//! task, mailbox) runs after the reply is on its way, not before it. A
//! callback that waits goes on on the actor's own task, bounded by
//! `handler_timeout` and a cancellation token; killing the actor drops it.
//! The price: work a callback does before its first `.await` delays the
//! session's next frame, as blocking any tokio task would.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::FutureExt;
use futures::future::BoxFuture;
use ractor::{Actor, ActorProcessingErr, ActorRef};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use crate::dispatch::inbound::InboundRequest;
use crate::dispatch::outcome::ControlStatus;
use crate::error::HandlerError;
use crate::error::panic_message;
use crate::events::Diagnostic;
use crate::session::shared::Shared;
use crate::transport::stdin_queue::{Lane, TryPushError};

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

/// A `control_response` line answering a CLI request, encoded in one pass
/// (the reply's value is written once, not wrapped and re-encoded).
pub(crate) fn reply_line(request_id: &str, outcome: Result<Value, String>) -> Bytes {
    let mut out = Vec::with_capacity(160);
    out.extend_from_slice(br#"{"type":"control_response","response":{"subtype":"#);
    let (subtype, key): (&[u8], &[u8]) = match &outcome {
        Ok(_) => (br#""success""#, br#","response":"#),
        Err(_) => (br#""error""#, br#","error":"#),
    };
    out.extend_from_slice(subtype);
    out.extend_from_slice(br#","request_id":"#);
    // Writing a str or a Value into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut out, request_id);
    out.extend_from_slice(key);
    let _ = match &outcome {
        Ok(v) => serde_json::to_writer(&mut out, v),
        Err(e) => serde_json::to_writer(&mut out, e),
    };
    out.extend_from_slice(b"}}\n");
    Bytes::from(out)
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
    /// Sent to itself by `pre_start`: run the callback, reply, stop.
    Run,
}

pub(crate) struct HandlerArgs {
    pub(crate) request: InboundRequest,
    pub(crate) callback: Arc<dyn InboundHandler>,
    pub(crate) cancel: CancellationToken,
    pub(crate) timeout: Option<Duration>,
    /// Its entry in `shared.running`.
    pub(crate) generation: u64,
    pub(crate) shared: Arc<Shared>,
}

/// What is left for the actor's task to do.
enum Work {
    /// The callback has not answered yet.
    Waiting(Answer),
    /// Answered in `pre_start`; `unsent` is a reply that did not fit the
    /// control lane at once (the CLI is not reading stdin).
    Answered {
        unsent: Option<Bytes>,
        label: ControlStatus,
    },
    Done,
}

pub(crate) struct HandlerState {
    work: Work,
    request_id: String,
    subtype: String,
    cancel: CancellationToken,
    generation: u64,
    shared: Arc<Shared>,
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
    /// The request is answered (or given up): it leaves the running table
    /// and its span gets its outcome.
    fn finish(&self, label: ControlStatus) {
        self.shared
            .running
            .leave(&self.request_id, self.generation, &self.shared.counters);
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
            cancel,
            timeout,
            generation,
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
        // Our own first message runs what `pre_start` leaves to our task.
        myself.cast(HandlerMsg::Run)?;
        let (request_id, subtype) = (request.request_id.clone(), request.subtype.clone());
        let mut answer = answer(&*callback, request, cancel.clone(), timeout, span.clone());
        let mut st = HandlerState {
            work: Work::Done,
            request_id,
            subtype,
            cancel,
            generation,
            shared,
            started: Instant::now(),
            span,
        };
        st.work = match poll_once(&mut answer) {
            None => Work::Waiting(answer),
            Some(outcome) => {
                let (reply, label) = st.reply(outcome);
                let line = reply.map(|r| reply_line(&st.request_id, r));
                let unsent = line.and_then(|line| {
                    match st
                        .shared
                        .stdin
                        .try_push(&st.shared, Lane::Control, line, None)
                    {
                        Err(TryPushError::Full(line, _)) => Some(line),
                        Ok(()) | Err(TryPushError::Closed) => None,
                    }
                });
                if unsent.is_none() {
                    st.finish(label);
                }
                Work::Answered { unsent, label }
            }
        };
        Ok(st)
    }

    async fn handle(
        &self,
        myself: ActorRef<HandlerMsg>,
        msg: HandlerMsg,
        st: &mut HandlerState,
    ) -> Result<(), ActorProcessingErr> {
        let HandlerMsg::Run = msg;
        let (line, label) = match std::mem::replace(&mut st.work, Work::Done) {
            Work::Done => return Ok(()),
            Work::Answered { unsent: None, .. } => {
                myself.stop(None);
                return Ok(());
            }
            Work::Answered {
                unsent: Some(line),
                label,
            } => (Some(line), label),
            // This actor exists for this one request: awaiting its callback
            // here holds up nothing else. The token (cancel, shutdown) and
            // the timeout bound it; a kill interrupts it.
            Work::Waiting(answer) => {
                let outcome = answer.await;
                let (reply, label) = st.reply(outcome);
                (reply.map(|r| reply_line(&st.request_id, r)), label)
            }
        };
        if let Some(line) = line {
            // Straight into the control lane of the stdin queue. Waiting for
            // room only happens while the CLI is not reading stdin; shutdown
            // (the token, then stdin closing) ends that wait.
            tokio::select! {
                biased;
                _ = st.shared.stdin.push(&st.shared, Lane::Control, line, None) => {}
                _ = st.cancel.cancelled() => {}
            }
        }
        st.finish(label);
        myself.stop(None);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
        let odd = reply_line("a\"3\n", Ok(Value::Null));
        assert!(odd.ends_with(b"}}\n") && !odd[..odd.len() - 1].contains(&b'\n'));
        let odd: Value = serde_json::from_slice(&odd).unwrap();
        assert_eq!(odd["type"], "control_response");
        assert_eq!(odd["response"]["request_id"], "a\"3\n");
    }

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
