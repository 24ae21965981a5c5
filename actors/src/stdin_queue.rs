//! The CLI's stdin queue: two lanes, each bounded in bytes.
//!
//! Control replies and our control requests go in the control lane; user
//! frames (`send`, `send_raw`) in the user lane. The writer task always takes
//! the control lane first, so a reply never waits behind queued user turns
//! (it can still wait behind the one line being written: a line is never
//! interleaved). Each lane is a semaphore of bytes in front of an mpsc: a
//! line holds its bytes (at most the whole lane, so a line larger than the
//! cap is admitted once its lane is empty) until it has been written, so the
//! bytes the host holds for a CLI that stopped reading stay under the caps.

use std::sync::Arc;

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError, mpsc, oneshot};

/// Default cap of each lane, in bytes.
pub const DEFAULT_MAX_STDIN_BYTES: usize = 1024 * 1024;

/// Which lane a line goes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Control requests and replies: written first.
    Control,
    /// User frames.
    User,
}

/// Told once the line was written (or could not be).
pub(crate) type WriteDone = oneshot::Sender<Result<(), String>>;

/// One queued line and the bytes it holds in its lane.
pub(crate) struct Item {
    pub(crate) line: Bytes,
    pub(crate) done: Option<WriteDone>,
    _permit: OwnedSemaphorePermit,
}

/// The writer is gone or stdin was closed: nothing is admitted any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closed;

/// Why `try_push` did not queue the line.
#[derive(Debug)]
pub(crate) enum TryPushError {
    /// The lane is full; the line is handed back.
    Full(Bytes, Option<WriteDone>),
    Closed,
}

#[derive(Debug)]
struct LaneTx {
    tx: mpsc::UnboundedSender<Item>,
    space: Arc<Semaphore>,
    cap: u32,
}

impl LaneTx {
    fn permits(&self, line: &Bytes) -> u32 {
        u32::try_from(line.len()).unwrap_or(u32::MAX).min(self.cap)
    }

    fn queued(&self) -> u64 {
        u64::from(self.cap).saturating_sub(self.space.available_permits() as u64)
    }
}

/// The sending side, shared by the session handle, dispatch and handlers.
#[derive(Debug)]
pub(crate) struct StdinTx {
    control: LaneTx,
    user: LaneTx,
}

/// The writer task's side.
pub(crate) struct StdinRx {
    pub(crate) control: mpsc::UnboundedReceiver<Item>,
    pub(crate) user: mpsc::UnboundedReceiver<Item>,
    spaces: [Arc<Semaphore>; 2],
}

impl StdinRx {
    /// Nothing is admitted any more; senders waiting for room fail.
    pub(crate) fn close(&mut self) {
        for s in &self.spaces {
            s.close();
        }
        self.control.close();
        self.user.close();
    }
}

impl Drop for StdinRx {
    fn drop(&mut self) {
        // The writer task ended (or was aborted): wake every waiting sender.
        self.close();
    }
}

/// A queue whose lanes hold at most `max_bytes` each (at least 1).
pub(crate) fn channel(max_bytes: usize) -> (StdinTx, StdinRx) {
    let cap = u32::try_from(max_bytes.max(1)).unwrap_or(u32::MAX);
    let lane = || {
        let (tx, rx) = mpsc::unbounded_channel();
        let space = Arc::new(Semaphore::new(cap as usize));
        (
            LaneTx {
                tx,
                space: space.clone(),
                cap,
            },
            rx,
            space,
        )
    };
    let (control, control_rx, control_space) = lane();
    let (user, user_rx, user_space) = lane();
    (
        StdinTx { control, user },
        StdinRx {
            control: control_rx,
            user: user_rx,
            spaces: [control_space, user_space],
        },
    )
}

impl StdinTx {
    fn lane(&self, lane: Lane) -> &LaneTx {
        match lane {
            Lane::Control => &self.control,
            Lane::User => &self.user,
        }
    }

    fn enqueue(
        lane: &LaneTx,
        line: Bytes,
        done: Option<WriteDone>,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), Closed> {
        let item = Item {
            line,
            done,
            _permit: permit,
        };
        lane.tx.send(item).map_err(|_| Closed)
    }

    /// Waits for room in `lane` (first come, first served), then queues.
    /// Cancel-safe: dropping the future before it resolves queues nothing.
    pub(crate) async fn push(
        &self,
        lane: Lane,
        line: Bytes,
        done: Option<WriteDone>,
    ) -> Result<(), Closed> {
        let l = self.lane(lane);
        let permit = l
            .space
            .clone()
            .acquire_many_owned(l.permits(&line))
            .await
            .map_err(|_| Closed)?;
        Self::enqueue(l, line, done, permit)
    }

    /// Queues now if `lane` has room.
    pub(crate) fn try_push(
        &self,
        lane: Lane,
        line: Bytes,
        done: Option<WriteDone>,
    ) -> Result<(), TryPushError> {
        let l = self.lane(lane);
        match l.space.clone().try_acquire_many_owned(l.permits(&line)) {
            Ok(permit) => Self::enqueue(l, line, done, permit).map_err(|_| TryPushError::Closed),
            Err(TryAcquireError::NoPermits) => Err(TryPushError::Full(line, done)),
            Err(TryAcquireError::Closed) => Err(TryPushError::Closed),
        }
    }

    /// Queues a control line without making the caller wait: at once if
    /// the control lane has room, else from a task that waits for it (the
    /// CLI is not reading stdin; the line is written once it reads again, or
    /// dropped when the session ends). For callers inside an actor's
    /// `handle`, which must not wait.
    pub(crate) fn push_control_detached(self: &Arc<Self>, line: Bytes) {
        match self.try_push(Lane::Control, line, None) {
            Ok(()) | Err(TryPushError::Closed) => {}
            Err(TryPushError::Full(line, done)) => {
                let me = self.clone();
                tokio::spawn(async move {
                    let _ = me.push(Lane::Control, line, done).await;
                });
            }
        }
    }

    /// Bytes queued (or being written) in both lanes.
    pub(crate) fn queued_bytes(&self) -> u64 {
        self.control.queued() + self.user.queued()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_full_lane_refuses_until_a_line_is_written() {
        let (tx, mut rx) = channel(10);
        tx.try_push(Lane::User, Bytes::from_static(b"12345678\n"), None)
            .unwrap();
        assert_eq!(tx.queued_bytes(), 9);
        let full = tx.try_push(Lane::User, Bytes::from_static(b"ab\n"), None);
        assert!(matches!(full, Err(TryPushError::Full(..))));
        // The control lane has its own room.
        tx.try_push(Lane::Control, Bytes::from_static(b"c\n"), None)
            .unwrap();
        let written = rx.user.recv().await.unwrap();
        drop(written);
        tx.try_push(Lane::User, Bytes::from_static(b"ab\n"), None)
            .unwrap();
        assert_eq!(tx.queued_bytes(), 5);
    }

    #[tokio::test]
    async fn a_line_over_the_cap_waits_for_an_empty_lane() {
        let (tx, mut rx) = channel(4);
        tx.try_push(Lane::User, Bytes::from_static(b"a\n"), None)
            .unwrap();
        let big = Bytes::from_static(b"0123456789\n");
        assert!(matches!(
            tx.try_push(Lane::User, big.clone(), None),
            Err(TryPushError::Full(..))
        ));
        drop(rx.user.recv().await.unwrap());
        tx.try_push(Lane::User, big, None).unwrap();
        assert_eq!(tx.queued_bytes(), 4);
    }

    #[tokio::test]
    async fn closing_fails_pending_and_later_senders() {
        let (tx, mut rx) = channel(2);
        tx.try_push(Lane::User, Bytes::from_static(b"a\n"), None)
            .unwrap();
        let tx = Arc::new(tx);
        let waiter = {
            let tx = tx.clone();
            tokio::spawn(async move { tx.push(Lane::User, Bytes::from_static(b"b\n"), None).await })
        };
        rx.close();
        assert_eq!(waiter.await.unwrap(), Err(Closed));
        assert!(matches!(
            tx.try_push(Lane::Control, Bytes::from_static(b"c\n"), None),
            Err(TryPushError::Closed)
        ));
    }
}
