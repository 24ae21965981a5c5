//! The `tools/call` requests a server is running, by JSON-RPC id, so
//! `notifications/cancelled` can cancel them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::protocol::JsonRpcId;
use claude_agent_actors::CancellationToken;

#[derive(Default)]
struct Calls {
    next_generation: u64,
    by_id: HashMap<JsonRpcId, (u64, CancellationToken)>,
}

/// Shared by every clone of one server.
#[derive(Clone, Default)]
pub(crate) struct InFlight {
    calls: Arc<Mutex<Calls>>,
}

/// Removes its entry when the call ends or its future is dropped.
pub(crate) struct InFlightGuard {
    calls: Arc<Mutex<Calls>>,
    id: JsonRpcId,
    generation: u64,
}

fn lock(m: &Mutex<Calls>) -> MutexGuard<'_, Calls> {
    // The lock is never held across an await or user code, so a poisoned
    // map is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl InFlight {
    /// Tracks `token` under `id` until the guard drops. A reused id
    /// replaces the older entry (ids are the client's to keep unique).
    pub(crate) fn register(&self, id: JsonRpcId, token: CancellationToken) -> InFlightGuard {
        let mut calls = lock(&self.calls);
        calls.next_generation += 1;
        let generation = calls.next_generation;
        calls.by_id.insert(id.clone(), (generation, token));
        InFlightGuard {
            calls: Arc::clone(&self.calls),
            id,
            generation,
        }
    }

    /// Cancels the call `id`; false if none is running.
    pub(crate) fn cancel(&self, id: &JsonRpcId) -> bool {
        let token = lock(&self.calls).by_id.get(id).map(|(_, t)| t.clone());
        token.map(|t| t.cancel()).is_some()
    }

    /// How many calls are running.
    pub(crate) fn len(&self) -> usize {
        lock(&self.calls).by_id.len()
    }
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        let mut calls = lock(&self.calls);
        if calls
            .by_id
            .get(&self.id)
            .is_some_and(|(g, _)| *g == self.generation)
        {
            calls.by_id.remove(&self.id);
        }
    }
}
