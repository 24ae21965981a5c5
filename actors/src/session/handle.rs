//! `Session`: the handle a host holds. Starting is in `start.rs`.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use ractor::ActorRef;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::sync::{broadcast, oneshot};

use crate::dispatch::request::{Payload, RequestIds, control_request};
use crate::error::{ControlError, SessionError};
use crate::events::{SessionEvent, SessionStats};
use crate::reader::envelope::{self, Envelope};
use crate::session::budget::Budget;
use crate::session::record::SessionRecord;
use crate::session::status::StatusRx;
use crate::stderr::StderrRing;
use crate::supervisor::children::Children;
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::shutdown::ladder::{
    Escalation, ShutdownCause, ShutdownReport, ShutdownTimings,
};
use crate::transport::msg::TransportMsg;
use crate::transport::stdin_queue::{Closed, Lane, StdinTx};

static NULL: Value = Value::Null;

/// A running session. Cheap to clone; when the last clone is dropped the
/// session shuts down in the background (same ordered path as
/// [`Session::shutdown`]).
#[derive(Clone, Debug)]
pub struct Session {
    pub(crate) inner: Arc<Handle>,
}

/// What a handle holds: channel ends and actor refs, never an actor's state.
#[derive(Debug)]
pub(crate) struct Handle {
    pub(crate) shared: Arc<SessionRecord>,
    /// The supervisor's published phase and, at the end, the report.
    pub(crate) status: StatusRx,
    /// The user lane of the stdin queue (and its fill, for `stats`).
    pub(crate) stdin: Arc<StdinTx>,
    /// The consumer queue's fill, for `stats`.
    pub(crate) budget: Arc<Budget>,
    pub(crate) stderr: StderrRing,
    pub(crate) request_ids: Arc<RequestIds>,
    pub(crate) supervisor: ActorRef<SupervisorMsg>,
    pub(crate) children: Children,
    pub(crate) control_timeout: Duration,
    pub(crate) send_timeout: Duration,
}

impl std::fmt::Debug for Children {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Children").finish_non_exhaustive()
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        if self.status.borrow().report().is_none() {
            let _ = self
                .supervisor
                .cast(SupervisorMsg::Shutdown(ShutdownCause::HandleDropped));
        }
    }
}

impl Session {
    fn shared(&self) -> &SessionRecord {
        &self.inner.shared
    }

    /// The CLI's pid (a local subprocess only).
    pub fn pid(&self) -> Option<u32> {
        self.shared().pid
    }

    /// The CLI's reply to `initialize`.
    pub fn server_info(&self) -> &Value {
        self.shared().server_info.get().unwrap_or(&NULL)
    }

    /// The CLI's session id, once its first `system/init` frame arrived.
    pub fn session_id(&self) -> Option<String> {
        self.shared().session_id.get().cloned()
    }

    /// Writes one frame to the CLI's stdin; a `type:"user"` frame opens a turn.
    /// Resolves once the line is written. A CLI not reading stdin makes this
    /// wait, at most `send_timeout`, then fail with
    /// [`SessionError::StdinStalled`]; dropping the future or shutting down
    /// ends the wait too. The queue holds at most `max_stdin_bytes`.
    pub async fn send(&self, frame: &Value) -> Result<(), SessionError> {
        let is_user = frame.get("type").and_then(Value::as_str) == Some("user");
        let mut line =
            serde_json::to_vec(frame).map_err(|e| SessionError::InvalidFrame(e.to_string()))?;
        line.push(b'\n');
        self.write_line(Bytes::from(line), is_user).await
    }

    /// Writes one `user` frame the caller encoded itself: one line of JSON
    /// with a trailing newline and no interior one. Not re-scanned; opens a
    /// turn. Otherwise as [`Session::send`].
    pub async fn send_user_line(&self, line: Bytes) -> Result<(), SessionError> {
        if !line.ends_with(b"\n") {
            return Err(SessionError::InvalidFrame(
                "a user line must end with a newline".into(),
            ));
        }
        self.write_line(line, true).await
    }

    /// Writes one raw NDJSON line (a trailing newline is added if missing).
    pub async fn send_raw(&self, line: Bytes) -> Result<(), SessionError> {
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if memchr::memchr(b'\n', body).is_some() {
            return Err(SessionError::InvalidFrame(
                "contains an interior newline".into(),
            ));
        }
        let is_user =
            matches!(envelope::peek(body), Ok(Envelope::Message { kind, .. }) if kind == "user");
        let line = if line.ends_with(b"\n") {
            line
        } else {
            let mut v = Vec::with_capacity(line.len() + 1);
            v.extend_from_slice(&line);
            v.push(b'\n');
            Bytes::from(v)
        };
        self.write_line(line, is_user).await
    }

    async fn write_line(&self, line: Bytes, is_user: bool) -> Result<(), SessionError> {
        let shared = self.shared();
        if self.is_closed() {
            return Err(SessionError::ShuttingDown);
        }
        if is_user {
            shared.turn_started();
            shared.touch();
        }
        if shared.log_payloads {
            tracing::debug!(parent: &shared.span, line = %String::from_utf8_lossy(&line), "send");
        } else {
            tracing::trace!(parent: &shared.span, bytes = line.len(), user = is_user, "send");
        }
        let after = self.inner.send_timeout;
        let deadline = tokio::time::Instant::now() + after;
        let (tx, rx) = oneshot::channel();
        let queued = tokio::time::timeout_at(
            deadline,
            self.inner.stdin.push(shared, Lane::User, line, Some(tx)),
        )
        .await;
        let stalled = |queued| SessionError::StdinStalled { after, queued };
        match queued {
            Ok(Ok(())) => {}
            Ok(Err(Closed)) | Err(_) => {
                if is_user {
                    // Nothing was sent: the turn did not start.
                    shared.turn_ended();
                }
                return Err(match queued {
                    Err(_) => stalled(false),
                    _ => SessionError::ShuttingDown,
                });
            }
        }
        match tokio::time::timeout_at(deadline, rx).await {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(e))) => Err(SessionError::Write(e)),
            Ok(Err(_)) => Err(SessionError::ShuttingDown),
            Err(_) => Err(stalled(true)),
        }
    }

    /// Sends a control request (an object with a `subtype`) and waits for
    /// its reply, paired by id. `timeout` overrides `control_timeout`.
    pub async fn request(
        &self,
        request: Value,
        timeout: Option<Duration>,
    ) -> Result<Value, ControlError> {
        self.request_payload(Payload::Value(&request), timeout)
            .await
    }

    /// [`request`](Self::request) with the request already written as JSON
    /// text (an object with a `subtype`), which goes on the wire as it is.
    pub async fn request_json(
        &self,
        request: &RawValue,
        timeout: Option<Duration>,
    ) -> Result<Value, ControlError> {
        self.request_payload(Payload::Json(request), timeout).await
    }

    async fn request_payload(
        &self,
        request: Payload<'_>,
        timeout: Option<Duration>,
    ) -> Result<Value, ControlError> {
        let t = timeout.unwrap_or(self.inner.control_timeout);
        if self.is_closed() {
            return Err(ControlError::ShuttingDown);
        }
        control_request(
            &self.inner.shared,
            &self.inner.request_ids,
            &self.inner.children.dispatch,
            request,
            t,
        )
        .await
    }

    /// Lifecycle and diagnostic events from now on.
    pub fn subscribe_events(&self) -> broadcast::Receiver<SessionEvent> {
        self.shared().subscribe()
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> SessionStats {
        let inner = &self.inner;
        (inner.shared.counters).snapshot(inner.budget.buffered(), inner.stdin.queued_bytes())
    }

    /// The last lines of the CLI's stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.inner.stderr.tail()
    }

    /// True while a `user` frame sent has no `result` read yet (a turn is
    /// running). A host asks before hibernating an idle session.
    pub fn turn_open(&self) -> bool {
        self.shared().turn_open()
    }

    /// Time since the last line read from the CLI or `user` frame sent:
    /// the clock the idle watchdog and a host's hibernation go by.
    pub fn idle_for(&self) -> Duration {
        let shared = self.shared();
        let last = Duration::from_millis(shared.last_activity_ms());
        shared.started.elapsed().saturating_sub(last)
    }

    /// True once shutdown has begun (nothing new is admitted).
    pub fn is_closed(&self) -> bool {
        !self.inner.status.borrow().is_running()
    }

    /// The report, if the session has already ended.
    pub fn report(&self) -> Option<ShutdownReport> {
        self.inner.status.borrow().report().cloned()
    }

    /// Closes the CLI's stdin (EOF) and nothing else: the session goes on
    /// reading, and ends when the CLI exits on its own. A one-shot run does
    /// this once nothing more can need stdin: the CLI then finishes its
    /// background work (a background agent's follow-up turn) and exits, with
    /// no grace period running against it. Sends after this fail with
    /// [`SessionError::ShuttingDown`](crate::SessionError::ShuttingDown) or
    /// a write error. Idempotent.
    pub fn end_input(&self) {
        let _ = self.inner.children.transport.cast(TransportMsg::CloseStdin);
    }

    /// Ordered shutdown. Idempotent: every caller, concurrent or later,
    /// gets the same report, and escalation happens at most once.
    pub async fn shutdown(&self) -> ShutdownReport {
        self.shutdown_with(ShutdownCause::Requested).await
    }

    /// [`Session::shutdown`] with a cause of the caller's choosing (e.g.
    /// `HostDrain`). Ignored if a shutdown already began.
    pub async fn shutdown_with(&self, cause: ShutdownCause) -> ShutdownReport {
        if let Some(r) = self.report() {
            return r;
        }
        let _ = self.inner.supervisor.cast(SupervisorMsg::Shutdown(cause));
        self.closed().await
    }

    /// Ends the CLI now: the ordered shutdown (begun with `cause` if none
    /// began) skips its graces and sends SIGKILL to the process group (abort
    /// for a channel without signals), then completes around the dead
    /// process. The kill is a step of the shutdown's own ladder, so the
    /// report's `steps` and `escalation` and the `Escalated` event say so
    /// ([`StepReason::KillRequested`](crate::StepReason::KillRequested)).
    /// For deadlines: a host's drain kills what is left when its deadline
    /// passes.
    pub fn kill(&self, cause: ShutdownCause) {
        let _ = self.inner.supervisor.cast(SupervisorMsg::Kill(cause));
    }

    /// Cuts the shutdown's current wait short: during `grace`, SIGTERM goes
    /// to the group now; during `term_grace`, SIGKILL. Starts the ordered
    /// shutdown (cause `Requested`) if none began; a hurry that arrives
    /// before the ladder runs applies to its first wait. Meant for a second
    /// Ctrl-C: the first starts the shutdown, the second sends SIGTERM, the
    /// third SIGKILL. Each step is in the report
    /// ([`StepReason::Hurried`](crate::StepReason::Hurried)).
    pub fn hurry(&self) {
        let _ = self.inner.supervisor.cast(SupervisorMsg::Hurry);
    }

    /// Waits until the session ended, for any reason.
    pub async fn closed(&self) -> ShutdownReport {
        let mut status = self.inner.status.clone();
        let report = match status.wait_for(|s| s.report().is_some()).await {
            Ok(s) => s.report().cloned(),
            Err(_) => None,
        };
        match report {
            Some(r) => r,
            // The supervisor publishes a report even when it is killed (its
            // state's Drop); never hang regardless.
            None => ShutdownReport {
                cause: ShutdownCause::Fatal {
                    reason: "the session's report was lost".into(),
                },
                exit: None,
                escalation: Escalation::None,
                steps: Vec::new(),
                timings: ShutdownTimings::default(),
                frames_after_eof: 0,
                handlers_cancelled: 0,
                requests_failed: 0,
                stderr_tail: self.stderr_tail(),
            },
        }
    }
}
