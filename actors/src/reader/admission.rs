//! The CLI's requests in flight, as the read loop sees them: admitted in
//! line order, so a later `control_cancel_request` finds its request and a
//! duplicate live id is refused.
//!
//! Owned by the read loop alone (no lock). Each entry keeps only weak
//! handles: the request's reply token holds the strong end, so an answered
//! request drops out by itself, and the loop never waits for a handler.

use std::collections::HashMap;
use std::sync::{Arc, Weak};

use tokio_util::sync::CancellationToken;

use crate::dispatch::reply::ReplyToken;
use crate::session::shared::Shared;
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
    shared: Arc<Shared>,
}

impl Admission {
    pub(crate) fn new(
        session: CancellationToken,
        stdin: Arc<StdinTx>,
        shared: Arc<Shared>,
    ) -> Self {
        Self {
            by_id: HashMap::new(),
            session,
            sweep_at: SWEEP_AT,
            stdin,
            shared,
        }
    }

    /// Admits request `id` with its reply token, or says why it gets an
    /// error reply instead.
    pub(crate) fn admit(&mut self, id: &str) -> Result<ReplyToken, String> {
        if self.session.is_cancelled() {
            return Err("the session is shutting down".to_owned());
        }
        if self
            .by_id
            .get(id)
            .is_some_and(|e| e.live.strong_count() > 0)
        {
            return Err(format!("duplicate control request id {id:?}"));
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
        Ok(ReplyToken::new(
            id.to_owned(),
            cancel,
            live,
            self.stdin.clone(),
            self.shared.clone(),
        ))
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
    use crate::transport::stdin_queue;

    fn admission() -> (Admission, CancellationToken) {
        let session = CancellationToken::new();
        let shared = Arc::new(Shared::new(None, None, false, None, None));
        let stdin = Arc::new(stdin_queue::channel(1 << 16));
        (Admission::new(session.clone(), stdin, shared), session)
    }

    #[tokio::test]
    async fn a_live_id_is_refused_and_an_answered_one_can_be_reused() {
        let (mut a, _) = admission();
        let first = a.admit("x").unwrap();
        assert!(a.admit("x").unwrap_err().contains("duplicate"));
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
        assert!(a.admit("z").unwrap_err().contains("shutting down"));
        x.cancelled();
        y.cancelled();
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
