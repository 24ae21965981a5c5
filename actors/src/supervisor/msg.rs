//! What the supervisor hears: the one vocabulary the session handle, the
//! children and the stop sequence use to reach it.

use crate::process::ExitInfo;
use crate::supervisor::shutdown::ladder::ShutdownCause;

pub(crate) enum SupervisorMsg {
    Shutdown(ShutdownCause),
    /// Cut the ladder's current wait short (starting the shutdown with
    /// `Requested` if it has not begun).
    Hurry,
    /// Shut down with this cause and SIGKILL at once, skipping the graces.
    Kill(ShutdownCause),
    FarEndEnded(Option<ExitInfo>),
    StdoutEof,
    EofSettled,
    ReadFailed(String),
    /// Sent by the stop task once the report is published.
    Stopped,
}
