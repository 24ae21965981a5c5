//! The consumer's queue, bounded in bytes.
//!
//! An unbounded mpsc carries the frames; a semaphore holding one permit per
//! byte bounds what is queued. The reader acquires `min(len, cap)` permits
//! before queueing a frame and the consumer returns them when it takes the
//! frame, so a frame larger than the whole cap is still admitted once the
//! queue is empty, and nothing is ever dropped: past the cap the reader
//! simply waits. No actor mailbox is on this path.

use std::sync::Arc;

use tokio::sync::mpsc;

use crate::error::SessionError;
use crate::session::budget::{Budget, Item};
use crate::session::frame::Frame;
use crate::session::stream::FrameStream;

/// Default cap of the consumer's queue: 16 MiB.
pub const DEFAULT_MAX_BUFFERED_BYTES: usize = 16 * 1024 * 1024;

/// Most frames sent in one batch (one consumer wake-up per batch).
const MAX_BATCH: usize = 128;

/// The reader's end (cloned once, for the shutdown's final error).
#[derive(Debug, Clone)]
pub(crate) struct FrameSender {
    tx: mpsc::UnboundedSender<Item>,
    budget: Arc<Budget>,
}

/// What became of a frame offered to the consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Admit {
    Queued,
    /// The consumer dropped its stream; the frame was discarded.
    ConsumerGone,
}

/// A queue bounded to `cap` bytes (clamped to `1..=u32::MAX`).
pub(crate) fn channel(cap: usize) -> (FrameSender, FrameStream, Arc<Budget>) {
    let cap = u32::try_from(cap.max(1)).unwrap_or(u32::MAX);
    let budget = Arc::new(Budget::new(cap));
    let (tx, rx) = mpsc::unbounded_channel();
    let sender = FrameSender {
        tx,
        budget: budget.clone(),
    };
    (sender, FrameStream::new(rx, budget.clone()), budget)
}

impl FrameSender {
    /// Queues the final error (outside the byte budget: it is tiny).
    pub(crate) fn finish(&self, error: SessionError) {
        let _ = self.tx.send(Item::End(Box::new(error)));
    }

    /// A batching front for the reader.
    pub(crate) fn batcher(self) -> Batcher {
        Batcher {
            out: self,
            batch: Vec::new(),
            held: 0,
        }
    }
}

/// Collects the frames of one read burst and sends them as one item.
/// Frames are admitted one by one against the byte budget; when the budget
/// is short, the pending batch is sent first (so the consumer can free
/// room) and then the reader waits.
#[derive(Debug)]
pub(crate) struct Batcher {
    out: FrameSender,
    batch: Vec<Frame>,
    held: u32,
}

impl Batcher {
    /// Admits a frame if the budget has room now; gives it back when it
    /// must wait (then [`push`](Self::push) it). The reader's fast path:
    /// no future, so the read loop's own stays small.
    pub(crate) fn try_push(&mut self, frame: Frame) -> Result<Admit, Frame> {
        let budget = &self.out.budget;
        let want = u32::try_from(frame.line.len())
            .unwrap_or(u32::MAX)
            .min(budget.cap);
        let want = match budget.sem.try_acquire_many(want) {
            Ok(permit) => {
                permit.forget();
                want
            }
            Err(tokio::sync::TryAcquireError::Closed) => return Ok(Admit::ConsumerGone),
            Err(tokio::sync::TryAcquireError::NoPermits) if budget.lifted.is_cancelled() => 0,
            Err(tokio::sync::TryAcquireError::NoPermits) => return Err(frame),
        };
        Ok(self.queue(frame, want))
    }

    fn queue(&mut self, frame: Frame, permits: u32) -> Admit {
        self.batch.push(frame);
        self.held += permits;
        if self.batch.len() >= MAX_BATCH {
            return self.flush();
        }
        Admit::Queued
    }

    /// Admits a frame, waiting while the queue is over its cap.
    pub(crate) async fn push(&mut self, frame: Frame) -> Admit {
        let budget = self.out.budget.clone();
        let want = u32::try_from(frame.line.len())
            .unwrap_or(u32::MAX)
            .min(budget.cap);
        let mut want = want;
        match budget.sem.try_acquire_many(want) {
            Ok(permit) => permit.forget(),
            Err(tokio::sync::TryAcquireError::Closed) => return Admit::ConsumerGone,
            Err(tokio::sync::TryAcquireError::NoPermits) if budget.lifted.is_cancelled() => {
                want = 0;
            }
            Err(tokio::sync::TryAcquireError::NoPermits) => {
                if self.flush() == Admit::ConsumerGone {
                    return Admit::ConsumerGone;
                }
                tokio::select! {
                    acquired = budget.sem.acquire_many(want) => match acquired {
                        Ok(permit) => permit.forget(),
                        Err(_) => return Admit::ConsumerGone,
                    },
                    () = budget.lifted.cancelled() => want = 0,
                }
            }
        }
        self.queue(frame, want)
    }

    /// Sends what was collected.
    pub(crate) fn flush(&mut self) -> Admit {
        if self.batch.is_empty() {
            return Admit::Queued;
        }
        let batch = std::mem::take(&mut self.batch);
        let held = std::mem::take(&mut self.held);
        match self.out.tx.send(Item::Batch(batch, held)) {
            Ok(()) => Admit::Queued,
            Err(_) => {
                self.out.budget.release(held);
                Admit::ConsumerGone
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;
    use futures::StreamExt;
    use std::time::Duration;

    fn frame(n: usize) -> Frame {
        Frame {
            kind: "assistant".into(),
            line: Bytes::from(vec![b'x'; n]),
        }
    }

    async fn send(tx: &FrameSender, f: Frame) -> Admit {
        let mut b = tx.clone().batcher();
        match b.push(f).await {
            Admit::Queued => b.flush(),
            gone => gone,
        }
    }

    #[tokio::test]
    async fn pauses_at_the_cap_and_resumes_when_read() {
        let (tx, mut rx, budget) = channel(100);
        assert_eq!(send(&tx, frame(60)).await, Admit::Queued);
        assert_eq!(budget.buffered(), 60);
        // 60 + 60 > 100: the second frame waits until the first is taken.
        let pending = tokio::time::timeout(Duration::from_millis(50), send(&tx, frame(60))).await;
        assert!(pending.is_err(), "admitted past the cap");
        assert_eq!(
            rx.next().await.map(|f| f.map(|f| f.line.len()).ok()),
            Some(Some(60))
        );
        assert_eq!(budget.buffered(), 0);
        assert_eq!(send(&tx, frame(60)).await, Admit::Queued);
    }

    #[tokio::test]
    async fn oversized_frame_admitted_when_empty() {
        let (tx, mut rx, budget) = channel(10);
        assert_eq!(send(&tx, frame(1000)).await, Admit::Queued);
        assert_eq!(budget.buffered(), 10);
        let waiting = tokio::time::timeout(Duration::from_millis(50), send(&tx, frame(1))).await;
        assert!(waiting.is_err());
        assert!(rx.next().await.is_some());
        assert_eq!(send(&tx, frame(1)).await, Admit::Queued);
    }

    #[tokio::test]
    async fn dropped_consumer_wakes_the_reader() {
        let (tx, rx, _budget) = channel(10);
        assert_eq!(send(&tx, frame(10)).await, Admit::Queued);
        let tx2 = tx.clone();
        let waiter = tokio::spawn(async move { send(&tx2, frame(5)).await });
        drop(rx);
        assert_eq!(waiter.await.unwrap(), Admit::ConsumerGone);
        assert_eq!(send(&tx, frame(1)).await, Admit::ConsumerGone);
    }

    #[tokio::test]
    async fn final_error_then_end() {
        let (tx, mut rx, _budget) = channel(10);
        assert_eq!(send(&tx, frame(3)).await, Admit::Queued);
        tx.finish(SessionError::ShuttingDown);
        drop(tx);
        assert!(matches!(rx.next().await, Some(Ok(_))));
        assert!(matches!(
            rx.next().await,
            Some(Err(SessionError::ShuttingDown))
        ));
        assert!(rx.next().await.is_none());
    }
}

#[cfg(test)]
mod batch_tests {
    use super::*;
    use bytes::Bytes;
    use futures::StreamExt;

    #[tokio::test]
    async fn a_short_budget_flushes_the_batch_before_waiting() {
        let (tx, mut rx, budget) = channel(100);
        let mut b = tx.batcher();
        let f = |n| Frame {
            kind: "assistant".into(),
            line: Bytes::from(vec![b'y'; n]),
        };
        assert_eq!(b.push(f(40)).await, Admit::Queued);
        assert_eq!(b.push(f(40)).await, Admit::Queued);
        assert_eq!(budget.buffered(), 80);
        // The third does not fit: the first two are sent, then it waits.
        let reader = tokio::spawn(async move {
            let r = b.push(f(40)).await;
            b.flush();
            r
        });
        assert_eq!(rx.next().await.unwrap().unwrap().line.len(), 40);
        assert_eq!(rx.next().await.unwrap().unwrap().line.len(), 40);
        assert_eq!(reader.await.unwrap(), Admit::Queued);
        assert_eq!(rx.next().await.unwrap().unwrap().line.len(), 40);
        assert_eq!(budget.buffered(), 0);
    }
}
