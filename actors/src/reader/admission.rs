//! The CLI's requests in flight, as the read loop sees them: admitted in
//! line order, so a later `control_cancel_request` finds its request and a
//! duplicate live id is refused.
//!
//! Owned by the read loop alone (no lock). Each entry keeps only weak
//! handles: the request's reply token holds the strong end, so an answered
//! request drops out by itself, and the loop never waits for a handler.
//!
//! Every request gets a reply token here: an admitted one its handler's,
//! a refused one (duplicate live id, the session shutting down) a token
//! spent at once on the error reply ([`ReplyToken::refuse`]), so the one
//! reply a request is owed is always a token's.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use tokio_util::sync::CancellationToken;

use crate::dispatch::reply::ReplyToken;
use crate::session::record::SessionRecord;
use crate::transport::stdin_queue::StdinTx;

/// Entries kept before the answered ones are swept out.
const SWEEP_AT: usize = 64;

struct Entry {
    /// Alive while the request is unanswered.
    live: Weak<()>,
    cancel: CancellationToken,
}

pub(crate) struct Admission {
    by_id: HashMap<String, Entry>,
    /// The session's: cancelled by the shutdown, which cancels every
    /// request's token (its children) and admits nothing more.
    session: CancellationToken,
    sweep_at: usize,
    stdin: Arc<StdinTx>,
    shared: Arc<SessionRecord>,
}

impl Admission {
    pub(crate) fn new(
        session: CancellationToken,
        stdin: Arc<StdinTx>,
        shared: Arc<SessionRecord>,
    ) -> Self {
        Self {
            by_id: HashMap::new(),
            session,
            sweep_at: SWEEP_AT,
            stdin,
            shared,
        }
    }

    /// Admits request `id` with its reply token for its handler, or
    /// refuses it: then its token has already sent the error reply, and
    /// there is nothing to run (`None`).
    pub(crate) fn admit(&mut self, id: &str) -> Option<ReplyToken> {
        if let Some(why) = self.refusal(id) {
            ReplyToken::refuse(id.to_owned(), why, &self.stdin, &self.shared);
            return None;
        }
        if self.by_id.len() >= self.sweep_at {
            self.by_id.retain(|_, e| e.live.strong_count() > 0);
            self.sweep_at = (self.by_id.len() * 2).max(SWEEP_AT);
        }
        let live = Arc::new(());
        let cancel = self.session.child_token();
        let entry = Entry {
            live: Arc::downgrade(&live),
            cancel: cancel.clone(),
        };
        self.by_id.insert(id.to_owned(), entry);
        Some(ReplyToken::new(
            id.to_owned(),
            cancel,
            live,
            self.stdin.clone(),
            self.shared.clone(),
        ))
    }

    /// Why request `id` cannot be admitted, if it cannot: the error reply's
    /// text.
    fn refusal(&self, id: &str) -> Option<String> {
        if self.session.is_cancelled() {
            return Some("the session is shutting down".to_owned());
        }
        if self
            .by_id
            .get(id)
            .is_some_and(|e| e.live.strong_count() > 0)
        {
            return Some(format!("duplicate control request id {id:?}"));
        }
        None
    }

    /// The CLI withdrew request `id`: its callback is cancelled, and its
    /// token owes no reply.
    pub(crate) fn cancel(&mut self, id: &str) {
        if let Some(e) = self.by_id.get(id) {
            e.cancel.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::reply::expected_reply_line as reply_line;
    use crate::transport::stdin_queue;

    fn admission() -> (Admission, CancellationToken) {
        let session = CancellationToken::new();
        let shared = Arc::new(SessionRecord::new(None, None, false, None, None));
        let stdin = Arc::new(stdin_queue::channel(1 << 16));
        (Admission::new(session.clone(), stdin, shared), session)
    }

    /// The one error reply a refused request got, as its text.
    fn refusal_text(a: &Admission, id: &str) -> String {
        let lines = a.stdin.take_control_lines();
        assert_eq!(lines.len(), 1, "exactly one reply: {lines:?}");
        let reply: serde_json::Value = serde_json::from_slice(&lines[0]).unwrap();
        assert_eq!(reply["response"]["request_id"], id);
        assert_eq!(reply["response"]["subtype"], "error");
        reply["response"]["error"].as_str().unwrap().to_owned()
    }

    #[tokio::test]
    async fn a_live_id_is_refused_and_an_answered_one_can_be_reused() {
        let (mut a, _) = admission();
        let first = a.admit("x").unwrap();
        assert!(a.admit("x").is_none());
        assert!(refusal_text(&a, "x").contains("duplicate"));
        first.cancelled();
        let again = a.admit("x").unwrap();
        again.cancelled();
    }

    #[tokio::test]
    async fn a_cancel_reaches_only_its_request_and_shutdown_reaches_all() {
        let (mut a, session) = admission();
        let (x, y) = (a.admit("x").unwrap(), a.admit("y").unwrap());
        a.cancel("x");
        assert!(x.cancel_token().is_cancelled());
        assert!(!y.cancel_token().is_cancelled());
        session.cancel();
        assert!(y.cancel_token().is_cancelled());
        assert!(a.admit("z").is_none());
        assert!(refusal_text(&a, "z").contains("shutting down"));
        x.cancelled();
        y.cancelled();
    }

    #[tokio::test]
    async fn a_refusal_is_one_token_reply_with_the_old_text_and_no_handler_pending() {
        let (mut a, session) = admission();
        let first = a.admit("x").unwrap();
        assert_eq!(a.shared.handlers_pending(), 1);
        assert!(a.admit("x").is_none());
        let expected = reply_line("x", Err("duplicate control request id \"x\"".to_owned()));
        assert_eq!(a.stdin.take_control_lines(), vec![expected]);
        // The refusal counted no handler, and settled none.
        assert_eq!(a.shared.handlers_pending(), 1);
        first.cancelled();
        assert_eq!(a.shared.handlers_pending(), 0);
        session.cancel();
        assert!(a.admit("y").is_none());
        let expected = reply_line("y", Err("the session is shutting down".to_owned()));
        assert_eq!(a.stdin.take_control_lines(), vec![expected]);
        assert_eq!(a.shared.handlers_pending(), 0);
        // Nothing more is queued for either.
        assert!(a.stdin.take_control_lines().is_empty());
    }

    #[tokio::test]
    async fn answered_entries_are_swept() {
        let (mut a, _) = admission();
        for i in 0..(SWEEP_AT * 3) {
            a.admit(&format!("r-{i}")).unwrap().cancelled();
        }
        assert!(a.by_id.len() <= SWEEP_AT);
    }
}
