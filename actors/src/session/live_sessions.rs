//! The process-wide list of live sessions a host can inspect.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, SystemTime};

use crate::session::record::SessionRecord;
use crate::session::status::StatusRx;

/// One live session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionInfo {
    /// Process-unique id of the session object.
    pub id: u64,
    /// The config's label.
    pub label: Option<String>,
    /// The CLI's session id, once the first `system/init` frame was seen.
    pub session_id: Option<String>,
    /// The CLI's pid, for a local subprocess.
    pub pid: Option<u32>,
    /// When the session started.
    pub started_at: SystemTime,
    /// How long ago.
    pub age: Duration,
    /// Whether its shutdown has begun.
    pub closing: bool,
}

type Table = Mutex<HashMap<u64, (Weak<SessionRecord>, StatusRx)>>;

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

/// Lists the session until its supervisor unregisters it (on publishing
/// its report, or when dropped).
pub(crate) fn register(shared: &Arc<SessionRecord>, status: StatusRx) {
    if let Ok(mut t) = table().lock() {
        t.insert(shared.id, (Arc::downgrade(shared), status));
    }
}

pub(crate) fn unregister(id: u64) {
    if let Ok(mut t) = table().lock() {
        t.remove(&id);
    }
}

/// Sessions started in this process whose shutdown has not completed,
/// oldest first.
pub fn live_sessions() -> Vec<SessionInfo> {
    let live: Vec<(Arc<SessionRecord>, bool)> = match table().lock() {
        Ok(t) => t
            .values()
            .filter_map(|(s, status)| Some((s.upgrade()?, !status.borrow().is_running())))
            .collect(),
        Err(_) => return Vec::new(),
    };
    let mut out: Vec<SessionInfo> = live
        .iter()
        .map(|(s, closing)| SessionInfo {
            id: s.id,
            label: s.label.clone(),
            session_id: s.session_id.get().cloned(),
            pid: s.pid,
            started_at: s.started_at,
            age: s.started.elapsed(),
            closing: *closing,
        })
        .collect();
    out.sort_by_key(|i| i.id);
    out
}
