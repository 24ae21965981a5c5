//! `Session::start`: open the channel, start the tree in order, initialize.

use std::sync::Arc;

use ractor::{Actor, ActorRef};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tracing::Instrument;

use crate::dispatch::request::{Payload, RequestIds, control_request};
use crate::error::{ControlError, StartError};
use crate::events::LifecycleEvent;
use crate::session::backpressure;
use crate::session::config::SessionConfig;
use crate::session::handle::{Handle, Session};
use crate::session::live_sessions;
use crate::session::record::SessionRecord;
use crate::session::status::StatusRx;
use crate::session::stream::FrameStream;
use crate::stderr::{DEFAULT_STDERR_LINE_BYTES, StderrRing};
use crate::supervisor::msg::SupervisorMsg;
use crate::supervisor::publish::StatusTx;
use crate::supervisor::shutdown::ladder::{ShutdownCause, ShutdownReport};
use crate::supervisor::{SessionSupervisor, SupervisorArgs};
use crate::transport::stdin_queue;

/// What [`Session::start`] returns.
pub type StartFuture = std::pin::Pin<
    Box<dyn std::future::Future<Output = Result<(Session, FrameStream), StartError>> + Send>,
>;

/// Shuts the tree down if `Session::start` is dropped half-way.
struct StartGuard(Option<ActorRef<SupervisorMsg>>);

impl Drop for StartGuard {
    fn drop(&mut self) {
        if let Some(sup) = self.0.take() {
            let _ = sup.cast(SupervisorMsg::Shutdown(ShutdownCause::StartAbandoned));
        }
    }
}

/// Waits for the session's report (`None`: the supervisor vanished).
async fn wait_report(mut status: StatusRx) -> Option<ShutdownReport> {
    let s = status.wait_for(|s| s.report().is_some()).await.ok()?;
    s.report().cloned()
}

fn tail_of(report: &Option<ShutdownReport>) -> String {
    report
        .as_ref()
        .map(|r| r.stderr_tail.join("\n"))
        .unwrap_or_default()
}

impl Session {
    /// Opens the channel, starts the tree in order, sends `initialize` once
    /// the reader runs, and waits for its reply (or the CLI's exit, or the
    /// timeout). On any failure everything is torn down (the process
    /// reaped) before the error is returned. Dropping this future half-way
    /// shuts down whatever was started, in the background.
    ///
    /// The future is boxed here: an `async fn`'s state machine is compiled
    /// again in every crate that awaits it, and this one holds the whole
    /// session tree's start-up (ractor's and tokio's code for five actors).
    pub fn start(config: SessionConfig) -> StartFuture {
        Box::pin(Self::start_tree(config))
    }

    async fn start_tree(config: SessionConfig) -> Result<(Session, FrameStream), StartError> {
        let init_timeout = config.effective_initialize_timeout();
        let mut init = config.initialize;
        match init.get("subtype") {
            None if init.is_object() => init["subtype"] = json!("initialize"),
            Some(Value::String(s)) if s == "initialize" => {}
            _ => {
                return Err(StartError::InvalidInitialize(
                    "expected an object with \"subtype\":\"initialize\"".into(),
                ));
            }
        }
        let conn = config.transport.connect().await?;
        let pid = conn.control.pid();
        let (frames, stream, budget) = backpressure::channel(config.max_buffered_bytes);
        let stdin = Arc::new(stdin_queue::channel(config.max_stdin_bytes));
        let ring = StderrRing::new(config.stderr_lines, DEFAULT_STDERR_LINE_BYTES);
        let shared = Arc::new(SessionRecord::new(
            config.label,
            pid,
            config.log_payloads,
            config.events,
            config.wire_tap,
        ));
        let (status_tx, status) = StatusTx::new(shared.id);
        live_sessions::register(&shared, status.clone());
        let request_ids = Arc::new(RequestIds::default());
        let (children_out, children_rx) = oneshot::channel();
        let args = SupervisorArgs {
            conn,
            shared: shared.clone(),
            status: Arc::new(status_tx),
            stdin: stdin.clone(),
            frames,
            budget: budget.clone(),
            stderr: ring.clone(),
            divert: config.divert,
            divert_room: config.divert_room,
            max_line_bytes: config.max_line_bytes,
            inbound: config.inbound,
            handler_timeout: config.handler_timeout,
            control_timeout: config.control_timeout,
            request_ids: request_ids.clone(),
            grace: config.grace,
            term_grace: config.term_grace,
            timeouts: config.shutdown_timeouts,
            watchdog: config.idle_watchdog,
            on_stderr: config.on_stderr,
            children_out,
        };
        let span = shared.span.clone();
        let control_timeout = config.control_timeout;
        let send_timeout = config.send_timeout;
        async move {
            let (supervisor, _) = Actor::spawn(None, SessionSupervisor, args)
                .await
                .map_err(|e| StartError::Spawn(Box::new(e)))?;
            let mut guard = StartGuard(Some(supervisor.clone()));
            // Sent by pre_start, which `spawn` awaited.
            let children = children_rx.await.map_err(|_| {
                StartError::Spawn("the supervisor did not start its children".into())
            })?;
            let init = control_request(
                &shared,
                &request_ids,
                &children.dispatch,
                Payload::Value(&init),
                init_timeout,
            );
            match init.await {
                Ok(info) => {
                    let _ = shared.server_info.set(info);
                    shared.lifecycle(LifecycleEvent::Initialized);
                    guard.0 = None;
                    let inner = Arc::new(Handle {
                        shared,
                        status,
                        stdin,
                        budget,
                        stderr: ring,
                        request_ids,
                        supervisor,
                        children,
                        control_timeout,
                        send_timeout,
                    });
                    Ok((Session { inner }, stream))
                }
                Err(e) => {
                    let cause = ShutdownCause::InitializeFailed {
                        reason: e.to_string(),
                    };
                    let _ = supervisor.cast(SupervisorMsg::Shutdown(cause));
                    let report = wait_report(status).await;
                    guard.0 = None;
                    Err(match e {
                        ControlError::Timeout { after, .. } => StartError::InitializeTimeout {
                            after,
                            stderr_tail: tail_of(&report),
                        },
                        ControlError::Remote { message } => {
                            StartError::InitializeRejected { message }
                        }
                        ControlError::InvalidRequest(m) => StartError::InvalidInitialize(m),
                        _ => StartError::ExitedBeforeInitialize {
                            exit: report.as_ref().and_then(|r| r.exit),
                            stderr_tail: tail_of(&report),
                        },
                    })
                }
            }
        }
        .instrument(span)
        .await
    }
}
