//! Many sessions under one supervisor: per-tenant quotas, fair admission,
//! crash isolation, restarts with `--resume`, drain with a deadline, metrics.
//!
//! Each hosted session is its own actor tree (as any [`Client`](crate::client::Client)),
//! watched by its own supervision task. The host's decisions (admission,
//! warm spares, hibernation, drain, restarts, counters) are a sans-IO core,
//! `core/`: plain data and one function from an input to its effects,
//! owned and applied by the host's supervisor actor (`supervisor.rs`).
//! One session's crash or panic ends only that session (and restarts it,
//! if the policy says so).
//!
//! ```no_run
//! use std::time::Duration;
//! use claude_agent::host::{DrainOptions, Host, HostConfig, RestartPolicy};
//! use claude_agent::{client::ClientBuilder, options::Options};
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let host = Host::start(
//!     HostConfig::new()
//!         .max_sessions(200)
//!         .max_per_tenant(20)
//!         .restart(RestartPolicy::on_crash(3, Duration::from_secs(60))),
//! )
//! .await?;
//! // A job: one prompt to its result, then an ordered shutdown.
//! let job = host
//!     .submit("acme", ClientBuilder::new(Options::new()), "Summarise README.md")
//!     .await?;
//! let outcome = job.outcome().await;
//! println!("{:?} in {:?}", outcome.failure, outcome.turn_latency);
//! // An interactive session the caller drives.
//! let session = host.spawn("acme", ClientBuilder::new(Options::new())).await?;
//! let client = session.client().await?;
//! client.send("Hello").await?;
//! // Shutting down: everything ends within 30 s.
//! let report = host.drain(DrainOptions::new(Duration::from_secs(30)).interrupt(true)).await;
//! println!("{} sessions drained", report.running);
//! # Ok(()) }
//! ```

mod config;
mod core;
mod drain;
mod error;
mod events;
mod gate;
mod handle;
mod hibernate;
mod lifecycle;
mod metrics;
mod msg;
mod outcome;
mod spares;
mod status;
mod supervisor;
mod work;

use std::sync::Arc;
use std::time::Duration;

use ractor::{Actor, ActorRef};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

pub use config::{Backoff, HostConfig, RestartPolicy};
pub use drain::{
    DEFAULT_INTERRUPT_TIMEOUT, DEFAULT_KILLED_REPORT_TIMEOUT, DrainOptions, DrainReport,
};
pub use error::HostError;
pub use events::HostEvent;
pub use handle::SessionHandle;
pub use metrics::{HostMetrics, TenantMetrics};
pub use outcome::{Failure, SessionId, SessionOutcome};
pub use status::SessionStatus;

use msg::HostMsg;
use supervisor::{HostActor, HostArgs};
use work::Work;

use crate::{client::ClientBuilder, client::Prompt};

/// Bound on one call to the host's supervisor. Fixed, not configurable:
/// the supervisor only does bookkeeping over its sans-IO core and never
/// awaits a session, so it answers in microseconds; the bound only keeps
/// a caller from hanging on a supervisor that is wedged or gone (a bug),
/// which a longer or shorter value would not fix.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// A supervisor of many sessions. Cheap to clone; when the last clone is
/// dropped, every session gets an ordered shutdown in the background (call
/// [`Host::drain`] to wait for it, with a deadline).
#[derive(Debug, Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    actor: ActorRef<HostMsg>,
    draining: CancellationToken,
    events: broadcast::Sender<HostEvent>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.draining.cancel();
        self.actor.stop(None);
    }
}

impl Host {
    /// Starts the host's supervisor.
    pub async fn start(config: HostConfig) -> Result<Self, HostError> {
        let (events, _) = broadcast::channel(config.event_capacity);
        let draining = CancellationToken::new();
        let args = HostArgs {
            config,
            draining: draining.clone(),
            events: events.clone(),
        };
        let (actor, _) = Actor::spawn(None, HostActor, args)
            .await
            .map_err(|e| HostError::Start(e.to_string()))?;
        Ok(Self {
            inner: Arc::new(Inner {
                actor,
                draining,
                events,
            }),
        })
    }

    /// Queues a job for `tenant`: when admitted, start a session from
    /// `builder`, run `prompt` to its result, then shut down (ordered). A
    /// crash restarts it (policy permitting) with `--resume` and the
    /// prompt sent again. [`SessionHandle::outcome`] says how it went.
    pub async fn submit(
        &self,
        tenant: impl Into<String>,
        builder: ClientBuilder,
        prompt: impl Into<Prompt>,
    ) -> Result<SessionHandle, HostError> {
        self.enqueue(tenant.into(), builder, Work::Job(prompt.into()))
            .await
    }

    /// Queues an interactive session for `tenant`: when admitted it starts,
    /// and [`SessionHandle::client`] hands out the connection. It ends when
    /// the client is shut down, the CLI ends, or the host drains.
    pub async fn spawn(
        &self,
        tenant: impl Into<String>,
        builder: ClientBuilder,
    ) -> Result<SessionHandle, HostError> {
        self.enqueue(tenant.into(), builder, Work::Interactive)
            .await
    }

    async fn enqueue(
        &self,
        tenant: String,
        builder: ClientBuilder,
        work: Work,
    ) -> Result<SessionHandle, HostError> {
        if self.inner.draining.is_cancelled() {
            return Err(HostError::Draining);
        }
        let mut builder = Box::new(builder);
        if builder.runtime.label.is_none() {
            builder.runtime.label = Some(tenant.clone());
        }
        if builder.runtime.tenant.is_none() {
            builder.runtime.tenant = Some(tenant.clone());
        }
        self.call(|reply| HostMsg::Submit {
            tenant,
            builder,
            work,
            reply,
        })
        .await?
    }

    /// A queued or running session, by id.
    pub async fn get(&self, id: SessionId) -> Option<SessionHandle> {
        self.call(|reply| HostMsg::Get(id, reply))
            .await
            .ok()
            .flatten()
    }

    /// Every queued or running session, by id.
    pub async fn sessions(&self) -> Result<Vec<SessionHandle>, HostError> {
        self.call(HostMsg::List).await
    }

    /// The host's counters now.
    pub async fn metrics(&self) -> Result<HostMetrics, HostError> {
        self.call(HostMsg::Metrics).await
    }

    /// Lifecycle events of every session, from now on.
    pub fn events(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.events.subscribe()
    }

    /// Stops admitting (later `submit`/`spawn` fail with
    /// [`HostError::Draining`]), ends queued sessions, optionally interrupts
    /// running turns, shuts every running session down in parallel and
    /// kills and hurries ([`Client::hurry`](crate::client::Client::hurry)) what is
    /// left at the deadline; hibernated sessions just end (no CLI to
    /// stop). Restarts stop. Idempotent: a second drain finds nothing left
    /// to do.
    ///
    /// The drain returns within the deadline plus a bound of a few seconds
    /// for killed sessions to report, whatever their session store does
    /// (a stalled store's pending entries count as `mirror_unpersisted`);
    /// a session that still has not reported is counted in
    /// [`DrainReport::unresolved`].
    pub async fn drain(&self, opts: DrainOptions) -> DrainReport {
        let start = self.call(HostMsg::Drain).await.unwrap_or_default();
        let _ = self.inner.events.send(HostEvent::Draining {
            running: start.running.len(),
            cancelled_queued: start.cancelled,
        });
        let draining = self.inner.draining.clone();
        let report = drain::drain_running(start, opts, move || draining.cancel()).await;
        let _ = self
            .inner
            .events
            .send(HostEvent::Drained(Box::new(report.clone())));
        report
    }

    async fn call<T: Send + 'static>(
        &self,
        msg: impl FnOnce(ractor::RpcReplyPort<T>) -> HostMsg,
    ) -> Result<T, HostError> {
        match self.inner.actor.call(msg, Some(CALL_TIMEOUT)).await {
            Ok(ractor::rpc::CallResult::Success(v)) => Ok(v),
            Ok(ractor::rpc::CallResult::Timeout) => Err(HostError::Unavailable(format!(
                "no answer within {CALL_TIMEOUT:?}"
            ))),
            Ok(ractor::rpc::CallResult::SenderError) | Err(_) => Err(HostError::Gone),
        }
    }
}
