//! The reply token: the one way to answer a CLI control request, which
//! answers exactly once.
//!
//! The reader makes a token when it admits a request and hands it to the
//! request's handler. Answering consumes it. A request that is not
//! admitted (a duplicate live id, one arriving during shutdown, one whose
//! line was over `max_line_bytes`) gets a token too, consumed at once with
//! the error reply ([`ReplyToken::refuse`]): every inbound request's one
//! reply is written by a token, whatever becomes of the request. Dropping it unanswered (the
//! handler actor killed or panicking, its task aborted, the token
//! forgotten) sends an error reply from `Drop`, so the CLI is never left
//! waiting; a request the CLI withdrew (`control_cancel_request`) or the
//! shutdown cancelled is the one case that gets no reply, and the token
//! knows it by its cancellation token.

use std::sync::Arc;

use bytes::Bytes;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::session::record::SessionRecord;
use crate::transport::stdin_queue::{Lane, StdinTx, TryPushError, push_control_detached};

/// A `control_response` line answering a CLI request, encoded in one pass
/// (the reply's value is written once, not wrapped and re-encoded).
/// Private: a reply line is made only by a token, which writes it once.
fn reply_line(request_id: &str, outcome: Result<Value, String>) -> Bytes {
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

/// [`reply_line`], for tests elsewhere to say what a token wrote.
#[cfg(test)]
pub(crate) fn expected_reply_line(request_id: &str, outcome: Result<Value, String>) -> Bytes {
    reply_line(request_id, outcome)
}

/// What a dropped, unanswered token tells the CLI.
pub(crate) const DROPPED_REPLY: &str = "handler failed: it stopped before replying";

/// Where a token's reply goes.
struct Out {
    stdin: Arc<StdinTx>,
    shared: Arc<SessionRecord>,
}

/// The right and the duty to answer one inbound control request.
#[must_use = "dropping a reply token unanswered sends the CLI an error reply"]
pub(crate) struct ReplyToken {
    request_id: String,
    cancel: CancellationToken,
    /// `None` once the token has done its one reply (or knows it owes none).
    out: Option<Out>,
    /// A reply that did not fit the control lane yet (the CLI is not
    /// reading stdin): written by [`Unsent::queue`], or from `Drop`.
    line: Option<Bytes>,
    /// An admitted request's: alive while it is unanswered (the reader's
    /// admission map holds the weak end, for duplicate ids and
    /// `control_cancel_request`), and the token counts one handler pending
    /// until it is done. `None` for a refusal, which was never admitted.
    live: Option<Arc<()>>,
}

/// A reply made but waiting for room in the control lane; the request is
/// still pending until it is queued.
#[must_use = "an unsent reply is written from Drop if not queued"]
pub(crate) struct Unsent(ReplyToken);

impl std::fmt::Debug for ReplyToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplyToken")
            .field("request_id", &self.request_id)
            .field("answered", &self.out.is_none())
            .finish_non_exhaustive()
    }
}

impl ReplyToken {
    /// A token for admitted request `request_id`, cancelled by `cancel`;
    /// counts one handler pending until it is done. Made only by the read
    /// loop's admission, so the count of requests admitted has one writer.
    pub(crate) fn new(
        request_id: String,
        cancel: CancellationToken,
        live: Arc<()>,
        stdin: Arc<StdinTx>,
        shared: Arc<SessionRecord>,
    ) -> Self {
        shared.inbound_admitted();
        Self {
            request_id,
            cancel,
            out: Some(Out { stdin, shared }),
            line: None,
            live: Some(live),
        }
    }

    /// Refuses request `request_id`, which was not admitted: its token is
    /// made and consumed at once with the error reply `message`, queued
    /// without waiting (past the lane's cap if it is full, as a dropped
    /// token's reply is), so the caller, the read loop or dispatch's
    /// `handle`, never waits. A refusal is not a handler: it is not counted
    /// pending, and no cancellation withdraws it.
    pub(crate) fn refuse(
        request_id: String,
        message: String,
        stdin: &Arc<StdinTx>,
        shared: &Arc<SessionRecord>,
    ) {
        let line = reply_line(&request_id, Err(message));
        let token = Self {
            request_id,
            cancel: CancellationToken::new(),
            out: Some(Out {
                stdin: stdin.clone(),
                shared: shared.clone(),
            }),
            line: Some(line),
            live: None,
        };
        // Drop writes the line it holds: the one reply.
        drop(token);
    }

    pub(crate) fn request_id(&self) -> &str {
        &self.request_id
    }

    /// Fires when the CLI withdraws the request or the session shuts down.
    pub(crate) fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Answers: queues the reply in the control lane now, or hands it back
    /// as [`Unsent`] when the lane is full.
    pub(crate) fn reply(mut self, outcome: Result<Value, String>) -> Result<(), Unsent> {
        let line = reply_line(&self.request_id, outcome);
        let Some(out) = &self.out else {
            return Ok(());
        };
        match out.stdin.try_push(&out.shared, Lane::Control, line, None) {
            Ok(()) | Err(TryPushError::Closed) => {
                self.done();
                Ok(())
            }
            Err(TryPushError::Full(line, _)) => {
                self.line = Some(line);
                Err(Unsent(self))
            }
        }
    }

    /// The request was withdrawn or the session is shutting down: no reply.
    pub(crate) fn cancelled(mut self) {
        self.done();
    }

    /// The token's duty is over: one handler fewer pending.
    fn done(&mut self) {
        if let Some(out) = self.out.take() {
            self.settle(&out);
        }
        self.line = None;
    }

    /// Counts an admitted request out (once: the caller took `out`).
    fn settle(&self, out: &Out) {
        if self.live.is_some() {
            out.shared.inbound_settled();
        }
    }
}

impl Unsent {
    /// Waits for room and queues the reply. Waiting ends when the CLI reads
    /// again, when the request is cancelled, or when stdin closes.
    pub(crate) async fn queue(mut self) {
        let token = &mut self.0;
        if let (Some(out), Some(line)) = (&token.out, token.line.take()) {
            tokio::select! {
                biased;
                _ = out.stdin.push(&out.shared, Lane::Control, line, None) => {}
                _ = token.cancel.cancelled() => {}
            }
        }
        token.done();
    }
}

impl Drop for ReplyToken {
    fn drop(&mut self) {
        let Some(out) = self.out.take() else {
            return;
        };
        // Counted out before the reply is on its way: whoever reads the
        // reply sees the request gone.
        self.settle(&out);
        let line = match self.line.take() {
            Some(line) => line,
            None if self.cancel.is_cancelled() => return,
            None => reply_line(&self.request_id, Err(DROPPED_REPLY.to_owned())),
        };
        push_control_detached(&out.stdin, &out.shared, line);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::stdin_queue;

    fn token(cancel: &CancellationToken) -> (ReplyToken, Arc<StdinTx>, Arc<SessionRecord>) {
        let shared = Arc::new(SessionRecord::new(None, None, false, None, None));
        let stdin = Arc::new(stdin_queue::channel(1024));
        let t = ReplyToken::new(
            "r-1".into(),
            cancel.clone(),
            Arc::new(()),
            stdin.clone(),
            shared.clone(),
        );
        (t, stdin, shared)
    }

    #[test]
    fn reply_lines_pair_by_id() {
        let ok: Value = serde_json::from_slice(&reply_line(
            "a-1",
            Ok(serde_json::json!({"behavior":"allow"})),
        ))
        .unwrap();
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
    async fn a_reply_is_queued_once_and_the_request_stops_pending() {
        let cancel = CancellationToken::new();
        let (t, stdin, shared) = token(&cancel);
        assert_eq!(shared.handlers_pending(), 1);
        assert!(t.reply(Ok(Value::Null)).is_ok());
        assert_eq!(shared.handlers_pending(), 0);
        let queued = stdin.queued_bytes();
        assert!(queued > 0);
        // Nothing more is queued when the token is gone.
        assert_eq!(stdin.queued_bytes(), queued);
    }

    #[tokio::test]
    async fn a_dropped_token_sends_an_error_reply() {
        let cancel = CancellationToken::new();
        let (t, stdin, shared) = token(&cancel);
        drop(t);
        assert_eq!(shared.handlers_pending(), 0);
        let expected = reply_line("r-1", Err(DROPPED_REPLY.to_owned()));
        assert_eq!(stdin.queued_bytes(), expected.len() as u64);
    }

    #[tokio::test]
    async fn a_cancelled_token_sends_nothing_when_dropped() {
        let cancel = CancellationToken::new();
        let (t, stdin, shared) = token(&cancel);
        cancel.cancel();
        drop(t);
        assert_eq!(shared.handlers_pending(), 0);
        assert_eq!(stdin.queued_bytes(), 0);
    }
}
