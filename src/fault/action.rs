//! What a fault does: signals to the CLI, held or closed pipes, control
//! replies delayed or dropped, lines spoiled or added, callbacks that hang
//! or panic, a store that stalls or fails.

use std::fmt;
use std::time::Duration;

/// Who a signal goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The CLI's whole process group (its tools' processes too).
    Group,
    /// The CLI process alone.
    Leader,
}

/// What a fault does when its point is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Action {
    /// Sends `signal` (a number, e.g. 9) to the CLI.
    Signal {
        /// The signal number.
        signal: i32,
        /// The group or the leader only.
        target: Target,
    },
    /// SIGSTOP to the group; SIGCONT after `resume_after`, if given.
    Stop {
        /// When to continue the CLI; `None`: stopped until something else
        /// continues or kills it (the shutdown's SIGKILL does).
        resume_after: Option<Duration>,
    },
    /// SIGCONT to the group.
    Continue,
    /// Holds every byte of the CLI's stdout for this long.
    StallStdout(Duration),
    /// Holds every write to the CLI's stdin for this long.
    StallStdin(Duration),
    /// Closes the CLI's stdout pipe: the runtime reads EOF while the CLI
    /// still runs; the CLI's next write fails.
    CloseStdout,
    /// Closes the CLI's stdin pipe: the CLI reads EOF; the runtime's next
    /// write fails.
    CloseStdin,
    /// Holds the runtime's reply to the control request at the point for
    /// this long (later stdin writes wait behind it).
    DelayReply(Duration),
    /// Drops the runtime's reply to the control request at the point: the
    /// CLI never gets it.
    DropReply,
    /// Replaces the frame at the point with a line that is not JSON.
    Corrupt,
    /// Cuts the frame at the point to this many bytes (default: half).
    Truncate(Option<usize>),
    /// Adds this line before (`before:`) or after the frame at the point.
    Inject(String),
    /// The callback answering the control request at the point never
    /// returns (until the runtime cancels it).
    HangCallback,
    /// The callback answering the control request at the point panics.
    PanicCallback,
    /// The session store's next append (from the point on) waits this long.
    StallStore(Duration),
    /// Every session-store append from the point on fails.
    FailStore,
}

/// The line [`Action::Inject`] adds by default: not JSON, so the runtime
/// skips it with a diagnostic.
pub const DEFAULT_INJECTED_LINE: &str = "fault-injected line (not JSON)";

impl Action {
    /// The action's name in the spec syntax (`kill`, `stall-stdout`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Self::Signal {
                target: Target::Group,
                ..
            } => "kill",
            Self::Signal {
                target: Target::Leader,
                ..
            } => "kill-leader",
            Self::Stop { .. } => "stop",
            Self::Continue => "cont",
            Self::StallStdout(_) => "stall-stdout",
            Self::StallStdin(_) => "stall-stdin",
            Self::CloseStdout => "close-stdout",
            Self::CloseStdin => "close-stdin",
            Self::DelayReply(_) => "delay-reply",
            Self::DropReply => "drop-reply",
            Self::Corrupt => "corrupt",
            Self::Truncate(_) => "truncate",
            Self::Inject(_) => "inject",
            Self::HangCallback => "hang-callback",
            Self::PanicCallback => "panic-callback",
            Self::StallStore(_) => "stall-store",
            Self::FailStore => "fail-store",
        }
    }

    /// Acts on the runtime's reply or callback for the request at the
    /// point: needs a control-request point.
    pub(crate) fn needs_request(&self) -> bool {
        matches!(
            self,
            Self::DelayReply(_) | Self::DropReply | Self::HangCallback | Self::PanicCallback
        )
    }

    /// Rewrites or adds stdout lines: needs a frame point.
    pub(crate) fn needs_frame(&self) -> bool {
        matches!(self, Self::Corrupt | Self::Truncate(_) | Self::Inject(_))
    }

    /// Acts on the session store.
    pub(crate) fn is_store(&self) -> bool {
        matches!(self, Self::StallStore(_) | Self::FailStore)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: &Duration| d.as_millis();
        match self {
            Self::Signal { signal, .. } if *signal == KILL => f.write_str(self.name()),
            Self::Signal { signal, .. } => match signal_name(*signal) {
                Some(n) => write!(f, "{}:{}", self.name(), &n[3..]),
                None => write!(f, "{}:{signal}", self.name()),
            },
            Self::Stop {
                resume_after: Some(d),
            } => write!(f, "stop:{}", ms(d)),
            Self::StallStdout(d)
            | Self::StallStdin(d)
            | Self::DelayReply(d)
            | Self::StallStore(d) => {
                write!(f, "{}:{}", self.name(), ms(d))
            }
            Self::Truncate(Some(n)) => write!(f, "truncate:{n}"),
            Self::Inject(line) if line != DEFAULT_INJECTED_LINE => write!(f, "inject:{line}"),
            _ => f.write_str(self.name()),
        }
    }
}

/// SIGKILL's number.
pub(crate) const KILL: i32 = rustix::process::Signal::KILL.as_raw();

/// The signals a spec may name, by name, with the platform's numbers.
fn signals() -> [(&'static str, i32); 11] {
    use rustix::process::Signal as S;
    [
        ("SIGHUP", S::HUP.as_raw()),
        ("SIGINT", S::INT.as_raw()),
        ("SIGQUIT", S::QUIT.as_raw()),
        ("SIGABRT", S::ABORT.as_raw()),
        ("SIGKILL", S::KILL.as_raw()),
        ("SIGUSR1", S::USR1.as_raw()),
        ("SIGSEGV", S::SEGV.as_raw()),
        ("SIGUSR2", S::USR2.as_raw()),
        ("SIGPIPE", S::PIPE.as_raw()),
        ("SIGALRM", S::ALARM.as_raw()),
        ("SIGTERM", S::TERM.as_raw()),
    ]
}

/// `SIGKILL` for 9, ... (the signals a spec may name, and SIGSTOP/SIGCONT).
pub(crate) fn signal_name(signal: i32) -> Option<&'static str> {
    use rustix::process::Signal as S;
    if signal == S::STOP.as_raw() {
        return Some("SIGSTOP");
    }
    if signal == S::CONT.as_raw() {
        return Some("SIGCONT");
    }
    signals()
        .into_iter()
        .find(|(_, n)| *n == signal)
        .map(|(s, _)| s)
}

/// `KILL`, `SIGKILL`, `kill` or `9`.
pub(crate) fn parse_signal(text: &str) -> Option<i32> {
    if let Ok(n) = text.parse::<i32>() {
        return signals().iter().any(|(_, s)| *s == n).then_some(n);
    }
    let upper = text.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    signals()
        .into_iter()
        .find(|(s, _)| &s[3..] == name)
        .map(|(_, n)| n)
}

/// The names a spec may use, for error messages.
pub(crate) fn signal_names() -> String {
    let names: Vec<&str> = signals().iter().map(|(s, _)| &s[3..]).collect();
    names.join(", ")
}
