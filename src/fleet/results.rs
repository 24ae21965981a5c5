//! Reading the results stream as it grows, across server restarts: an
//! ephemeral consumer with a short heartbeat, recreated from the next
//! unread sequence whenever it fails (the client's ordered consumer takes
//! over a minute to notice a restarted server).

use std::time::Duration;

use async_nats::jetstream::consumer::{AckPolicy, DeliverPolicy, PullConsumer, pull};
use async_nats::jetstream::stream::Stream as JsStream;
use futures::StreamExt;
use futures::stream::BoxStream;

use super::{FleetError, RecordedOutcome};

// The reader's consumer settings are fixed, not configurable: none bounds
// a wait of the caller's (a reader waits for outcomes as long as it is
// polled; `Fleet::outcome` takes its own timeout). Together they decide
// only how fast a restarted server is noticed and the reader resumes
// (about two heartbeats), which is the point of this reader, and how
// soon the server cleans up after a reader that went away.

/// The server sends a heartbeat this often while there is nothing to
/// read; two missed ones end the consumer's stream (and recreate it).
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How long one pull request lives (several heartbeats, as the server
/// wants).
const EXPIRES: Duration = Duration::from_secs(5);
/// An idle reader's consumer is removed by the server after this.
const INACTIVE: Duration = Duration::from_secs(30);
/// Pause before recreating a failed consumer.
const RETRY: Duration = Duration::from_millis(250);

/// Every message of `filter` in `stream`, from the first, then each new
/// one. The first error of an outage is yielded; reading resumes by
/// itself once the server answers again.
pub(crate) fn follow(
    stream: JsStream,
    filter: String,
) -> BoxStream<'static, Result<RecordedOutcome, FleetError>> {
    let reader = Reader {
        stream,
        filter,
        next_sequence: 1,
        messages: None,
        failing: false,
    };
    futures::stream::unfold(reader, |mut r| async move {
        let item = r.next().await;
        Some((item, r))
    })
    .boxed()
}

struct Reader {
    stream: JsStream,
    filter: String,
    next_sequence: u64,
    messages: Option<pull::Stream>,
    /// An error of the current outage was yielded already.
    failing: bool,
}

impl Reader {
    async fn next(&mut self) -> Result<RecordedOutcome, FleetError> {
        loop {
            let messages = match &mut self.messages {
                Some(m) => m,
                None => match self.open().await {
                    Ok(m) => self.messages.insert(m),
                    Err(e) => {
                        tokio::time::sleep(RETRY).await;
                        if !std::mem::replace(&mut self.failing, true) {
                            return Err(e);
                        }
                        continue;
                    }
                },
            };
            match messages.next().await {
                Some(Ok(m)) => {
                    self.failing = false;
                    let (sequence, pending) = m
                        .info()
                        .map(|i| (i.stream_sequence, i.pending))
                        .unwrap_or((self.next_sequence, 0));
                    self.next_sequence = sequence + 1;
                    let outcome = serde_json::from_slice(&m.payload).map_err(|source| {
                        FleetError::Malformed {
                            subject: m.subject.to_string(),
                            source,
                        }
                    })?;
                    return Ok(RecordedOutcome {
                        outcome,
                        pending,
                        sequence,
                    });
                }
                Some(Err(e)) => {
                    self.messages = None;
                    tokio::time::sleep(RETRY).await;
                    if !std::mem::replace(&mut self.failing, true) {
                        return Err(FleetError::js(format!("read {}", self.filter), e));
                    }
                }
                None => self.messages = None,
            }
        }
    }

    async fn open(&self) -> Result<pull::Stream, FleetError> {
        let what = || format!("read {}", self.filter);
        let deliver_policy = match self.next_sequence {
            0 | 1 => DeliverPolicy::All,
            n => DeliverPolicy::ByStartSequence { start_sequence: n },
        };
        let consumer: PullConsumer = self
            .stream
            .create_consumer(pull::Config {
                deliver_policy,
                ack_policy: AckPolicy::None,
                filter_subject: self.filter.clone(),
                inactive_threshold: INACTIVE,
                ..Default::default()
            })
            .await
            .map_err(|e| FleetError::js(what(), e))?;
        consumer
            .stream()
            .heartbeat(HEARTBEAT)
            .expires(EXPIRES)
            .max_messages_per_batch(256)
            .messages()
            .await
            .map_err(|e| FleetError::js(what(), e))
    }
}
