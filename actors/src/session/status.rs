//! Where a session is in its life, as its supervisor publishes it.
//!
//! The supervisor owns the one sender (`supervisor/publish.rs`); the
//! handle, the live-session list and the watchdog hold receivers. The
//! status only moves forward: `Running` -> `Closing` -> `Ended`.

use tokio::sync::watch;

use crate::supervisor::shutdown::ladder::ShutdownReport;

/// A session's phase.
#[derive(Debug, Clone)]
pub(crate) enum Status {
    /// Admitting work.
    Running,
    /// The ordered shutdown has begun: nothing new is admitted.
    Closing,
    /// The shutdown completed (or the supervisor was lost) with this report.
    Ended(Box<ShutdownReport>),
}

impl Status {
    pub(crate) fn is_running(&self) -> bool {
        matches!(self, Status::Running)
    }

    pub(crate) fn report(&self) -> Option<&ShutdownReport> {
        match self {
            Status::Ended(r) => Some(&**r),
            _ => None,
        }
    }
}

/// A receiver of the supervisor's status.
pub(crate) type StatusRx = watch::Receiver<Status>;
