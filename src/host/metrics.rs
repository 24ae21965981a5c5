//! The host's counters, kept by its supervisor, read as a snapshot.

use std::collections::BTreeMap;

use claude_agent_actors::Escalation;
use serde::Serialize;

/// A snapshot of a [`Host`](super::Host)'s counters.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HostMetrics {
    /// Sessions waiting for admission now.
    pub queued: usize,
    /// Sessions admitted and not ended now, hibernated ones excepted: the
    /// sessions holding a slot (a CLI running or starting).
    pub running: usize,
    /// Hibernated sessions now (no CLI; those waiting for admission to be
    /// revived included, which `queued` counts too).
    pub hibernated: usize,
    /// Logical sessions now: queued, running or hibernated.
    pub logical: usize,
    /// Live CLIs now (running or starting sessions; the slots in use).
    pub live: usize,
    /// Hibernations since the start.
    pub hibernations: u64,
    /// Revivals since the start (the CLI started again).
    pub revivals: u64,
    /// Warm spares ready now (started and initialised, unused); `live`
    /// counts them, and those starting, too.
    pub spares: usize,
    /// Sessions served by a warm spare since the start.
    pub spares_used: u64,
    /// Sessions admitted since the start.
    pub admitted: u64,
    /// Sessions that completed.
    pub completed: u64,
    /// Sessions that ended without completing.
    pub failed: u64,
    /// `failed` by [`Failure::cause_name`](super::Failure::cause_name).
    pub failed_by_cause: BTreeMap<String, u64>,
    /// Submissions refused (queue full, draining).
    pub rejected: u64,
    /// Restarts after crashes.
    pub restarts: u64,
    /// Shutdowns that needed SIGTERM (or a close).
    pub escalations_term: u64,
    /// Shutdowns that needed SIGKILL (or an abort).
    pub escalations_kill: u64,
    /// True once a drain began.
    pub draining: bool,
    /// The same, by tenant (tenants seen since the start).
    pub by_tenant: BTreeMap<String, TenantMetrics>,
}

/// One tenant's share of [`HostMetrics`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct TenantMetrics {
    /// Waiting for admission now.
    pub queued: usize,
    /// Running now.
    pub running: usize,
    /// Admitted since the start.
    pub admitted: u64,
    /// Completed.
    pub completed: u64,
    /// Ended without completing.
    pub failed: u64,
    /// Restarts after crashes.
    pub restarts: u64,
}

/// The running totals behind [`HostMetrics`] (queued/running come from the
/// admission queue when a snapshot is taken).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) totals: HostMetrics,
}

impl Counters {
    fn tenant(&mut self, tenant: &str) -> &mut TenantMetrics {
        self.totals.by_tenant.entry(tenant.to_owned()).or_default()
    }

    pub(crate) fn admitted(&mut self, tenant: &str) {
        self.totals.admitted += 1;
        self.tenant(tenant).admitted += 1;
    }

    pub(crate) fn hibernated(&mut self) {
        self.totals.hibernations += 1;
    }

    pub(crate) fn spare_used(&mut self) {
        self.totals.spares_used += 1;
    }

    pub(crate) fn revived(&mut self) {
        self.totals.revivals += 1;
    }

    pub(crate) fn rejected(&mut self) {
        self.totals.rejected += 1;
    }

    pub(crate) fn restarted(&mut self, tenant: &str) {
        self.totals.restarts += 1;
        self.tenant(tenant).restarts += 1;
    }

    /// A session of `tenant` ended: `failure` is its cause name (`None`:
    /// completed), `escalation` how far its last shutdown went.
    pub(crate) fn ended(
        &mut self,
        tenant: &str,
        failure: Option<&str>,
        escalation: Option<Escalation>,
    ) {
        match failure {
            None => {
                self.totals.completed += 1;
                self.tenant(tenant).completed += 1;
            }
            Some(cause) => {
                self.totals.failed += 1;
                *self
                    .totals
                    .failed_by_cause
                    .entry(cause.to_owned())
                    .or_default() += 1;
                self.tenant(tenant).failed += 1;
            }
        }
        match escalation {
            Some(Escalation::Term) => self.totals.escalations_term += 1,
            Some(Escalation::Kill) => self.totals.escalations_kill += 1,
            _ => {}
        }
    }
}
