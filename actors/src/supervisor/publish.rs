//! The supervisor's end of the session status (`session/status.rs`): the
//! only writer, moving it forward once per step.

use tokio::sync::watch;

use crate::session::live_sessions;
use crate::session::status::{Status, StatusRx};
use crate::supervisor::shutdown::ladder::ShutdownReport;

/// Publishes a session's status; held by its supervisor and its stop task.
#[derive(Debug)]
pub(crate) struct StatusTx {
    /// The session's id in the live-session list.
    session: u64,
    tx: watch::Sender<Status>,
}

impl StatusTx {
    /// A `Running` status for session `session`, and its first receiver.
    pub(crate) fn new(session: u64) -> (Self, StatusRx) {
        let (tx, rx) = watch::channel(Status::Running);
        (Self { session, tx }, rx)
    }

    /// Another receiver.
    pub(crate) fn subscribe(&self) -> StatusRx {
        self.tx.subscribe()
    }

    /// Running -> Closing (nothing else moves).
    pub(crate) fn closing(&self) {
        self.tx.send_if_modified(|s| {
            let running = s.is_running();
            if running {
                *s = Status::Closing;
            }
            running
        });
    }

    /// Whether a report was published.
    pub(crate) fn ended(&self) -> bool {
        self.tx.borrow().report().is_some()
    }

    /// Publishes the report once; later calls are ignored. The session
    /// leaves the live list first, so whoever sees the report sees it gone.
    pub(crate) fn publish(&self, report: ShutdownReport) {
        live_sessions::unregister(self.session);
        self.tx.send_if_modified(|s| {
            if s.report().is_some() {
                return false;
            }
            *s = Status::Ended(Box::new(report));
            true
        });
    }
}

impl Drop for StatusTx {
    fn drop(&mut self) {
        live_sessions::unregister(self.session);
    }
}
