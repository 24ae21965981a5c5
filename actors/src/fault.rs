//! Fault injection: kill a session's actors from outside, to check that
//! every failure ends in the ordered shutdown with a true report.
//!
//! Meant for tests of this crate and of hosts built on it (what does my host
//! do when the session dies under it?), behind the `fault-injection`
//! feature (`claude-agent`'s feature of the same name turns it on). Each kill is ractor's `kill`: the
//! actor stops at once, without `post_stop`, its state dropped, exactly as
//! a panic in its `handle` would leave it.

use ractor::ActorCell;

use crate::session::handle::Session;

/// Kills a session's actors; from [`Session::fault`].
#[derive(Debug, Clone)]
pub struct FaultInjector {
    session: Session,
}

impl Session {
    /// A handle to kill this session's actors (fault injection).
    pub fn fault(&self) -> FaultInjector {
        FaultInjector {
            session: self.clone(),
        }
    }
}

impl FaultInjector {
    /// Kills the reader: the stdout read loop is aborted with it.
    pub fn kill_reader(&self) {
        self.session.inner.children.reader.kill();
    }

    /// Kills control dispatch (and the handler actors it supervises).
    pub fn kill_dispatch(&self) {
        self.session.inner.children.dispatch.kill();
    }

    /// Kills the transport: its tasks are aborted and the channel dropped,
    /// which kills a subprocess CLI's group.
    pub fn kill_transport(&self) {
        self.session.inner.children.transport.kill();
    }

    /// Kills the supervisor, and with it every actor of the session.
    pub fn kill_supervisor(&self) {
        self.session.inner.supervisor.kill();
    }

    /// Kills every handler actor answering a CLI control request; returns
    /// how many there were.
    pub fn kill_handlers(&self) -> usize {
        let handlers: Vec<ActorCell> = self.session.inner.children.dispatch.get_children();
        for h in &handlers {
            h.kill();
        }
        handlers.len()
    }
}
