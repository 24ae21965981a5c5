//! The CLI's stdin queue: two lanes, each bounded in bytes, and the writing.
//!
//! Control replies and our control requests go in the control lane; user
//! frames (`send`, `send_raw`) in the user lane. Lines are always written
//! control lane first, so a reply never waits behind queued user turns (it
//! can still wait behind the one line being written: a line is never
//! interleaved). Each lane is a semaphore of bytes in front of a deque: a
//! line holds its bytes (at most the whole lane, so a line larger than the
//! cap is admitted once its lane is empty) until it has been written, so the
//! bytes the host holds for a CLI that stopped reading stay under the caps.
//!
//! Who writes: whoever queued a line tries to write what is queued at once,
//! without waiting (a pipe with room takes it in one call); only what does
//! not fit now is left to the writer task (`transport/mod.rs`), which waits for
//! the pipe. So an answer usually costs no extra task hop.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{Mutex, Notify, OwnedSemaphorePermit, Semaphore, TryAcquireError, oneshot};

use crate::events::{Counters, LifecycleEvent};
use crate::session::record::SessionRecord;
use crate::session::tap::WireDirection;

/// Default cap of each lane, in bytes.
pub const DEFAULT_MAX_STDIN_BYTES: usize = 1024 * 1024;

pub(crate) type BoxWriter = Box<dyn AsyncWrite + Send + Unpin>;

/// Which lane a line goes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Control requests and replies: written first.
    Control,
    /// User frames.
    User,
}

/// Told once the line was written (or could not be).
pub(crate) type WriteDone = oneshot::Sender<std::io::Result<()>>;

/// One queued line and the bytes it holds in its lane.
pub(crate) struct Item {
    line: Bytes,
    /// Bytes of `line` already written.
    written: usize,
    done: Option<WriteDone>,
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

/// One lane's lines, oldest first. A plain deque under a lock held for a
/// push or a pop only: an mpsc channel allocates a block of 32 slots when
/// it is made, which a host with thousands of idle sessions pays twice per
/// session for nothing.
#[derive(Default)]
struct LaneQueue(std::sync::Mutex<LaneItems>);

#[derive(Default)]
struct LaneItems {
    items: VecDeque<Item>,
    /// No more lines are taken (those queued can still be taken out).
    closed: bool,
}

impl LaneQueue {
    fn items(&self) -> std::sync::MutexGuard<'_, LaneItems> {
        // Nothing panics while the lock is held; a poisoned lock still
        // holds a consistent deque.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn send(&self, item: Item) -> Result<(), Closed> {
        let mut q = self.items();
        if q.closed {
            return Err(Closed);
        }
        q.items.push_back(item);
        Ok(())
    }

    fn try_recv(&self) -> Option<Item> {
        self.items().items.pop_front()
    }

    fn close(&self) {
        self.items().closed = true;
    }
}

impl std::fmt::Debug for LaneQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let q = self.items();
        f.debug_struct("LaneQueue")
            .field("lines", &q.items.len())
            .field("closed", &q.closed)
            .finish()
    }
}

#[derive(Debug)]
struct LaneTx {
    tx: Arc<LaneQueue>,
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

/// The writing side: the pipe and what waits for it. Held (locked) by
/// whoever writes.
struct Io {
    writer: Option<BoxWriter>,
    /// The first write error; every later line fails with one of its kind
    /// and message (`io::Error` is not `Clone`).
    broken: Option<(std::io::ErrorKind, String)>,
    /// A line written in part: it goes first.
    partial: Option<Item>,
    control: Arc<LaneQueue>,
    user: Arc<LaneQueue>,
}

/// How far a non-waiting write got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// Everything queued is written.
    Drained,
    /// The pipe is full: the writer task must wait for it.
    Blocked,
}

impl Io {
    fn next(&mut self) -> Option<Item> {
        self.partial
            .take()
            .or_else(|| self.control.try_recv())
            .or_else(|| self.user.try_recv())
    }

    /// The line is written (or failed): tell its sender, release its bytes.
    fn finish(&mut self, item: Item, result: std::io::Result<()>, shared: &SessionRecord) {
        if result.is_ok() {
            let line = &item.line;
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            shared.tap(WireDirection::Out, body);
            Counters::add(&shared.counters.frames_out, 1);
            Counters::add(&shared.counters.bytes_out, line.len() as u64);
        }
        if let Some(done) = item.done {
            let _ = done.send(result);
        }
    }

    fn fail(&mut self, item: Item, shared: &SessionRecord) {
        let e = match &self.broken {
            Some((kind, e)) => std::io::Error::new(*kind, e.clone()),
            None => std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdin is closed"),
        };
        self.finish(item, Err(e), shared);
    }

    /// The first failure: remembered for later lines, and this line gets
    /// the OS's own error (with its source).
    fn break_with(&mut self, item: Item, e: std::io::Error, shared: &SessionRecord) {
        self.broken = Some((e.kind(), e.to_string()));
        self.finish(item, Err(e), shared);
    }

    /// Writes what is queued without waiting: stops when the pipe is full.
    fn write_now(&mut self, shared: &SessionRecord) -> Progress {
        let mut cx = Context::from_waker(Waker::noop());
        while let Some(mut item) = self.next() {
            let Some(w) = self.writer.as_mut().filter(|_| self.broken.is_none()) else {
                self.fail(item, shared);
                continue;
            };
            loop {
                match Pin::new(&mut **w).poll_write(&mut cx, &item.line[item.written..]) {
                    Poll::Ready(Ok(0)) => {
                        let e = std::io::Error::new(
                            std::io::ErrorKind::WriteZero,
                            "stdin accepts no more bytes",
                        );
                        self.break_with(item, e, shared);
                        break;
                    }
                    Poll::Ready(Ok(n)) => {
                        item.written += n;
                        if item.written == item.line.len() {
                            // Pipes do not buffer; a flush is a formality.
                            let _ = Pin::new(&mut **w).poll_flush(&mut cx);
                            self.finish(item, Ok(()), shared);
                            break;
                        }
                    }
                    Poll::Ready(Err(e)) => {
                        self.break_with(item, e, shared);
                        break;
                    }
                    Poll::Pending => {
                        self.partial = Some(item);
                        return Progress::Blocked;
                    }
                }
            }
        }
        Progress::Drained
    }

    /// Writes what is queued, waiting for the pipe as long as it takes.
    async fn write_all(&mut self, shared: &SessionRecord) {
        while let Some(item) = self.next() {
            let Some(w) = self.writer.as_mut().filter(|_| self.broken.is_none()) else {
                self.fail(item, shared);
                continue;
            };
            let r = async {
                w.write_all(&item.line[item.written..]).await?;
                w.flush().await
            }
            .await;
            match r {
                Ok(()) => self.finish(item, Ok(()), shared),
                Err(e) => self.break_with(item, e, shared),
            }
        }
    }
}

/// The queue, shared by the session handle, dispatch, handlers and the
/// writer task.
pub(crate) struct StdinTx {
    control: LaneTx,
    user: LaneTx,
    io: Mutex<Io>,
    /// Work for the writer task: a write that could not finish at once.
    wake: Notify,
    /// Set when the writer task is gone: pushers no longer write.
    stopped: AtomicBool,
}

impl std::fmt::Debug for StdinTx {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdinTx")
            .field("queued_bytes", &self.queued_bytes())
            .finish_non_exhaustive()
    }
}

/// A queue whose lanes hold at most `max_bytes` each (at least 1). Nothing
/// is written before [`writer_task`] installs the pipe.
pub(crate) fn channel(max_bytes: usize) -> StdinTx {
    let cap = u32::try_from(max_bytes.max(1)).unwrap_or(u32::MAX);
    let lane = || {
        let tx = Arc::new(LaneQueue::default());
        let space = Arc::new(Semaphore::new(cap as usize));
        (
            LaneTx {
                tx: tx.clone(),
                space,
                cap,
            },
            tx,
        )
    };
    let (control, control_rx) = lane();
    let (user, user_rx) = lane();
    StdinTx {
        control,
        user,
        io: Mutex::new(Io {
            writer: None,
            broken: None,
            partial: None,
            control: control_rx,
            user: user_rx,
        }),
        wake: Notify::new(),
        stopped: AtomicBool::new(false),
    }
}

impl StdinTx {
    fn lane(&self, lane: Lane) -> &LaneTx {
        match lane {
            Lane::Control => &self.control,
            Lane::User => &self.user,
        }
    }

    /// Nothing is admitted any more; senders waiting for room fail.
    fn close_lanes(&self) {
        self.control.space.close();
        self.user.space.close();
    }

    fn enqueue(
        &self,
        shared: &SessionRecord,
        lane: Lane,
        line: Bytes,
        done: Option<WriteDone>,
        permit: OwnedSemaphorePermit,
    ) -> Result<(), Closed> {
        let item = Item {
            line,
            written: 0,
            done,
            _permit: permit,
        };
        self.lane(lane).tx.send(item)?;
        self.write_now(shared);
        Ok(())
    }

    /// Writes what is queued if no one else is writing and the pipe takes
    /// it now; otherwise leaves it to the writer task.
    fn write_now(&self, shared: &SessionRecord) {
        if self.stopped.load(Ordering::Acquire) {
            return;
        }
        match self.io.try_lock() {
            Ok(mut io) if io.writer.is_some() => {
                if io.write_now(shared) == Progress::Blocked {
                    self.wake.notify_one();
                }
            }
            // Not installed yet, or closed: the writer task deals with it.
            Ok(_) => self.wake.notify_one(),
            // Someone is writing; it looks again before letting go.
            Err(_) => self.wake.notify_one(),
        }
    }

    /// Waits for room in `lane` (first come, first served), then queues.
    /// Cancel-safe: dropping the future before it resolves queues nothing.
    pub(crate) async fn push(
        &self,
        shared: &SessionRecord,
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
        self.enqueue(shared, lane, line, done, permit)
    }

    /// Queues now if `lane` has room.
    pub(crate) fn try_push(
        &self,
        shared: &SessionRecord,
        lane: Lane,
        line: Bytes,
        done: Option<WriteDone>,
    ) -> Result<(), TryPushError> {
        let l = self.lane(lane);
        match l.space.clone().try_acquire_many_owned(l.permits(&line)) {
            Ok(permit) => self
                .enqueue(shared, lane, line, done, permit)
                .map_err(|_| TryPushError::Closed),
            Err(TryAcquireError::NoPermits) => Err(TryPushError::Full(line, done)),
            Err(TryAcquireError::Closed) => Err(TryPushError::Closed),
        }
    }

    /// Bytes queued (or being written) in both lanes.
    pub(crate) fn queued_bytes(&self) -> u64 {
        self.control.queued() + self.user.queued()
    }

    /// Takes the control lane's queued lines, oldest first (tests, with no
    /// writer installed).
    #[cfg(test)]
    pub(crate) fn take_control_lines(&self) -> Vec<Bytes> {
        std::iter::from_fn(|| self.control.tx.try_recv())
            .map(|item| item.line)
            .collect()
    }
}

/// Queues a control line without making the caller wait: at once if the
/// control lane has room, else from a task that waits for it (the CLI is not
/// reading stdin; the line is written once it reads again, or dropped when
/// the session ends). For callers inside an actor's `handle`, which must
/// not wait.
pub(crate) fn push_control_detached(
    stdin: &Arc<StdinTx>,
    shared: &Arc<SessionRecord>,
    line: Bytes,
) {
    match stdin.try_push(shared, Lane::Control, line, None) {
        Ok(()) | Err(TryPushError::Closed) => {}
        Err(TryPushError::Full(line, done)) => {
            // Outside a runtime (a handler dropped as its runtime shuts
            // down) there is no session left to answer.
            let Ok(rt) = tokio::runtime::Handle::try_current() else {
                return;
            };
            let (stdin, shared) = (stdin.clone(), shared.clone());
            crate::task::spawn_on(&rt, async move {
                let _ = stdin.push(&shared, Lane::Control, line, done).await;
            });
        }
    }
}

/// Marks the writer gone when its task ends (or is aborted): waiting
/// senders fail, and the pipe is dropped so the far end reads EOF.
struct Stopped(Arc<StdinTx>);

impl Drop for Stopped {
    fn drop(&mut self) {
        let q = &self.0;
        q.stopped.store(true, Ordering::Release);
        q.close_lanes();
        if let Ok(mut io) = q.io.try_lock() {
            io.writer = None;
            io.control.close();
            io.user.close();
        }
    }
}

/// The writer task: installs the pipe, then writes whatever the pushers
/// could not write at once, waiting for the pipe. On `close`: writes what
/// is queued, then closes stdin (EOF); later lines are refused.
pub(crate) async fn writer_task(
    writer: BoxWriter,
    close: tokio_util::sync::CancellationToken,
    q: Arc<StdinTx>,
    shared: Arc<SessionRecord>,
) {
    let _stopped = Stopped(q.clone());
    q.io.lock().await.writer = Some(writer);
    let mut closed = false;
    loop {
        tokio::select! {
            biased;
            _ = close.cancelled(), if !closed => {
                closed = true;
                q.close_lanes();
                let mut io = q.io.lock().await;
                io.control.close();
                io.user.close();
                io.write_all(&shared).await;
                if let Some(mut w) = io.writer.take() {
                    let _ = w.shutdown().await;
                    drop(w);
                    shared.lifecycle(LifecycleEvent::StdinClosed);
                }
            }
            _ = q.wake.notified() => {
                q.io.lock().await.write_all(&shared).await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(max: usize) -> (Arc<SessionRecord>, Arc<StdinTx>) {
        let shared = Arc::new(SessionRecord::new(None, None, false, None, None));
        (shared, Arc::new(channel(max)))
    }

    // No writer is installed: lines stay queued and hold their bytes.
    #[tokio::test]
    async fn a_full_lane_refuses_and_the_other_lane_has_its_own_room() {
        let (s, q) = shared(10);
        q.try_push(&s, Lane::User, Bytes::from_static(b"12345678\n"), None)
            .unwrap();
        assert_eq!(q.queued_bytes(), 9);
        let full = q.try_push(&s, Lane::User, Bytes::from_static(b"ab\n"), None);
        assert!(matches!(full, Err(TryPushError::Full(..))));
        q.try_push(&s, Lane::Control, Bytes::from_static(b"c\n"), None)
            .unwrap();
        assert_eq!(q.queued_bytes(), 11);
    }

    #[tokio::test]
    async fn a_line_over_the_cap_takes_the_whole_lane() {
        let (s, q) = shared(4);
        q.try_push(&s, Lane::User, Bytes::from_static(b"0123456789\n"), None)
            .unwrap();
        assert_eq!(q.queued_bytes(), 4);
        let next = q.try_push(&s, Lane::User, Bytes::from_static(b"a\n"), None);
        assert!(matches!(next, Err(TryPushError::Full(..))));
    }

    #[tokio::test]
    async fn the_control_lane_is_written_first_and_closing_refuses_more() {
        let (s, q) = shared(1024);
        let (far, near) = tokio::io::duplex(1024);
        let close = tokio_util::sync::CancellationToken::new();
        q.try_push(&s, Lane::User, Bytes::from_static(b"user\n"), None)
            .unwrap();
        q.try_push(&s, Lane::Control, Bytes::from_static(b"control\n"), None)
            .unwrap();
        let task = tokio::spawn(writer_task(
            Box::new(near),
            close.clone(),
            q.clone(),
            s.clone(),
        ));
        close.cancel();
        let mut out = String::new();
        let mut far = far;
        tokio::io::AsyncReadExt::read_to_string(&mut far, &mut out)
            .await
            .unwrap();
        assert_eq!(out, "control\nuser\n");
        let after = q.push(&s, Lane::User, Bytes::from_static(b"late\n"), None);
        assert_eq!(after.await, Err(Closed));
        task.abort();
    }
}
