//! The admission queue: per-tenant FIFO queues served round-robin, so a
//! tenant with a thousand waiting sessions does not starve one with three.
//!
//! Pure data, owned by the host actor; no locks, no time.

use std::collections::{HashMap, VecDeque};

/// Waiting items by tenant, and how many each tenant is running.
#[derive(Debug)]
pub(crate) struct Admission<T> {
    queues: HashMap<String, VecDeque<T>>,
    /// Tenants with waiting items, in service order.
    ring: VecDeque<String>,
    running: HashMap<String, usize>,
    running_total: usize,
    queued_total: usize,
}

/// Why an item could not be queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum QueueFull {
    /// The queue of all tenants is full.
    Global,
    /// This tenant's queue is full.
    Tenant,
}

impl<T> Default for Admission<T> {
    fn default() -> Self {
        Self {
            queues: HashMap::new(),
            ring: VecDeque::new(),
            running: HashMap::new(),
            running_total: 0,
            queued_total: 0,
        }
    }
}

impl<T> Admission<T> {
    /// Queues `item` for `tenant` unless a queue bound is reached.
    pub(crate) fn push(
        &mut self,
        tenant: &str,
        item: T,
        max_queued: usize,
        max_queued_per_tenant: usize,
    ) -> Result<(), (QueueFull, T)> {
        if self.queued_total >= max_queued {
            return Err((QueueFull::Global, item));
        }
        let queue = self.queues.entry(tenant.to_owned()).or_default();
        if queue.len() >= max_queued_per_tenant {
            return Err((QueueFull::Tenant, item));
        }
        if queue.is_empty() {
            self.ring.push_back(tenant.to_owned());
        }
        queue.push_back(item);
        self.queued_total += 1;
        Ok(())
    }

    /// The next item to start, if the global limit and its tenant's limit
    /// allow one: tenants take turns, one item per turn. The item counts as
    /// running from now on.
    pub(crate) fn next(
        &mut self,
        max_sessions: usize,
        limit_for: impl Fn(&str) -> usize,
    ) -> Option<(String, T)> {
        if self.running_total >= max_sessions {
            return None;
        }
        // One pass over the tenants waiting; those at their limit keep
        // their place for the next round.
        for _ in 0..self.ring.len() {
            let tenant = self.ring.pop_front()?;
            let running = self.running.get(&tenant).copied().unwrap_or(0);
            if running >= limit_for(&tenant) {
                self.ring.push_back(tenant);
                continue;
            }
            let Some(queue) = self.queues.get_mut(&tenant) else {
                continue;
            };
            let Some(item) = queue.pop_front() else {
                self.queues.remove(&tenant);
                continue;
            };
            if queue.is_empty() {
                self.queues.remove(&tenant);
            } else {
                self.ring.push_back(tenant.clone());
            }
            self.queued_total -= 1;
            *self.running.entry(tenant.clone()).or_default() += 1;
            self.running_total += 1;
            return Some((tenant, item));
        }
        None
    }

    /// A running item of `tenant` ended.
    pub(crate) fn release(&mut self, tenant: &str) {
        if let Some(n) = self.running.get_mut(tenant) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.running.remove(tenant);
            }
            self.running_total = self.running_total.saturating_sub(1);
        }
    }

    /// Removes every waiting item (a drain), in tenant order.
    pub(crate) fn take_queued(&mut self) -> Vec<(String, T)> {
        let mut out = Vec::with_capacity(self.queued_total);
        for tenant in std::mem::take(&mut self.ring) {
            if let Some(queue) = self.queues.remove(&tenant) {
                out.extend(queue.into_iter().map(|item| (tenant.clone(), item)));
            }
        }
        self.queues.clear();
        self.queued_total = 0;
        out
    }

    /// Removes one waiting item matching `pred` (a cancelled submission).
    pub(crate) fn remove_queued(&mut self, tenant: &str, pred: impl Fn(&T) -> bool) -> Option<T> {
        let queue = self.queues.get_mut(tenant)?;
        let at = queue.iter().position(pred)?;
        let item = queue.remove(at);
        self.queued_total -= 1;
        if queue.is_empty() {
            self.queues.remove(tenant);
            self.ring.retain(|t| t != tenant);
        }
        item
    }

    pub(crate) fn queued_total(&self) -> usize {
        self.queued_total
    }

    pub(crate) fn running_total(&self) -> usize {
        self.running_total
    }

    pub(crate) fn queued_of(&self, tenant: &str) -> usize {
        self.queues.get(tenant).map_or(0, VecDeque::len)
    }

    pub(crate) fn running_of(&self, tenant: &str) -> usize {
        self.running.get(tenant).copied().unwrap_or(0)
    }

    /// Every tenant with something queued or running.
    pub(crate) fn tenants(&self) -> impl Iterator<Item = &str> {
        let mut seen: Vec<&str> = self
            .queues
            .keys()
            .chain(self.running.keys())
            .map(String::as_str)
            .collect();
        seen.sort_unstable();
        seen.dedup();
        seen.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIG: usize = usize::MAX;

    #[test]
    fn a_small_tenant_is_not_starved_by_a_big_one() {
        let mut q = Admission::default();
        for i in 0..1000 {
            q.push("big", i, BIG, BIG).unwrap();
        }
        for i in 0..3 {
            q.push("small", 10_000 + i, BIG, BIG).unwrap();
        }
        // Admit one at a time, releasing each, as a one-slot host would.
        let mut order = Vec::new();
        for _ in 0..8 {
            let (tenant, _) = q.next(1, |_| BIG).unwrap();
            q.release(&tenant);
            order.push(tenant);
        }
        let small: Vec<usize> = order
            .iter()
            .enumerate()
            .filter(|(_, t)| *t == "small")
            .map(|(i, _)| i)
            .collect();
        assert_eq!(small, vec![1, 3, 5], "order: {order:?}");
    }

    #[test]
    fn limits_hold_and_tenants_at_their_limit_wait_their_turn() {
        let mut q = Admission::default();
        for i in 0..5 {
            q.push("a", i, BIG, BIG).unwrap();
            q.push("b", i, BIG, BIG).unwrap();
        }
        let limit = |t: &str| if t == "a" { 1 } else { 3 };
        let mut got = Vec::new();
        while let Some((t, i)) = q.next(10, limit) {
            got.push((t, i));
        }
        assert_eq!(q.running_of("a"), 1);
        assert_eq!(q.running_of("b"), 3);
        assert_eq!(got.len(), 4);
        assert_eq!(q.queued_total(), 6);
        q.release("a");
        assert_eq!(q.next(10, limit), Some(("a".to_owned(), 1)));
        assert_eq!(q.next(10, limit), None);
        // Global limit.
        let mut g = Admission::default();
        for i in 0..5 {
            g.push("x", i, BIG, BIG).unwrap();
        }
        assert!(g.next(2, |_| BIG).is_some());
        assert!(g.next(2, |_| BIG).is_some());
        assert!(g.next(2, |_| BIG).is_none());
        assert_eq!(g.running_total(), 2);
    }

    #[test]
    fn queue_bounds_and_cancellation() {
        let mut q = Admission::default();
        q.push("a", 1, 3, 2).unwrap();
        q.push("a", 2, 3, 2).unwrap();
        assert_eq!(q.push("a", 3, 3, 2).unwrap_err().0, QueueFull::Tenant);
        q.push("b", 4, 3, 2).unwrap();
        assert_eq!(q.push("c", 5, 3, 2).unwrap_err().0, QueueFull::Global);
        assert_eq!(q.remove_queued("b", |i| *i == 4), Some(4));
        assert_eq!(q.queued_of("b"), 0);
        assert_eq!(q.tenants().collect::<Vec<_>>(), vec!["a"]);
        let all = q.take_queued();
        assert_eq!(all.len(), 2);
        assert_eq!(q.queued_total(), 0);
        assert!(q.next(10, |_| BIG).is_none());
    }
}
