//! Diagnostics forwarding: to the user's observer
//! ([`ClientBuilder::on_diagnostic`](crate::ClientBuilder::on_diagnostic))
//! and, as skipped lines, to the transcript; from before the first frame on.

use std::sync::{Arc, Mutex};

use claude_agent_actors::{Diagnostic, SessionConfig, SessionEvent};
use tokio::sync::broadcast;

use super::transcript::TranscriptExtension;
use super::{Extension, Started, lock};
use crate::Result;
use crate::transcript::TranscriptRecorder;

/// A diagnostics observer.
pub(crate) type OnDiagnostic = Arc<dyn Fn(&Diagnostic) + Send + Sync>;

/// Hands one session's diagnostics to the transcript, then the observer,
/// on one task: an observer that saw a skipped line finds it in the
/// transcript.
pub(crate) struct DiagnosticsExtension {
    observer: Option<OnDiagnostic>,
    transcript: Option<Arc<TranscriptExtension>>,
    /// Subscribed before the start: early diagnostics count too.
    events: Mutex<Option<broadcast::Receiver<SessionEvent>>>,
}

impl DiagnosticsExtension {
    pub(crate) fn new(
        observer: Option<OnDiagnostic>,
        transcript: Option<Arc<TranscriptExtension>>,
    ) -> Self {
        Self {
            observer,
            transcript,
            events: Mutex::new(None),
        }
    }
}

impl Extension for DiagnosticsExtension {
    fn name(&self) -> &str {
        "diagnostics"
    }

    fn configure(&self, mut config: SessionConfig) -> Result<SessionConfig> {
        *lock(&self.events) = Some(config.subscribe_events());
        Ok(config)
    }

    async fn post_start(&self, _started: &Started<'_>) -> Result<()> {
        if let Some(events) = lock(&self.events).take() {
            let transcript = self.transcript.as_ref().and_then(|t| t.recorder());
            forward_diagnostics(events, self.observer.clone(), transcript);
        }
        Ok(())
    }
}

/// Hands the session's diagnostics to the observer and the transcript until
/// the session's event channel closes (its end). Also used by the host to
/// give a warm spare the diagnostics observer of the session it serves.
pub(crate) fn forward_diagnostics(
    mut events: broadcast::Receiver<SessionEvent>,
    observer: Option<OnDiagnostic>,
    transcript: Option<TranscriptRecorder>,
) {
    use tokio::sync::broadcast::error::RecvError;
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(SessionEvent::Diagnostic(d)) => {
                    if let (Some(t), Some(line)) = (
                        &transcript,
                        crate::transcript::SkippedLine::from_diagnostic(&d),
                    ) {
                        t.record_skipped(line);
                    }
                    if let Some(f) = &observer {
                        f(&d);
                    }
                }
                Ok(_) => {}
                Err(RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "diagnostics observer fell behind");
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
}
