//! How a [`Host`](super::Host) admits, limits and restarts sessions.

use std::collections::HashMap;
use std::time::Duration;

use crate::client::ClientBuilder;
use crate::telemetry::Telemetry;

/// Limits and policies of a [`Host`](super::Host).
///
/// ```
/// use std::time::Duration;
/// use claude_agent::host::{HostConfig, RestartPolicy};
///
/// let config = HostConfig::new()
///     .max_sessions(500)
///     .max_per_tenant(20)
///     .tenant_limit("batch", 5)
///     .restart(RestartPolicy::on_crash(3, Duration::from_secs(60)));
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct HostConfig {
    pub(crate) max_sessions: usize,
    pub(crate) max_per_tenant: usize,
    pub(crate) tenant_limits: HashMap<String, usize>,
    pub(crate) max_queued: usize,
    pub(crate) max_queued_per_tenant: usize,
    pub(crate) restart: RestartPolicy,
    pub(crate) event_capacity: usize,
    pub(crate) telemetry: Telemetry,
    pub(crate) hibernate_after: Option<Duration>,
    pub(crate) warm_spares: Option<(usize, Box<ClientBuilder>)>,
}

impl Default for HostConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl HostConfig {
    /// 100 concurrent sessions in all, 10 per tenant, 10,000 queued in
    /// all (1,000 per tenant), no restarts.
    pub fn new() -> Self {
        Self {
            max_sessions: 100,
            max_per_tenant: 10,
            tenant_limits: HashMap::new(),
            max_queued: 10_000,
            max_queued_per_tenant: 1_000,
            restart: RestartPolicy::Never,
            event_capacity: 1024,
            telemetry: Telemetry::disabled(),
            hibernate_after: None,
            warm_spares: None,
        }
    }

    /// Sessions running at once, all tenants together (at least 1).
    pub fn max_sessions(mut self, n: usize) -> Self {
        self.max_sessions = n.max(1);
        self
    }

    /// Sessions running at once for any one tenant (at least 1).
    pub fn max_per_tenant(mut self, n: usize) -> Self {
        self.max_per_tenant = n.max(1);
        self
    }

    /// A tenant's own concurrent-session limit, instead of
    /// [`HostConfig::max_per_tenant`] (at least 1).
    pub fn tenant_limit(mut self, tenant: impl Into<String>, n: usize) -> Self {
        self.tenant_limits.insert(tenant.into(), n.max(1));
        self
    }

    /// Sessions waiting for admission, all tenants together; beyond it
    /// `submit`/`spawn` fail with [`HostError::QueueFull`](super::HostError::QueueFull).
    pub fn max_queued(mut self, n: usize) -> Self {
        self.max_queued = n;
        self
    }

    /// Sessions waiting for admission for any one tenant.
    pub fn max_queued_per_tenant(mut self, n: usize) -> Self {
        self.max_queued_per_tenant = n;
        self
    }

    /// What happens when a session's CLI crashes.
    pub fn restart(mut self, policy: RestartPolicy) -> Self {
        self.restart = policy;
        self
    }

    /// Capacity of the [`HostEvent`](super::HostEvent) broadcast; a
    /// receiver that falls further behind skips events (and is told so).
    pub fn event_capacity(mut self, n: usize) -> Self {
        self.event_capacity = n.max(1);
        self
    }

    /// Where the host's metrics (restarts, admission wait, queue depth) go;
    /// sessions whose builder has no telemetry of its own get this one,
    /// with their tenant as the `tenant` attribute. Needs the `telemetry`
    /// feature.
    #[cfg(feature = "telemetry")]
    pub fn telemetry(mut self, telemetry: Telemetry) -> Self {
        self.telemetry = telemetry;
        self
    }

    /// Hibernate an interactive session ([`Host::spawn`](super::Host::spawn))
    /// idle for `after`: no turn running, no control request of ours
    /// waiting, no callback of the CLI's being answered, no send through
    /// its handle, nothing read or written for `after`. Its CLI gets the
    /// ordered shutdown and its slot is freed; its
    /// [`SessionHandle`](super::SessionHandle) stays valid, and the next
    /// [`send`](super::SessionHandle::send) or
    /// [`client`](super::SessionHandle::client) starts the CLI again,
    /// through admission, with `--resume` of its session id (from the local
    /// session files, or the builder's session store, which the start
    /// restores from). A session whose CLI has not reported a session id
    /// yet (no turn ran) is not hibernated: there would be nothing to
    /// resume. Jobs ([`Host::submit`](super::Host::submit)) never hibernate.
    pub fn hibernate_after(mut self, after: Duration) -> Self {
        self.hibernate_after = Some(after);
        self
    }

    /// Keep `k` CLIs started from `template` and initialised ahead of
    /// demand; the next admitted session whose builder *matches* the
    /// template gets one instead of starting a CLI, and the pool is
    /// refilled. Match: neither builder wires anything in at connect (no
    /// callbacks, in-process MCP servers, session store, transcript, frame
    /// recording, stderr observer, spawner or transport), and both compute
    /// the same CLI command (program, argv, environment, working
    /// directory), `initialize` request, OS user and runtime settings;
    /// tenant and label are not compared. A session's diagnostics observer
    /// ([`ClientBuilder::on_diagnostic`]) does not prevent a match: the
    /// spare feeds it from the hand-out on. A template that wires
    /// something in (a diagnostics observer included) keeps no spares.
    ///
    /// Spares count against [`max_sessions`](Self::max_sessions) (the pool
    /// refills only into free slots); when they hold the last slots, a
    /// session they cannot serve takes the slot of one, which is shut down
    /// first. A drain shuts them down in order and counts them in its
    /// report.
    pub fn warm_spares(mut self, k: usize, template: ClientBuilder) -> Self {
        self.warm_spares = (k > 0).then(|| (k, Box::new(template)));
        self
    }
}

/// Whether and how a crashed session is started again.
///
/// A crash is the CLI ending on its own with a signal or a non-zero status,
/// closing its output, or an internal fault, without a shutdown having been
/// asked for. The new CLI gets `--resume <session id>` of the crashed one
/// (when the crashed one reported its id), so the conversation continues.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RestartPolicy {
    /// A crash ends the session.
    Never,
    /// Restart after a crash, at most `max_restarts` times within any
    /// `window`, waiting `backoff` before each attempt.
    OnCrash {
        /// Restarts allowed within `window`.
        max_restarts: u32,
        /// The sliding window the restarts are counted in.
        window: Duration,
        /// The wait before each restart.
        backoff: Backoff,
    },
}

impl RestartPolicy {
    /// Restart on crash, at most `max_restarts` times within `window`, with
    /// the default [`Backoff`].
    pub fn on_crash(max_restarts: u32, window: Duration) -> Self {
        Self::OnCrash {
            max_restarts,
            window,
            backoff: Backoff::default(),
        }
    }

    /// The same policy with another backoff (no effect on `Never`).
    #[must_use]
    pub fn with_backoff(self, backoff: Backoff) -> Self {
        match self {
            Self::Never => Self::Never,
            Self::OnCrash {
                max_restarts,
                window,
                ..
            } => Self::OnCrash {
                max_restarts,
                window,
                backoff,
            },
        }
    }
}

/// Exponential backoff between restarts: `initial`, then times `factor`
/// per consecutive restart, capped at `max`; with `jitter`, each wait is
/// drawn from its upper half, so that sessions that crashed together do
/// not all restart at the same instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Backoff {
    /// Wait before the first restart.
    pub initial: Duration,
    /// The cap.
    pub max: Duration,
    /// Growth per consecutive restart (at least 1).
    pub factor: u32,
    /// Wait a random time between half the computed wait and all of it.
    pub jitter: bool,
}

impl Default for Backoff {
    /// 100 ms, doubling, at most 10 s, with jitter.
    fn default() -> Self {
        Self::exponential(Duration::from_millis(100), Duration::from_secs(10), 2)
    }
}

impl Backoff {
    /// `initial`, then times `factor` per consecutive restart, capped at
    /// `max`, with jitter.
    pub fn exponential(initial: Duration, max: Duration, factor: u32) -> Self {
        Self {
            initial,
            max,
            factor,
            jitter: true,
        }
    }

    /// A fixed wait, without jitter.
    pub fn fixed(wait: Duration) -> Self {
        Self {
            initial: wait,
            max: wait,
            factor: 1,
            jitter: false,
        }
    }

    /// The same backoff with jitter on or off.
    pub fn with_jitter(mut self, jitter: bool) -> Self {
        self.jitter = jitter;
        self
    }

    /// The wait before restart number `attempt` (1-based), before jitter.
    pub fn delay(&self, attempt: u32) -> Duration {
        let mut d = self.initial;
        for _ in 1..attempt {
            d = d.saturating_mul(self.factor.max(1));
            if d >= self.max {
                return self.max;
            }
        }
        d.min(self.max)
    }

    /// `delay` as actually waited: with jitter, `delay / 2 + u * delay / 2`
    /// for `u` in `[0, 1)` (`unit`, clamped). The host draws `u` at
    /// random; its core stays deterministic.
    pub fn jittered(&self, delay: Duration, unit: f64) -> Duration {
        if !self.jitter {
            return delay;
        }
        let half = delay / 2;
        half + half.mul_f64(unit.clamp(0.0, 1.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_keeps_each_wait_in_the_upper_half_and_fixed_waits_exact() {
        let b = Backoff::default();
        let d = Duration::from_millis(800);
        assert_eq!(b.jittered(d, 0.0), Duration::from_millis(400));
        assert_eq!(b.jittered(d, 1.0), d);
        for _ in 0..100 {
            let w = b.jittered(d, crate::random::unit());
            assert!(w >= Duration::from_millis(400) && w <= d, "{w:?}");
        }
        let fixed = Backoff::fixed(Duration::from_millis(7));
        assert_eq!(
            fixed.jittered(fixed.delay(3), 0.0),
            Duration::from_millis(7)
        );
        assert!(!Backoff::default().with_jitter(false).jitter);
    }

    #[test]
    fn backoff_grows_and_caps() {
        let b = Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(350),
            factor: 2,
            jitter: true,
        };
        assert_eq!(b.delay(1), Duration::from_millis(100));
        assert_eq!(b.delay(2), Duration::from_millis(200));
        assert_eq!(b.delay(3), Duration::from_millis(350));
        assert_eq!(b.delay(30), Duration::from_millis(350));
        assert_eq!(
            Backoff::fixed(Duration::from_millis(5)).delay(9),
            Duration::from_millis(5)
        );
    }
}
