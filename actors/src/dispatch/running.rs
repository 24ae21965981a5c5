//! The CLI's control requests being answered: one entry per request id,
//! shared by the reader (admits and cancels, in line order), each handler
//! (leaves when done) and dispatch (fails all at shutdown, reports a
//! handler that failed). The lock is never held across an `.await`.

use std::collections::HashMap;
use std::sync::Mutex;

use ractor::{ActorId, ActorRef};
use tokio_util::sync::CancellationToken;

use crate::dispatch::handler::HandlerMsg;
use crate::events::Counters;

/// One request being answered; `generation` tells apart two requests that
/// reused an id one after the other.
struct Entry {
    generation: u64,
    cancel: CancellationToken,
    actor: Option<ActorRef<HandlerMsg>>,
}

#[derive(Default)]
struct Table {
    by_id: HashMap<String, Entry>,
    by_actor: HashMap<ActorId, (String, u64)>,
    closed: bool,
    next_generation: u64,
}

/// A request admitted to run.
pub(crate) struct Admitted {
    pub(crate) generation: u64,
    pub(crate) cancel: CancellationToken,
}

/// The requests being answered.
#[derive(Default)]
pub(crate) struct Running(Mutex<Table>);

impl std::fmt::Debug for Running {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Running")
    }
}

impl Running {
    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // Nothing that can panic runs under the lock; recover regardless.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits request `id`, or says why it gets an error reply instead.
    pub(crate) fn admit(&self, id: &str, counters: &Counters) -> Result<Admitted, String> {
        let mut t = self.table();
        if t.closed {
            return Err("the session is shutting down".to_owned());
        }
        if t.by_id.contains_key(id) {
            return Err(format!("duplicate control request id {id:?}"));
        }
        t.next_generation += 1;
        let generation = t.next_generation;
        let cancel = CancellationToken::new();
        let entry = Entry {
            generation,
            cancel: cancel.clone(),
            actor: None,
        };
        t.by_id.insert(id.to_owned(), entry);
        Counters::set(&counters.handlers_pending, t.by_id.len() as u64);
        Ok(Admitted { generation, cancel })
    }

    /// The handler actor of an admitted request (unless it already left).
    pub(crate) fn bind(&self, id: &str, generation: u64, actor: ActorRef<HandlerMsg>) {
        let mut t = self.table();
        let actor_id = actor.get_id();
        if let Some(e) = t.by_id.get_mut(id).filter(|e| e.generation == generation) {
            e.actor = Some(actor);
            t.by_actor.insert(actor_id, (id.to_owned(), generation));
        }
    }

    /// The request is answered (or given up): it leaves the table.
    pub(crate) fn leave(&self, id: &str, generation: u64, counters: &Counters) {
        let mut t = self.table();
        if t.by_id.get(id).is_some_and(|e| e.generation == generation) {
            if let Some(e) = t.by_id.remove(id) {
                if let Some(a) = e.actor {
                    t.by_actor.remove(&a.get_id());
                }
            }
        }
        Counters::set(&counters.handlers_pending, t.by_id.len() as u64);
    }

    /// The request whose handler actor this was, if it had not left yet.
    pub(crate) fn actor_ended(&self, actor: &ActorId, counters: &Counters) -> Option<String> {
        let (id, generation) = self.table().by_actor.remove(actor)?;
        let present = self
            .table()
            .by_id
            .get(&id)
            .is_some_and(|e| e.generation == generation);
        self.leave(&id, generation, counters);
        present.then_some(id)
    }

    /// The CLI withdrew request `id`: its callback is cancelled (no reply).
    pub(crate) fn cancel(&self, id: &str) {
        if let Some(e) = self.table().by_id.get(id) {
            e.cancel.cancel();
        }
    }

    /// Shutdown: admit nothing more, cancel every running request; returns
    /// how many there were.
    pub(crate) fn close(&self) -> usize {
        let mut t = self.table();
        t.closed = true;
        for e in t.by_id.values() {
            e.cancel.cancel();
        }
        t.by_id.len()
    }

    /// Dispatch is stopping: cancel and stop every handler actor.
    pub(crate) fn stop_all(&self) {
        let t = self.table();
        for e in t.by_id.values() {
            e.cancel.cancel();
            if let Some(a) = &e.actor {
                a.stop(None);
            }
        }
    }
}
