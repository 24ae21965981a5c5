//! The bounds of the shutdown's own waits (not the CLI's graces, which are
//! `SessionConfig::grace` and `term_grace`).

use std::time::Duration;

/// How long the ordered shutdown waits for each of its own steps, so that
/// no step can hang it. The defaults suit a local subprocess; a transport
/// whose far end is slow to report (a remote channel) may want more.
///
/// ```
/// use std::time::Duration;
/// use claude_agent_actors::{SessionConfig, ShutdownTimeouts, process::ProcessSpec};
///
/// let mut bounds = ShutdownTimeouts::default();
/// bounds.drain = Duration::from_secs(5);
/// let config = SessionConfig::subprocess(ProcessSpec::new("claude")).shutdown_timeouts(bounds);
/// assert_eq!(config.shutdown_timeouts.actor_call, Duration::from_secs(2));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownTimeouts {
    /// One call to a child actor (failing our pending requests, the
    /// group's after-exit sweep). Default 2 s; a call that times out counts
    /// as "nothing done".
    pub actor_call: Duration,
    /// Stopping one child actor; past it the child is killed. Default 2 s.
    pub actor_stop: Duration,
    /// Waiting for stdout EOF and the end of stderr once the process group
    /// is dead (a descendant that left the group could hold the pipes
    /// open). Default 2 s.
    pub drain: Duration,
    /// How long a crash's failed requests wait for the last stderr lines,
    /// so their error carries them. Default 100 ms.
    pub stderr_settle: Duration,
    /// After stdout EOF, how long the CLI gets to exit before the session
    /// counts as "closed stdout but kept running" (only names the cause;
    /// capped by `grace`). Default 250 ms.
    pub eof_settle: Duration,
    /// After SIGKILL (or a non-process channel's abort), how long the
    /// ladder waits for the end before it gives up on it: a process in
    /// uninterruptible sleep (a hung NFS read) cannot die before its
    /// kernel call returns, and a remote channel may report its end
    /// late. The report then has no exit; the group is killed again
    /// when the channel is dropped. Default 5 s.
    pub after_kill: Duration,
}

impl Default for ShutdownTimeouts {
    fn default() -> Self {
        Self {
            actor_call: Duration::from_secs(2),
            actor_stop: Duration::from_secs(2),
            drain: Duration::from_secs(2),
            stderr_settle: Duration::from_millis(100),
            eof_settle: Duration::from_millis(250),
            after_kill: Duration::from_secs(5),
        }
    }
}
