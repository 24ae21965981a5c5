//! Properties of the host's core over generated input orders: the caps
//! hold, admission is fair, a session is never live and hibernated at
//! once, a drain ends everything, restarts stay within their limit.
//!
//! A model plays the world around the core: it submits, cancels, crashes,
//! hibernates, revives and ends sessions, and finishes spare starts, in
//! any order the generator picks, but only as the real supervision tasks
//! could (only a live session crashes or hibernates, a refused revival
//! ends its session, ...). It follows the effects and checks the core's
//! state against what it saw after every input.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::effects::{Effect, End, Input, Plumbing};
use super::state::{Core, Limits, State};
use crate::host::config::{Backoff, HostConfig, RestartPolicy};
use crate::host::error::HostError;
use crate::host::metrics::HostMetrics;
use crate::host::outcome::{Failure, SessionId};

const TENANTS: u8 = 3;
const NAMES: [&str; TENANTS as usize] = ["t0", "t1", "t2"];

/// The core over plain values: a spare is whether it can still serve; a
/// handle, a waiter and an outcome are the session's id.
struct Model;

impl Plumbing for Model {
    type Pending = ();
    type Handle = SessionId;
    type Spare = bool;
    type Waiter = SessionId;
    type Outcome = SessionId;

    fn spare_usable(usable: &bool) -> bool {
        *usable
    }
}

/// One thing that happens around the core. Indices pick among the sessions
/// the step applies to (modulo their number).
#[derive(Debug, Clone)]
enum Op {
    Submit { tenant: u8, fits_spare: bool },
    Cancel(usize),
    Crash(usize),
    Hibernate(usize),
    Revive(usize),
    End(usize),
    SpareStarted { ok: bool, usable: bool },
    Wait(u16),
    Drain,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0..TENANTS, any::<bool>()).prop_map(|(tenant, fits_spare)| Op::Submit { tenant, fits_spare }),
        1 => any::<usize>().prop_map(Op::Cancel),
        2 => any::<usize>().prop_map(Op::Crash),
        2 => any::<usize>().prop_map(Op::Hibernate),
        2 => any::<usize>().prop_map(Op::Revive),
        3 => any::<usize>().prop_map(Op::End),
        2 => (any::<bool>(), prop::bool::weighted(0.8)).prop_map(|(ok, usable)| Op::SpareStarted { ok, usable }),
        1 => (0u16..200).prop_map(Op::Wait),
        1 => Just(Op::Drain),
    ]
}

fn limits() -> impl Strategy<Value = Limits> {
    let restart = prop_oneof![
        Just(RestartPolicy::Never),
        (0u32..4, 10u64..300).prop_map(|(n, window)| {
            RestartPolicy::on_crash(n, Duration::from_millis(window))
                .with_backoff(Backoff::fixed(Duration::from_millis(5)))
        }),
    ];
    (
        1usize..7,
        1usize..4,
        prop::option::of(1usize..3),
        1usize..25,
        1usize..10,
        restart,
        0usize..4,
    )
        .prop_map(
            |(max_sessions, max_per_tenant, t0, max_queued, per, restart, spares)| Limits {
                max_sessions,
                max_per_tenant,
                tenant_limits: t0.map(|n| ("t0".to_owned(), n)).into_iter().collect(),
                max_queued,
                max_queued_per_tenant: per,
                restart,
                spares,
            },
        )
}

/// What a session's supervision task would be doing (admitted sessions only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Task {
    Live,
    Hibernated,
    Reviving,
}

/// The world around the core, as its effects left it.
struct World {
    core: Core<Model>,
    now: Instant,
    queued: BTreeSet<SessionId>,
    tasks: BTreeMap<SessionId, Task>,
    tenant_of: HashMap<SessionId, String>,
    spares_starting: usize,
    drained: bool,
    restarts: HashMap<SessionId, Vec<Instant>>,
    /// Admissions of other tenants while this one waited (queued work,
    /// below its cap), since its own last admission.
    passed_over: HashMap<String, usize>,
    /// Sessions whose task ends next (a refused revival).
    ending: Vec<SessionId>,
    /// The core's counters after the last input.
    metrics: HostMetrics,
}

impl World {
    fn new(limits: Limits) -> Self {
        let mut w = Self {
            core: Core::new(limits),
            now: Instant::now(),
            queued: BTreeSet::new(),
            tasks: BTreeMap::new(),
            tenant_of: HashMap::new(),
            spares_starting: 0,
            drained: false,
            restarts: HashMap::new(),
            passed_over: HashMap::new(),
            ending: Vec::new(),
            metrics: HostMetrics::default(),
        };
        w.feed(Input::Open);
        w
    }

    fn pick(&self, i: usize, want: impl Fn(Task) -> bool) -> Option<SessionId> {
        let ids: Vec<_> = self
            .tasks
            .iter()
            .filter(|(_, t)| want(**t))
            .map(|(id, _)| *id)
            .collect();
        (!ids.is_empty()).then(|| ids[i % ids.len()])
    }

    fn step(&mut self, op: Op) {
        match op {
            Op::Submit { tenant, fits_spare } => {
                let id = self.core.next_id();
                let tenant = NAMES[usize::from(tenant)].to_owned();
                self.tenant_of.insert(id, tenant.clone());
                let before = self.metrics.clone();
                let fx = self.feed(Input::Submit {
                    id,
                    tenant: tenant.clone(),
                    pending: (),
                    handle: id,
                    fits_spare,
                });
                if let Some(Effect::Refused(e)) = fx.first() {
                    let limits = self.core.limits();
                    let tenant_queued = before.by_tenant.get(&tenant).map_or(0, |t| t.queued);
                    match e {
                        HostError::Draining => assert!(self.drained),
                        HostError::QueueFull { .. } => {
                            assert!(before.queued >= limits.max_queued);
                        }
                        HostError::TenantQueueFull { .. } => {
                            assert!(tenant_queued >= limits.max_queued_per_tenant);
                        }
                        other => panic!("refused with {other}"),
                    }
                } else {
                    assert!(!self.drained, "a submission was accepted after a drain");
                }
            }
            Op::Cancel(i) => {
                let all: Vec<_> = self
                    .queued
                    .iter()
                    .chain(self.tasks.keys())
                    .copied()
                    .collect();
                if !all.is_empty() {
                    let id = all[i % all.len()];
                    let was_queued = self.queued.contains(&id);
                    self.feed(Input::Cancel(id));
                    // A queued one is gone; a running one ends through its task.
                    assert!(!self.queued.contains(&id));
                    assert_eq!(self.core.handle(id).is_some(), !was_queued);
                }
            }
            Op::Crash(i) => {
                if let Some(id) = self.pick(i, |t| t == Task::Live) {
                    let fx = self.feed(Input::Crashed(id));
                    match fx.first() {
                        Some(Effect::Restart { .. }) => {
                            assert!(!self.drained, "a restart began after a drain");
                            self.restarts.entry(id).or_default().push(self.now);
                            self.check_restarts(id);
                        }
                        Some(Effect::GiveUp) => self.end(id),
                        _ => panic!("a crash got no verdict"),
                    }
                }
            }
            Op::Hibernate(i) => {
                if let Some(id) = self.pick(i, |t| t == Task::Live) {
                    self.tasks.insert(id, Task::Hibernated);
                    self.feed(Input::Hibernated(id));
                }
            }
            Op::Revive(i) => {
                if let Some(id) = self.pick(i, |t| t == Task::Hibernated) {
                    self.tasks.insert(id, Task::Reviving);
                    self.feed(Input::Revive { id, waiter: id });
                    if self.tasks.get(&id) == Some(&Task::Live) {
                        self.feed(Input::Revived(id));
                    }
                }
            }
            Op::End(i) => {
                if let Some(id) = self.pick(i, |_| true) {
                    self.end(id);
                }
            }
            Op::SpareStarted { ok, usable } => {
                if self.spares_starting > 0 {
                    self.spares_starting -= 1;
                    self.feed(Input::SpareStarted(ok.then_some(usable)));
                }
            }
            Op::Wait(ms) => self.now += Duration::from_millis(u64::from(ms)),
            Op::Drain => self.drain(),
        }
        while let Some(id) = self.ending.pop() {
            self.end(id);
        }
    }

    fn end(&mut self, id: SessionId) {
        self.tasks.remove(&id);
        let fx = self.feed(Input::Ended {
            id,
            end: End::default(),
            outcome: id,
        });
        assert!(
            matches!(fx.first(), Some(Effect::Ended(o)) if *o == id),
            "an end is published first"
        );
    }

    fn drain(&mut self) {
        let fx = self.feed(Input::Drain);
        self.drained = true;
        let Some(Effect::Draining {
            running,
            hibernated,
            ..
        }) = fx.last()
        else {
            panic!("a drain hands over what it must stop");
        };
        // Every session left has a task to stop; the queue is gone.
        assert!(self.queued.is_empty());
        assert_eq!(
            running.iter().copied().collect::<BTreeSet<_>>(),
            self.tasks.keys().copied().collect()
        );
        let unslotted = self.tasks.values().filter(|t| **t != Task::Live).count();
        assert_eq!(*hibernated, unslotted);
    }

    /// Feeds one input, follows its effects, checks the invariants.
    fn feed(&mut self, input: Input<Model>) -> Vec<Effect<Model>> {
        let waiting_before = self.waiting_now();
        for (tenant, waiting) in &waiting_before {
            if !waiting {
                self.passed_over.insert(tenant.clone(), 0);
            }
        }
        let fx = self.core.on(input, self.now);
        self.metrics = self.core.metrics();
        let admitted: Vec<String> = fx
            .iter()
            .filter_map(|e| match e {
                Effect::Start { tenant, .. } => Some(tenant.clone()),
                Effect::Revive { id, .. } => Some(self.tenant_of[id].clone()),
                _ => None,
            })
            .collect();
        self.check_fairness(&admitted);
        for e in &fx {
            match e {
                Effect::Queued { id, .. } => {
                    self.queued.insert(*id);
                }
                Effect::Start { id, .. } => {
                    assert!(!self.drained, "admitted after a drain");
                    assert!(self.queued.remove(id), "{id} started without being queued");
                    self.tasks.insert(*id, Task::Live);
                }
                Effect::Revive { id, waiter, .. } => {
                    assert!(!self.drained, "revived after a drain");
                    assert_eq!(id, waiter);
                    assert_eq!(self.tasks.get(id), Some(&Task::Reviving));
                    self.tasks.insert(*id, Task::Live);
                }
                Effect::RefuseRevival(id) => {
                    // The task gives up waiting and ends the session.
                    self.tasks.insert(*id, Task::Hibernated);
                    self.ending.push(*id);
                }
                Effect::Unadmitted { id, failure, .. } => {
                    assert!(
                        self.queued.remove(id),
                        "{id} ended unadmitted, but not queued"
                    );
                    assert!(matches!(failure, Failure::Cancelled | Failure::Drained));
                }
                Effect::StartSpares(n) => {
                    assert!(!self.drained, "spares started after a drain");
                    self.spares_starting += n;
                }
                Effect::Refused(_)
                | Effect::Restart { .. }
                | Effect::GiveUp
                | Effect::Ended(_)
                | Effect::StopSpare(_)
                | Effect::Draining { .. } => {}
            }
        }
        self.check_state();
        fx
    }

    /// Per tenant: whether it has queued work and is below its cap.
    fn waiting_now(&self) -> BTreeMap<String, bool> {
        let m = &self.metrics;
        let limits = self.core.limits();
        NAMES
            .iter()
            .map(|&tenant| {
                let (q, r) = m
                    .by_tenant
                    .get(tenant)
                    .map_or((0, 0), |t| (t.queued, t.running));
                let waiting = q > 0 && r < limits.limit_for(tenant);
                (tenant.to_owned(), waiting)
            })
            .collect()
    }

    /// Fairness, as admission.rs defines it: tenants with queued work take
    /// turns, so while a tenant waits (queued work, below its cap) at most
    /// one admission of each other tenant comes before its own.
    ///
    /// `admitted` are this input's admissions in order; the state before
    /// each is the state after them with the later ones undone.
    fn check_fairness(&mut self, admitted: &[String]) {
        let after = &self.metrics;
        let limits = self.core.limits();
        for (i, x) in admitted.iter().enumerate() {
            for tenant in NAMES {
                let later = admitted[i..].iter().filter(|a| *a == tenant).count();
                let (q, r) = after
                    .by_tenant
                    .get(tenant)
                    .map_or((0, 0), |t| (t.queued, t.running));
                let waiting = q + later > 0 && r - later < limits.limit_for(tenant);
                let passed = self.passed_over.entry(tenant.to_owned()).or_default();
                if tenant == x || !waiting {
                    *passed = 0;
                } else {
                    *passed += 1;
                    assert!(
                        *passed < usize::from(TENANTS),
                        "{tenant} waited through {passed} admissions of others"
                    );
                }
            }
        }
    }

    /// The caps hold, and the core's view of every session is the world's.
    fn check_state(&self) {
        let m = &self.metrics;
        let limits = self.core.limits();
        assert!(
            m.live <= limits.max_sessions,
            "{} live over a cap of {}",
            m.live,
            limits.max_sessions
        );
        for (tenant, t) in &m.by_tenant {
            assert!(
                t.running <= limits.limit_for(tenant),
                "{tenant} runs {} over its cap",
                t.running
            );
        }
        let live = self.tasks.values().filter(|t| **t == Task::Live).count();
        assert_eq!(m.running, live, "slots held = live sessions");
        assert_eq!(m.hibernated, self.tasks.len() - live);
        let reviving = self
            .tasks
            .values()
            .filter(|t| **t == Task::Reviving)
            .count();
        // A revival waits in the same queue as new sessions.
        assert_eq!(m.queued, self.queued.len() + reviving);
        assert_eq!(m.logical, self.queued.len() + self.tasks.len());
        for id in &self.queued {
            assert_eq!(self.core.state(*id), Some(State::Queued));
        }
        for (id, t) in &self.tasks {
            // One state per session: live, or hibernated (reviving), never both.
            let want = match t {
                Task::Live => State::Live,
                Task::Hibernated => State::Hibernated,
                Task::Reviving => State::Reviving,
            };
            assert_eq!(self.core.state(*id), Some(want), "{id}");
        }
    }

    /// Within any window, at most `max_restarts` restarts.
    fn check_restarts(&self, id: SessionId) {
        let times = &self.restarts[&id];
        match &self.core.limits().restart {
            RestartPolicy::Never => panic!("restarted under RestartPolicy::Never"),
            RestartPolicy::OnCrash {
                max_restarts,
                window,
                ..
            } => {
                for (i, t) in times.iter().enumerate() {
                    let within = times[i..]
                        .iter()
                        .filter(|u| u.saturating_duration_since(*t) <= *window)
                        .count();
                    assert!(
                        within <= *max_restarts as usize,
                        "{within} restarts within {window:?} (limit {max_restarts})"
                    );
                }
            }
        }
    }

    /// Drain, then every task ends and every spare start reports: nothing
    /// is left live, queued or hibernated, and nothing new gets in.
    fn drain_to_the_end(&mut self) {
        if !self.drained {
            self.drain();
        }
        while let Some((&id, _)) = self.tasks.iter().next() {
            self.end(id);
        }
        while self.spares_starting > 0 {
            self.spares_starting -= 1;
            let fx = self.feed(Input::SpareStarted(Some(true)));
            assert!(matches!(fx.as_slice(), [Effect::StopSpare(_)]));
        }
        let id = self.core.next_id();
        let fx = self.feed(Input::Submit {
            id,
            tenant: "t0".into(),
            pending: (),
            handle: id,
            fits_spare: true,
        });
        assert!(matches!(
            fx.as_slice(),
            [Effect::Refused(HostError::Draining)]
        ));
        let m = self.core.metrics();
        assert_eq!(
            (
                m.queued,
                m.running,
                m.hibernated,
                m.logical,
                m.live,
                m.spares
            ),
            (0, 0, 0, 0, 0, 0),
            "{m:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn caps_fairness_one_state_drain_and_restart_limits_hold_in_any_order(
        limits in limits(),
        ops in prop::collection::vec(op(), 1..150),
    ) {
        let mut world = World::new(limits);
        for op in ops {
            world.step(op);
        }
        world.drain_to_the_end();
    }
}

/// Tenants with queued work take turns: a small tenant behind a big one
/// waits one turn, not the big one's whole queue.
#[test]
fn tenants_with_queued_work_take_turns() {
    let limits = Limits::of(&HostConfig::new().max_sessions(1), 0);
    let mut world = World::new(limits);
    for t in [0, 0, 0, 0, 1, 2] {
        world.step(Op::Submit {
            tenant: t,
            fits_spare: false,
        });
    }
    let mut order = Vec::new();
    while let Some(&id) = world.tasks.keys().next() {
        order.push(world.tenant_of[&id].clone());
        world.end(id);
    }
    assert_eq!(order, ["t0", "t0", "t1", "t2", "t0", "t0"]);
}

/// Restarts never begin once a drain has, whatever the policy allows.
#[test]
fn no_restart_begins_once_a_drain_has() {
    let config = HostConfig::new().restart(RestartPolicy::on_crash(5, Duration::from_secs(60)));
    let mut world = World::new(Limits::of(&config, 0));
    world.step(Op::Submit {
        tenant: 0,
        fits_spare: false,
    });
    world.step(Op::Submit {
        tenant: 0,
        fits_spare: false,
    });
    let ids: Vec<_> = world.tasks.keys().copied().collect();
    let fx = world.feed(Input::Crashed(ids[0]));
    assert!(matches!(
        fx.first(),
        Some(Effect::Restart { attempt: 1, .. })
    ));
    world.drain();
    let fx = world.feed(Input::Crashed(ids[1]));
    assert!(matches!(fx.as_slice(), [Effect::GiveUp]));
}

/// A hibernated session that ends while its revival waits for a slot takes
/// its ticket along: no slot is later given to a session that is gone.
#[test]
fn a_session_ending_while_its_revival_waits_leaves_no_ticket_behind() {
    let mut world = World::new(Limits::of(&HostConfig::new().max_sessions(1), 0));
    for _ in 0..2 {
        world.step(Op::Submit {
            tenant: 0,
            fits_spare: false,
        });
    }
    let first = SessionId(1);
    world.step(Op::Hibernate(0));
    // The second took the freed slot; the first's revival must wait.
    assert_eq!(world.core.state(SessionId(2)), Some(State::Live));
    world.step(Op::Revive(0));
    assert_eq!(world.core.state(first), Some(State::Reviving));
    world.end(first);
    assert_eq!(world.metrics.queued, 0);
    world.tasks.remove(&SessionId(2));
    let fx = world.feed(Input::Ended {
        id: SessionId(2),
        end: End::default(),
        outcome: SessionId(2),
    });
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::Revive { .. } | Effect::Start { .. })),
        "nothing is left to admit"
    );
    assert_eq!(world.metrics.logical, 0);
}
