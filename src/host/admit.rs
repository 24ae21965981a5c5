//! Admission decisions of the host's supervisor: which queued ticket
//! starts next, whether a warm spare serves it or gives up its slot, and
//! the refill of the spares.

use ractor::ActorRef;
use tokio::sync::oneshot;

use super::events::HostEvent;
use super::lifecycle::{self, Lifecycle};
use super::spares::Spares;
use super::supervisor::{HostMsg, HostState, Pending, Ticket};

impl HostState {
    /// Starts whatever the limits allow, tenants taking turns; a matching
    /// warm spare serves a new session, and when the spares hold the last
    /// slots one is given up for a session it cannot serve. Then refills
    /// the spares within the slots left.
    pub(super) fn admit(&mut self, myself: &ActorRef<HostMsg>) {
        if !self.admitting {
            return;
        }
        loop {
            let max = self.config.max_sessions;
            let spare_slots = self.spares.as_ref().map_or(0, Spares::slots);
            let ready = self.spares.as_ref().map_or(0, Spares::ready);
            let config = &self.config;
            let limit = |t: &str| config.limit_for(t);
            let (next, from_spare) =
                match self.admission.next(max.saturating_sub(spare_slots), limit) {
                    Some(n) => (Some(n), false),
                    None if ready > 0 => (self.admission.next(max, limit), true),
                    None => (None, false),
                };
            let Some((tenant, ticket)) = next else {
                break;
            };
            // `from_spare`: the ticket takes a spare's slot; the spare
            // either serves it or is shut down first.
            match ticket {
                Ticket::Revive { id, go } => {
                    let present = self.unslotted.remove(&id);
                    let evicted = from_spare
                        .then(|| self.spares.as_mut().and_then(Spares::evict))
                        .flatten();
                    let host = myself.clone();
                    let hand_over = move || {
                        if go.send(true).is_err() && !present {
                            // Its supervision ended and reported already.
                            let _ = host.cast(HostMsg::Release(tenant));
                        }
                    };
                    match evicted {
                        Some(spare) => {
                            tokio::spawn(async move {
                                spare.shutdown().await;
                                hand_over();
                            });
                        }
                        None => hand_over(),
                    }
                }
                Ticket::New(p) => self.start(myself, tenant, p, from_spare),
            }
        }
        if let Some(sp) = self.spares.as_mut() {
            let used = self.admission.running_total() + sp.slots();
            sp.refill(self.config.max_sessions.saturating_sub(used), myself);
        }
    }

    /// Starts one admitted session, on a matching spare when there is one.
    fn start(
        &mut self,
        myself: &ActorRef<HostMsg>,
        tenant: String,
        mut p: Pending,
        from_spare: bool,
    ) {
        self.counters.admitted(&tenant);
        let config = &self.config;
        let waited = p.queued_at.elapsed();
        let telemetry = &config.telemetry;
        if telemetry.is_enabled() {
            telemetry.record_admission_wait(&tenant, waited);
            telemetry.record_queue_depth(&tenant, self.admission.queued_of(&tenant) as u64);
            if !p.builder.telemetry_handle().is_enabled() {
                p.builder.runtime.telemetry = telemetry.clone();
            }
        }
        let _ = self.events.send(HostEvent::Admitted {
            id: p.id,
            tenant: tenant.clone(),
            waited,
        });
        let spare = self
            .spares
            .as_mut()
            .and_then(|sp| sp.take_matching(&p.builder));
        let mut after = None;
        if let Some(c) = &spare {
            self.counters.spare_used();
            let _ = self.events.send(HostEvent::SpareTaken {
                id: p.id,
                tenant: tenant.clone(),
                pid: c.pid(),
            });
        } else if from_spare && let Some(evicted) = self.spares.as_mut().and_then(Spares::evict) {
            // Its slot is ours once it is gone.
            let (tx, rx) = oneshot::channel();
            tokio::spawn(async move {
                evicted.shutdown().await;
                let _ = tx.send(());
            });
            after = Some(rx);
        }
        lifecycle::spawn(Lifecycle {
            id: p.id,
            tenant,
            builder: p.builder,
            work: p.work,
            restart: config.restart.clone(),
            state: p.state,
            stop: p.stop,
            gate: p.gate,
            hibernate_after: config.hibernate_after,
            spare,
            after,
            draining: self.draining.clone(),
            events: self.events.clone(),
            host: myself.clone(),
            queued_for: waited,
        });
    }
}
