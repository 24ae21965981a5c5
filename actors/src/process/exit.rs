//! Signals we send and how a process ended.

use std::fmt;

use rustix::process::Signal as RawSignal;

/// A signal the runtime sends to a CLI process or its group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Signal {
    /// `SIGTERM`: polite stop.
    Term,
    /// `SIGKILL`: forceful stop.
    Kill,
    /// `SIGINT`: interrupt.
    Int,
}

impl Signal {
    pub(crate) fn raw(self) -> RawSignal {
        match self {
            Signal::Term => RawSignal::TERM,
            Signal::Kill => RawSignal::KILL,
            Signal::Int => RawSignal::INT,
        }
    }

    /// The platform's signal number.
    pub fn number(self) -> i32 {
        self.raw().as_raw()
    }
}

/// How the process ended.
///
/// ```
/// # use claude_agent_actors::process::ExitInfo;
/// assert_eq!(ExitInfo { code: Some(3), signal: None }.to_string(), "exit code 3");
/// assert_eq!(
///     ExitInfo { code: None, signal: Some(9) }.to_string(),
///     "killed by signal 9 (SIGKILL)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ExitInfo {
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The signal that killed it, when it was killed.
    pub signal: Option<i32>,
}

impl ExitInfo {
    /// Exited normally with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl From<std::process::ExitStatus> for ExitInfo {
    fn from(status: std::process::ExitStatus) -> Self {
        #[cfg(unix)]
        let signal = std::os::unix::process::ExitStatusExt::signal(&status);
        #[cfg(not(unix))]
        let signal = None;
        Self {
            code: status.code(),
            signal,
        }
    }
}

impl fmt::Display for ExitInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "exit code {code}"),
            (None, Some(sig)) => match signal_name(sig) {
                Some(name) => write!(f, "killed by signal {sig} ({name})"),
                None => write!(f, "killed by signal {sig}"),
            },
            // A non-process channel that was closed or aborted.
            (None, None) => f.write_str("ended without an exit status"),
        }
    }
}

/// The conventional name of a signal number, from the platform's numbering.
pub fn signal_name(sig: i32) -> Option<&'static str> {
    const NAMES: &[(RawSignal, &str)] = &[
        (RawSignal::HUP, "SIGHUP"),
        (RawSignal::INT, "SIGINT"),
        (RawSignal::QUIT, "SIGQUIT"),
        (RawSignal::ILL, "SIGILL"),
        (RawSignal::TRAP, "SIGTRAP"),
        (RawSignal::ABORT, "SIGABRT"),
        (RawSignal::BUS, "SIGBUS"),
        (RawSignal::FPE, "SIGFPE"),
        (RawSignal::KILL, "SIGKILL"),
        (RawSignal::USR1, "SIGUSR1"),
        (RawSignal::SEGV, "SIGSEGV"),
        (RawSignal::USR2, "SIGUSR2"),
        (RawSignal::PIPE, "SIGPIPE"),
        (RawSignal::ALARM, "SIGALRM"),
        (RawSignal::TERM, "SIGTERM"),
        (RawSignal::XCPU, "SIGXCPU"),
        (RawSignal::XFSZ, "SIGXFSZ"),
        (RawSignal::SYS, "SIGSYS"),
    ];
    NAMES
        .iter()
        .find(|(s, _)| s.as_raw() == sig)
        .map(|(_, name)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_success() {
        assert!(
            ExitInfo {
                code: Some(0),
                signal: None
            }
            .success()
        );
        assert!(
            !ExitInfo {
                code: None,
                signal: Some(15)
            }
            .success()
        );
        assert_eq!(
            ExitInfo {
                code: None,
                signal: Some(Signal::Term.number())
            }
            .to_string(),
            format!("killed by signal {} (SIGTERM)", Signal::Term.number())
        );
        assert_eq!(
            ExitInfo {
                code: None,
                signal: Some(200)
            }
            .to_string(),
            "killed by signal 200"
        );
    }
}
