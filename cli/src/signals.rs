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

    /// Resolves on the first of them (never, if neither could be watched).
    pub(crate) async fn recv(&mut self) {
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
            _ = int => {}
            _ = term => {}
        }
    }
}
