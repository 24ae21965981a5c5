//! The MCP servers of one running session that can change while it runs:
//! its in-process servers (which the router answers for) and the external
//! servers added with `mcp_set_servers`.
//!
//! One per session, shared by the session's router and its `Client`; a
//! builder connecting again (a `Host` restart) starts from its own list.

use std::sync::{Arc, Mutex, MutexGuard};

use super::SdkMcpServer;
use crate::options::McpServerConfig;

/// What a session's `mcp_set_servers` manages.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveSet {
    /// In-process servers, found by name.
    pub(crate) in_process: Vec<SdkMcpServer>,
    /// External servers added on the live session, in order.
    pub(crate) external: Vec<(String, McpServerConfig)>,
}

/// A session's [`LiveSet`], and the lock that keeps changes to it (each a
/// control round trip) in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveServers {
    set: Arc<Mutex<LiveSet>>,
    /// Held across one `mcp_set_servers` round trip, which the control
    /// timeout bounds, so a later change is sent after an earlier one.
    changes: Arc<tokio::sync::Mutex<()>>,
}

impl LiveServers {
    /// A session starting with these in-process servers.
    pub(crate) fn new(in_process: Vec<SdkMcpServer>) -> Self {
        Self {
            set: Arc::new(Mutex::new(LiveSet {
                in_process,
                external: Vec::new(),
            })),
            changes: Arc::default(),
        }
    }

    // The set is replaced whole under the lock, so a panic elsewhere
    // cannot leave it half-changed: a poisoned lock is still consistent.
    fn lock(&self) -> MutexGuard<'_, LiveSet> {
        self.set.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The in-process server called `name`.
    pub(crate) fn find(&self, name: &str) -> Option<SdkMcpServer> {
        self.lock()
            .in_process
            .iter()
            .find(|s| s.name() == name)
            .cloned()
    }

    /// A copy of the current set.
    pub(crate) fn snapshot(&self) -> LiveSet {
        self.lock().clone()
    }

    /// Replaces the set; returns the one it replaced.
    pub(crate) fn replace(&self, set: LiveSet) -> LiveSet {
        std::mem::replace(&mut *self.lock(), set)
    }

    /// Waits for earlier changes to finish; the guard orders this one.
    pub(crate) async fn change(&self) -> tokio::sync::OwnedMutexGuard<()> {
        Arc::clone(&self.changes).lock_owned().await
    }
}
