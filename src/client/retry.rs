//! Retrying a turn that ended because the API was overloaded (529) or
//! rate-limited (429), which neither official SDK does.
//!
//! The CLI retries a failing API call itself (`CLAUDE_CODE_MAX_RETRIES`
//! times, within seconds) and then ends the turn with an error `result`
//! carrying `api_error_status`. [`Client::send_with_retry`] goes on from
//! there: it waits (exponential backoff with jitter, so many sessions hit
//! by the same overload do not come back in step) and sends the prompt
//! again in the same session, which the CLI still holds, so the retry
//! resumes the conversation where it stopped. The failed attempt's prompt
//! stays in the session's history.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::Duration;

use futures::StreamExt;
use futures::stream::{self, BoxStream};

use super::{Client, Prompt};
use crate::Result;
use crate::protocol::{Message, ResultMessage, UserMessage};

/// When and how often [`Client::send_with_retry`] sends a turn again.
///
/// ```
/// use std::time::Duration;
/// use claude_agent::client::RetryPolicy;
///
/// let policy = RetryPolicy::new()
///     .max_attempts(4)
///     .delays(Duration::from_secs(2), Duration::from_secs(60));
/// // The third attempt waits about 4 s: the base doubled once, jittered
/// // down by at most half.
/// let wait = policy.delay_before(3);
/// assert!(wait >= Duration::from_secs(2) && wait <= Duration::from_secs(4));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    max_attempts: u32,
    initial_delay: Duration,
    max_delay: Duration,
    statuses: Vec<u16>,
}

impl Default for RetryPolicy {
    /// Three attempts; waits from 1 s, doubling, at most 30 s; on 429 and
    /// 529.
    fn default() -> Self {
        Self {
            max_attempts: 3,
            initial_delay: Duration::from_secs(1),
            max_delay: Duration::from_secs(30),
            statuses: vec![429, 529],
        }
    }
}

impl RetryPolicy {
    /// The default policy.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many times the turn is sent in all (at least 1: no retry).
    #[must_use]
    pub fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The wait before the first retry, doubling for each next one, never
    /// above `max`.
    #[must_use]
    pub fn delays(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_delay = initial;
        self.max_delay = max.max(initial);
        self
    }

    /// The API statuses that make a turn worth sending again (default 429
    /// and 529).
    #[must_use]
    pub fn statuses(mut self, statuses: impl IntoIterator<Item = u16>) -> Self {
        self.statuses = statuses.into_iter().collect();
        self
    }

    /// Whether `result` ended its turn on an API error this policy retries.
    /// The status is `api_error_status`, or (older CLIs) the `API Error:
    /// NNN` the result text starts with.
    pub fn retries(&self, result: &ResultMessage) -> bool {
        if !result.is_error() {
            return false;
        }
        let status = result
            .api_error_status
            .or_else(|| status_in_text(result.result.as_deref()?));
        status.is_some_and(|s| self.statuses.contains(&s))
    }

    /// The wait before attempt `attempt` (2 = the first retry): the
    /// initial delay doubled per earlier retry, capped, then a uniformly
    /// random part of its upper half taken off.
    pub fn delay_before(&self, attempt: u32) -> Duration {
        let doublings = attempt.saturating_sub(2).min(31);
        let base = self
            .initial_delay
            .saturating_mul(1 << doublings)
            .min(self.max_delay);
        let half = base / 2;
        let spread = u64::try_from(half.as_millis()).unwrap_or(u64::MAX);
        let off = if spread == 0 {
            0
        } else {
            random_u64() % (spread + 1)
        };
        base - Duration::from_millis(off)
    }
}

/// A random number from the standard library's per-instance hash keys:
/// jitter needs no quality randomness, and no dependency for it.
fn random_u64() -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u64(0);
    h.finish()
}

/// The status of an `API Error: 529 ...` result text.
fn status_in_text(text: &str) -> Option<u16> {
    let rest = text.strip_prefix("API Error: ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

impl Client {
    /// Sends `prompt` as one turn and returns its messages, like
    /// [`send`](Self::send) then [`receive_response`](Self::receive_response),
    /// except that a turn ending on an API error `policy` retries is sent
    /// again after a wait, up to the policy's attempts. The retried
    /// attempts' messages are yielded too, but not their failed `result`s:
    /// the stream ends with one `result`, the last attempt's.
    pub fn send_with_retry(
        &self,
        prompt: impl Into<Prompt>,
        policy: RetryPolicy,
    ) -> BoxStream<'static, Result<Message>> {
        let state = Attempt {
            client: self.clone(),
            message: prompt.into().into_message(),
            policy,
            attempt: 0,
            turn: None,
        };
        stream::unfold(Some(state), step).boxed()
    }
}

struct Attempt {
    client: Client,
    message: UserMessage,
    policy: RetryPolicy,
    /// Attempts sent so far.
    attempt: u32,
    /// The current attempt's messages.
    turn: Option<BoxStream<'static, Result<Message>>>,
}

async fn step(state: Option<Attempt>) -> Option<(Result<Message>, Option<Attempt>)> {
    let mut s = state?;
    loop {
        if s.turn.is_none() {
            if s.attempt > 0 {
                let wait = s.policy.delay_before(s.attempt + 1);
                tracing::info!(attempt = s.attempt + 1, ?wait, "retrying the turn");
                tokio::time::sleep(wait).await;
            }
            s.attempt += 1;
            if let Err(e) = s.client.send_message(&s.message).await {
                return Some((Err(e), None));
            }
            s.turn = Some(s.client.receive_response());
        }
        let turn = s.turn.as_mut()?;
        match turn.next().await {
            None => return None,
            Some(Ok(Message::Result(r)))
                if s.attempt < s.policy.max_attempts && s.policy.retries(&r) =>
            {
                tracing::warn!(
                    attempt = s.attempt,
                    status = r.api_error_status,
                    "the turn ended on a retryable API error"
                );
                s.turn = None;
            }
            Some(item) => return Some((item, Some(s))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::parse_message;

    fn result(line: &str) -> ResultMessage {
        match parse_message(line.as_bytes()) {
            Ok(Message::Result(r)) => *r,
            other => panic!("not a result: {other:?}"),
        }
    }

    #[test]
    fn overloaded_and_rate_limited_turns_are_retried_others_are_not() {
        let p = RetryPolicy::new();
        let overloaded = result(
            r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":529,"result":"API Error: 529"}"#,
        );
        assert!(p.retries(&overloaded));
        let limited_text_only = result(
            r#"{"type":"result","subtype":"success","is_error":true,"result":"API Error: 429 rate limited"}"#,
        );
        assert!(p.retries(&limited_text_only));
        let server_error = result(
            r#"{"type":"result","subtype":"success","is_error":true,"api_error_status":500}"#,
        );
        assert!(!p.retries(&server_error));
        let fine = result(r#"{"type":"result","subtype":"success","is_error":false}"#);
        assert!(!p.retries(&fine));
        assert!(p.clone().statuses([500]).retries(&server_error));
    }

    #[test]
    fn waits_double_are_capped_and_jitter_stays_in_the_upper_half() {
        let p = RetryPolicy::new().delays(Duration::from_millis(100), Duration::from_millis(350));
        for _ in 0..50 {
            let first = p.delay_before(2);
            assert!((50..=100).contains(&first.as_millis()), "{first:?}");
            let second = p.delay_before(3);
            assert!((100..=200).contains(&second.as_millis()), "{second:?}");
            let capped = p.delay_before(30);
            assert!((175..=350).contains(&capped.as_millis()), "{capped:?}");
        }
        assert_eq!(RetryPolicy::new().max_attempts(0).max_attempts, 1);
    }
}
