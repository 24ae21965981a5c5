//! The MCP servers of one running session that can change while it runs:
//! the external servers added with `mcp_set_servers` and, with the feature
//! `mcp`, its in-process servers (which the router answers for).
//!
//! One per session, shared by the session's router and its `Client`; a
//! builder connecting again (a `Host` restart) starts from its own list.

use std::sync::{Arc, Mutex, MutexGuard};

#[cfg(feature = "mcp")]
use super::mcp::SdkMcpServer;
use crate::options::McpServerConfig;

/// What a session's `mcp_set_servers` manages. A name is in one list at
/// most: putting a server under a name takes that name out of both.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveSet {
    /// In-process servers, found by name.
    #[cfg(feature = "mcp")]
    pub(crate) in_process: Vec<SdkMcpServer>,
    /// External servers added on the live session, in order.
    pub(crate) external: Vec<(String, McpServerConfig)>,
}

impl LiveSet {
    /// Takes the server called `name` out of the set, whichever kind it is.
    pub(crate) fn remove(&mut self, name: &str) {
        #[cfg(feature = "mcp")]
        self.in_process.retain(|s| s.name() != name);
        self.external.retain(|(n, _)| n != name);
    }

    /// Puts an external server under `name`, replacing what was there.
    pub(crate) fn put_external(&mut self, name: String, config: McpServerConfig) {
        self.remove(&name);
        self.external.push((name, config));
    }

    /// Puts an in-process server under its own name, replacing what was
    /// there.
    #[cfg(feature = "mcp")]
    pub(crate) fn put_in_process(&mut self, server: SdkMcpServer) {
        self.remove(server.name());
        self.in_process.push(server);
    }
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
    #[cfg(feature = "mcp")]
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
    #[cfg(feature = "mcp")]
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str) -> McpServerConfig {
        McpServerConfig::stdio(command, Vec::<String>::new())
    }

    #[test]
    fn a_server_put_under_a_taken_name_replaces_it_and_moves_to_the_end() {
        let mut set = LiveSet::default();
        set.put_external("a".into(), stdio("one"));
        set.put_external("b".into(), stdio("two"));
        set.put_external("a".into(), stdio("three"));
        let names: Vec<&str> = set.external.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!(set.external[1].1, stdio("three"));
        set.remove("b");
        set.remove("missing");
        assert_eq!(set.external.len(), 1);
    }

    #[cfg(feature = "mcp")]
    #[test]
    fn a_name_is_in_one_list_at_most() {
        let mut set = LiveSet::default();
        set.put_external("calc".into(), stdio("calc"));
        set.put_in_process(SdkMcpServer::new("calc", "1.0.0"));
        assert!(set.external.is_empty());
        assert_eq!(set.in_process.len(), 1);
        set.put_external("calc".into(), stdio("calc"));
        assert!(set.in_process.is_empty());
        assert_eq!(set.external.len(), 1);
    }
}
