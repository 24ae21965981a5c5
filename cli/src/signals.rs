//! SIGINT and SIGTERM for the long-running subcommands (`run`, `host`).

/// SIGINT and SIGTERM, watched from before the session starts so a signal
/// can never hit the default disposition (and kill us without a shutdown).
pub(crate) struct StopSignals {
    int: Option<tokio::signal::unix::Signal>,
    term: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    pub(crate) fn register() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        Self {
            int: signal(SignalKind::interrupt()).ok(),
            term: signal(SignalKind::terminate()).ok(),
        }
    }

    /// Resolves on the next of them (never, if neither could be watched).
    pub(crate) async fn recv(&mut self) -> StopSignal {
        let int = async {
            match &mut self.int {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        };
        let term = async {
            match &mut self.term {
                Some(s) => s.recv().await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = int => StopSignal::Interrupt,
            _ = term => StopSignal::Terminate,
        }
    }
}

/// Which stop signal arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StopSignal {
    Interrupt,
    Terminate,
}

impl StopSignal {
    /// The shell's convention: 128 + the signal's number.
    pub(crate) fn exit_code(self) -> u8 {
        match self {
            StopSignal::Interrupt => 130,
            StopSignal::Terminate => 143,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            StopSignal::Interrupt => "SIGINT",
            StopSignal::Terminate => "SIGTERM",
        }
    }
}
