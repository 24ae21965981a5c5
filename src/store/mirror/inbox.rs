//! The bounded buffer between the read loop and a session's mirror task.
//!
//! The read loop only pushes; the task takes everything at once. When the
//! task falls behind by more than the byte cap, the policy
//! ([`StoreOverflow`](super::StoreOverflow)) decides: the oldest frames are
//! dropped and counted, so the task can report them; or nothing is dropped
//! and the read loop waits for [`room`](Inbox::room); or the frames go to a
//! second queue, the spill, that the task writes to a file (and from the
//! first spilled frame on, every frame goes there until the file is
//! replayed, so the order holds).

use std::collections::VecDeque;
use std::sync::Mutex;

use bytes::Bytes;
use serde::Deserialize;
use serde::de::IgnoredAny;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// One thing the read loop saw that the mirror cares about.
#[derive(Debug)]
pub(crate) enum Item {
    /// A raw `transcript_mirror` line.
    Mirror(Bytes),
    /// A `result` frame went by: the end of a turn.
    TurnEnd,
}

/// What the oldest-first overflow dropped since the task last looked.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Dropped {
    /// Frames dropped.
    pub(crate) frames: u64,
    /// Entries in them.
    pub(crate) entries: u64,
    /// The `filePath` of the last dropped frame, for the error message.
    pub(crate) file_path: Option<String>,
}

#[derive(Debug, Default)]
struct State {
    items: VecDeque<Item>,
    bytes: usize,
    /// Mirror frames among `items`.
    frames: usize,
    dropped: Dropped,
    /// The task waits with nothing of its own to persist and no deadline:
    /// the next push must wake it, or that frame would wait for a
    /// threshold or a turn's end with no bound.
    idle: bool,
    /// Frames for the spill file, oldest first (spill policy only).
    spill: VecDeque<Bytes>,
    spill_bytes: usize,
    /// Frames go to `spill` until the task has replayed the file.
    spilling: bool,
}

/// The inbox's side of the overflow policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Full {
    DropOldest,
    /// Admit, and make the read loop wait for room.
    Wait,
    /// Into the spill queue; the read loop waits while that is full.
    Spill,
}

/// When a push wakes the mirror task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Wake {
    /// Once this many mirror frames are queued...
    pub(crate) frames: usize,
    /// ...or this many bytes of them. A turn's end and the close always wake.
    pub(crate) bytes: usize,
}

impl Wake {
    /// Every push wakes the task.
    pub(crate) const EVERY_PUSH: Wake = Wake {
        frames: 0,
        bytes: 0,
    };
}

/// Shared by the read loop's hook (writer) and the mirror task (reader).
#[derive(Debug)]
pub(crate) struct Inbox {
    state: Mutex<State>,
    notify: Notify,
    /// Told when the task took frames: the read loop may wait for room.
    room: Notify,
    /// Told when the spill queue got its first frame.
    spilled: Notify,
    full: Full,
    /// Latched when the read loop let go of its hook: the CLI's output ended.
    closed: CancellationToken,
    max_bytes: usize,
    wake: Wake,
}

/// The fields of a mirror frame the overflow accounting needs.
#[derive(Deserialize)]
struct Counted {
    #[serde(rename = "filePath")]
    file_path: Option<String>,
    #[serde(default)]
    entries: Vec<IgnoredAny>,
}

impl Inbox {
    /// An inbox holding up to `max_bytes` of frames, waking its reader as
    /// `wake` says: a task that only appends per turn need not be woken
    /// (a thread hand-off) for every frame of a flood.
    pub(crate) fn new(max_bytes: usize, wake: Wake, full: Full) -> Self {
        Self {
            state: Mutex::new(State::default()),
            notify: Notify::new(),
            room: Notify::new(),
            spilled: Notify::new(),
            full,
            closed: CancellationToken::new(),
            max_bytes,
            wake,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // Only plain pushes and swaps happen under the lock: a poisoned one
        // still holds consistent data.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues `item` without waiting. A mirror frame that does not fit
    /// drops the oldest queued frames first, or goes to the spill, or is
    /// admitted anyway (the read loop then asks [`is_full`](Self::is_full)),
    /// as the policy says. One larger than the whole cap is admitted into
    /// an empty queue (it is bounded by the line limit).
    pub(crate) fn push(&self, item: Item) {
        let wake = {
            let mut st = self.lock();
            if let Item::Mirror(line) = &item {
                let over = st.bytes + line.len() > self.max_bytes && st.bytes > 0;
                if self.full == Full::Spill && (st.spilling || over) {
                    st.spilling = true;
                    st.spill_bytes += line.len();
                    st.spill.push_back(line.clone());
                    let first = st.spill.len() == 1;
                    drop(st);
                    if first {
                        self.spilled.notify_one();
                    }
                    return;
                }
                if self.full == Full::DropOldest {
                    Self::drop_oldest(&mut st, self.max_bytes - line.len().min(self.max_bytes));
                }
                st.bytes += line.len();
                st.frames += 1;
            }
            let wake = match item {
                Item::Mirror(_) => {
                    st.idle
                        || st.frames >= self.wake.frames
                        || st.bytes >= self.wake.bytes
                        || st.bytes >= self.max_bytes
                }
                Item::TurnEnd => true,
            };
            st.idle &= !wake;
            st.items.push_back(item);
            wake
        };
        if wake {
            self.notify.notify_one();
        }
    }

    /// Drops the oldest queued frames until at most `keep` bytes are left.
    fn drop_oldest(st: &mut State, keep: usize) {
        while st.bytes > keep {
            let Some(pos) = st.items.iter().position(|i| matches!(i, Item::Mirror(_))) else {
                break;
            };
            let Some(Item::Mirror(old)) = st.items.remove(pos) else {
                break;
            };
            st.bytes -= old.len();
            st.frames -= 1;
            let counted = serde_json::from_slice::<Counted>(&old).ok();
            st.dropped.frames += 1;
            if let Some(c) = counted {
                st.dropped.entries += c.entries.len() as u64;
                st.dropped.file_path = c.file_path.or(st.dropped.file_path.take());
            }
        }
    }

    /// The read loop must wait for [`room`](Self::room) before it reads on.
    pub(crate) fn is_full(&self) -> bool {
        let st = self.lock();
        match self.full {
            Full::DropOldest => false,
            Full::Wait => st.bytes >= self.max_bytes,
            Full::Spill => st.spill_bytes >= self.max_bytes,
        }
    }

    /// Resolves once the inbox has room again (the task took what was
    /// queued).
    pub(crate) async fn room(&self) {
        loop {
            let taken = self.room.notified();
            if !self.is_full() {
                return;
            }
            taken.await;
        }
    }

    /// Resolves once the spill queue has frames (maybe at once).
    pub(crate) async fn spilled(&self) {
        loop {
            let told = self.spilled.notified();
            if !self.lock().spill.is_empty() {
                return;
            }
            told.await;
        }
    }

    /// Takes the frames waiting for the spill file.
    pub(crate) fn take_spill(&self) -> Vec<Bytes> {
        let frames = {
            let mut st = self.lock();
            st.spill_bytes = 0;
            std::mem::take(&mut st.spill).into()
        };
        self.room.notify_one();
        frames
    }

    /// Whether mirror frames wait in the main queue (older than any spill).
    pub(crate) fn has_frames(&self) -> bool {
        self.lock().frames > 0
    }

    /// Ends spilling when no frame waits for the spill file: later frames
    /// queue normally again. `false`: some do, write them first.
    pub(crate) fn end_spill(&self) -> bool {
        let mut st = self.lock();
        if st.spill.is_empty() {
            st.spilling = false;
        }
        !st.spilling
    }

    /// The read loop is done: no more pushes.
    pub(crate) fn close(&self) {
        self.closed.cancel();
        self.notify.notify_one();
    }

    /// Resolves once the read loop is done.
    pub(crate) async fn closed(&self) {
        self.closed.cancelled().await;
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.is_cancelled()
    }

    /// Everything queued and dropped so far; waits while there is nothing
    /// and the inbox is open.
    #[cfg(test)]
    pub(crate) async fn take(&self) -> (Vec<Item>, Dropped) {
        self.take_by(None).await
    }

    /// [`take`](Self::take), waiting at most until `deadline` (then
    /// returning whatever is queued, maybe nothing). Without a deadline the
    /// next push wakes the task: nothing queued waits unboundedly.
    pub(crate) async fn take_by(
        &self,
        deadline: Option<tokio::time::Instant>,
    ) -> (Vec<Item>, Dropped) {
        loop {
            let notified = self.notify.notified();
            {
                let mut st = self.lock();
                let due = deadline.is_some_and(|d| d <= tokio::time::Instant::now());
                let spill = !st.spill.is_empty();
                if due || spill || !st.items.is_empty() || st.dropped.frames > 0 || self.is_closed()
                {
                    st.bytes = 0;
                    st.frames = 0;
                    st.idle = false;
                    let items = std::mem::take(&mut st.items).into();
                    let dropped = std::mem::take(&mut st.dropped);
                    drop(st);
                    self.room.notify_one();
                    return (items, dropped);
                }
                st.idle = deadline.is_none();
            }
            match deadline {
                Some(d) => {
                    let _ = tokio::time::timeout_at(d, notified).await;
                }
                None => notified.await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(path: &str, n: usize) -> Bytes {
        let entries: Vec<_> = (0..n).map(|i| serde_json::json!({ "i": i })).collect();
        let v =
            serde_json::json!({"type": "transcript_mirror", "filePath": path, "entries": entries});
        Bytes::from(v.to_string())
    }

    #[tokio::test]
    async fn overflow_drops_the_oldest_frames_and_counts_their_entries() {
        let first = frame("/p/a/s.jsonl", 3);
        let cap = first.len() * 2;
        let inbox = Inbox::new(cap, Wake::EVERY_PUSH, Full::DropOldest);
        inbox.push(Item::Mirror(first));
        inbox.push(Item::TurnEnd);
        inbox.push(Item::Mirror(frame("/p/a/s.jsonl", 3)));
        inbox.push(Item::Mirror(frame("/p/a/s.jsonl", 3)));
        let (items, dropped) = inbox.take().await;
        assert_eq!(dropped.frames, 1);
        assert_eq!(dropped.entries, 3);
        assert_eq!(dropped.file_path.as_deref(), Some("/p/a/s.jsonl"));
        // The turn marker after the dropped frame survives, in order.
        assert!(matches!(items[0], Item::TurnEnd));
        assert_eq!(items.len(), 3);
    }

    #[tokio::test]
    async fn frames_below_the_wake_threshold_wait_for_a_turn_end() {
        let inbox = Inbox::new(
            1 << 20,
            Wake {
                frames: 3,
                bytes: 1 << 20,
            },
            Full::DropOldest,
        );
        inbox.push(Item::Mirror(frame("/p/a/s.jsonl", 1)));
        inbox.push(Item::Mirror(frame("/p/a/s.jsonl", 1)));
        let asleep = tokio::time::timeout(std::time::Duration::ZERO, inbox.notify.notified());
        assert!(asleep.await.is_err(), "two frames do not wake the task");
        inbox.push(Item::TurnEnd);
        inbox.notify.notified().await;
        inbox.push(Item::Mirror(frame("/p/a/s.jsonl", 1)));
        inbox.notify.notified().await;
        let (items, _) = inbox.take().await;
        assert_eq!(items.len(), 4);
    }

    #[tokio::test]
    async fn take_returns_empty_once_closed() {
        let inbox = Inbox::new(1024, Wake::EVERY_PUSH, Full::DropOldest);
        inbox.close();
        let (items, dropped) = inbox.take().await;
        assert!(items.is_empty());
        assert_eq!(dropped, Dropped::default());
    }
}
