//! The registry of live (not yet reaped) processes spawned by this crate.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

/// One live process, as listed by [`live_processes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    /// Process id.
    pub pid: u32,
    /// Process group id (equal to `pid`: each CLI leads its own group).
    pub pgid: u32,
    /// The spawning session's label, if any.
    pub session_label: Option<String>,
    /// When it was spawned.
    pub started_at: SystemTime,
    /// How long ago it was spawned.
    pub age: Duration,
}

struct Entry {
    pgid: u32,
    session_label: Option<String>,
    started_at: SystemTime,
}

static REGISTRY: Mutex<BTreeMap<u32, Entry>> = Mutex::new(BTreeMap::new());

fn lock() -> MutexGuard<'static, BTreeMap<u32, Entry>> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

pub(super) fn insert(pid: u32, pgid: u32, session_label: Option<String>) {
    let entry = Entry {
        pgid,
        session_label,
        started_at: SystemTime::now(),
    };
    lock().insert(pid, entry);
}

pub(super) fn remove(pid: u32) {
    lock().remove(&pid);
}

/// Every process spawned by [`spawn`](super::spawn) and not yet reaped,
/// ordered by pid.
pub fn live_processes() -> Vec<ProcessInfo> {
    let now = SystemTime::now();
    lock()
        .iter()
        .map(|(&pid, e)| ProcessInfo {
            pid,
            pgid: e.pgid,
            session_label: e.session_label.clone(),
            started_at: e.started_at,
            age: now.duration_since(e.started_at).unwrap_or_default(),
        })
        .collect()
}
