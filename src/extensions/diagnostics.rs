//! Diagnostics forwarding: to the user's observer
//! ([`ClientBuilder::on_diagnostic`](crate::client::ClientBuilder::on_diagnostic))
//! and, as skipped lines, to the transcript; from before the first frame on.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use claude_agent_actors::{Diagnostic, SessionConfig, SessionEvent};
use tokio::sync::{broadcast, oneshot};

use super::transcript::TranscriptExtension;
use super::{Extension, Started, Stopped, lock};
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
    /// The running forwarder, drained when the session ends.
    forwarder: Mutex<Option<Forwarder>>,
}

/// Bound on handing on the diagnostics still queued when a session ends.
/// Fixed, not configurable: handing on is in-process (the transcript and
/// the user's `on_diagnostic` observer, which must not block, as any
/// callback must not), so it ends at once; the bound only keeps an
/// observer that blocks anyway from holding the session's end. The
/// diagnostics themselves are not lost to it: the events and the counters
/// have them.
const DRAIN_BOUND: Duration = Duration::from_secs(2);

impl DiagnosticsExtension {
    pub(crate) fn new(
        observer: Option<OnDiagnostic>,
        transcript: Option<Arc<TranscriptExtension>>,
    ) -> Self {
        Self {
            observer,
            transcript,
            events: Mutex::new(None),
            forwarder: Mutex::new(None),
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
            let forwarder = forward_diagnostics(events, self.observer.clone(), transcript);
            *lock(&self.forwarder) = Some(forwarder);
        }
        Ok(())
    }

    /// Every diagnostic of the session was emitted before its end: the
    /// observer has seen them all by the time the SDK's report is out (a
    /// count kept by the observer is then complete).
    async fn post_stop(&self, _stopped: &mut Stopped<'_>) {
        let forwarder = lock(&self.forwarder).take();
        if let Some(f) = forwarder {
            f.drain(DRAIN_BOUND).await;
        }
    }
}

/// A running diagnostics forwarder.
pub(crate) struct Forwarder {
    flush: oneshot::Sender<oneshot::Sender<()>>,
}

impl Forwarder {
    /// Waits (at most `bound`) until every diagnostic already emitted was
    /// handed on; the forwarder ends then.
    pub(crate) async fn drain(self, bound: Duration) {
        let (done, handed_on) = oneshot::channel();
        if self.flush.send(done).is_ok() {
            let _ = tokio::time::timeout(bound, handed_on).await;
        }
    }
}

/// Hands the session's diagnostics to the observer and the transcript until
/// the session's event channel closes, or until the returned forwarder is
/// drained (dropping it keeps the forwarding going). Also used by the host
/// to give a warm spare the diagnostics observer of the session it serves.
pub(crate) fn forward_diagnostics(
    mut events: broadcast::Receiver<SessionEvent>,
    observer: Option<OnDiagnostic>,
    transcript: Option<TranscriptRecorder>,
) -> Forwarder {
    use tokio::sync::broadcast::error::{RecvError, TryRecvError};
    // Always `None` without the feature (the recorder has no values).
    #[cfg(not(feature = "transcript"))]
    let _ = transcript;
    let (flush, mut flush_rx) = oneshot::channel::<oneshot::Sender<()>>();
    let hand_on = move |event: SessionEvent| {
        if let SessionEvent::Diagnostic(d) = event {
            #[cfg(feature = "transcript")]
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
    };
    crate::task::spawn(async move {
        let mut flush_open = true;
        loop {
            tokio::select! {
                biased;
                event = events.recv() => match event {
                    Ok(event) => hand_on(event),
                    Err(RecvError::Lagged(n)) => {
                        tracing::warn!(missed = n, "diagnostics observer fell behind");
                    }
                    Err(RecvError::Closed) => return,
                },
                asked = &mut flush_rx, if flush_open => match asked {
                    Ok(done) => {
                        loop {
                            match events.try_recv() {
                                Ok(event) => hand_on(event),
                                Err(TryRecvError::Lagged(n)) => {
                                    tracing::warn!(missed = n, "diagnostics observer fell behind");
                                }
                                Err(_) => break,
                            }
                        }
                        let _ = done.send(());
                        return;
                    }
                    // Nobody will ask: forward until the channel closes.
                    Err(_) => flush_open = false,
                },
            }
        }
    });
    Forwarder { flush }
}
