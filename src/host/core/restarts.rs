//! Restart counting: how many restarts a session's policy still allows,
//! in a sliding window. Plain data, kept per session by the host's core.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::host::config::RestartPolicy;

/// One session's restarts: when the recent ones happened, and how many in all.
#[derive(Debug, Default)]
pub(crate) struct Restarts {
    recent: VecDeque<Instant>,
    total: u32,
}

impl Restarts {
    /// Restarts performed so far.
    pub(crate) fn total(&self) -> u32 {
        self.total
    }

    /// Counts a restart at `now` if `policy` allows one, and returns the
    /// backoff to wait before it.
    pub(crate) fn allow(&mut self, policy: &RestartPolicy, now: Instant) -> Option<Duration> {
        let RestartPolicy::OnCrash {
            max_restarts,
            window,
            backoff,
        } = policy
        else {
            return None;
        };
        while self
            .recent
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) > *window)
        {
            self.recent.pop_front();
        }
        if self.recent.len() >= *max_restarts as usize {
            return None;
        }
        self.recent.push_back(now);
        self.total += 1;
        Some(backoff.delay(self.total))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Backoff;

    #[test]
    fn restarts_are_counted_in_a_sliding_window() {
        let policy = RestartPolicy::on_crash(2, Duration::from_secs(10))
            .with_backoff(Backoff::fixed(Duration::from_millis(7)));
        let mut r = Restarts::default();
        let t0 = Instant::now();
        assert_eq!(r.allow(&policy, t0), Some(Duration::from_millis(7)));
        assert!(r.allow(&policy, t0).is_some());
        assert!(r.allow(&policy, t0 + Duration::from_secs(1)).is_none());
        // Once the first two fall out of the window, restarts are allowed again.
        assert!(r.allow(&policy, t0 + Duration::from_secs(11)).is_some());
        assert_eq!(r.total(), 3);
        assert!(
            Restarts::default()
                .allow(&RestartPolicy::Never, t0)
                .is_none()
        );
    }

    #[test]
    fn the_backoff_grows_with_the_sessions_restarts() {
        let policy = RestartPolicy::on_crash(5, Duration::from_secs(10)).with_backoff(
            Backoff::exponential(Duration::from_millis(10), Duration::from_secs(1), 2),
        );
        let mut r = Restarts::default();
        let t0 = Instant::now();
        assert_eq!(r.allow(&policy, t0), Some(Duration::from_millis(10)));
        assert_eq!(r.allow(&policy, t0), Some(Duration::from_millis(20)));
    }
}
