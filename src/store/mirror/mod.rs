//! The transcript mirror: the CLI's `transcript_mirror` frames (printed
//! with `--session-mirror`, one per batch of lines it writes to a session
//! file) appended to a [`SessionStore`], off the read
//! loop.
//!
//! Each session gets one mirror task, so appends are in order per session.
//! The read loop hands frames to it through a buffer it never waits on;
//! the frames do not reach the consumer's stream (as in the official
//! SDKs). A store that fails is retried ([`APPEND_ATTEMPTS`] attempts,
//! [`APPEND_BACKOFF`] between them); then the batch is dropped and a
//! `system/mirror_error` message
//! ([`MirrorError`](crate::protocol::MirrorError)) appears in the session's
//! message stream. The session never waits for the store. Under the
//! spill policy a failure a later attempt may not meet (the backend, a
//! lock, contention) is treated as a stall instead: the batch is retried
//! every second until the store takes it, newer frames queue and then
//! spill, and the spill is replayed once the store answers again; only the
//! shutdown's give-up counts what is left (below).
//!
//! In batched mode the read loop wakes the task only at a turn's end, or
//! once [`MAX_PENDING_ENTRIES`] frames or [`MAX_PENDING_BYTES`] are queued
//! (when it would append early anyway), or for the first frame after the
//! task went idle: a flood costs no task wake-up per frame. Whatever the
//! task has taken in is appended within [`DEFAULT_PERSIST_WITHIN`] (1 s)
//! even mid-turn, so a host that dies mid-turn loses at most that much.
//!
//! **Overflow.** While the task waits for a slow store, frames queue in a
//! buffer of [`MAX_QUEUED_BYTES`]. What a frame that does not fit does is
//! the [`StoreOverflow`] policy: by default it is spilled to a local file
//! and replayed in order once the store takes appends again; or the read
//! loop pauses (backpressure to the CLI); or the oldest queued frames are
//! dropped, counted as unpersisted, with one `mirror_error` saying how many
//! were lost. (The CLI's own session file is complete either way.)
//!
//! **Shutdown.** Once the CLI's output has ended, the task appends what is
//! pending for at most the flush deadline, then gives up: one
//! `mirror_error` says how many entries the stalled store did not take, and
//! the [`SessionReport`](crate::extensions::SessionReport) of the shutdown counts the
//! entries (`mirror_persisted`, `mirror_unpersisted`). A store that stalls
//! or fails is never a silent loss. A shutdown cut short
//! ([`Client::hurry`](crate::client::Client::hurry), which a host's drain calls at
//! its deadline) gives the appends [`HURRIED_FLUSH`] (by default) instead: without that,
//! a drain killed its CLIs at the deadline and then still waited the flush
//! deadline for each stalled mirror, well past the deadline it promised.

mod inbox;
mod overflow;
mod spill;
mod task;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use claude_agent_actors::{DivertRoom, FrameDivert, SessionConfig};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use self::inbox::{Full, Inbox, Item, Wake};
use super::SessionStore;
use crate::protocol::Message;

pub use overflow::StoreOverflow;
pub use task::{APPEND_ATTEMPTS, APPEND_BACKOFF, APPEND_TIMEOUT};

/// Bytes of mirror frames queued for a session's mirror task before the
/// [`StoreOverflow`] policy applies: 8 MiB.
pub const MAX_QUEUED_BYTES: usize = 8 * 1024 * 1024;
/// Batched mode appends early once this many entries are pending.
pub const MAX_PENDING_ENTRIES: usize = 500;
/// Batched mode appends early once this many bytes are pending: 1 MiB.
pub const MAX_PENDING_BYTES: usize = 1024 * 1024;
/// Default bound on how long a mirrored entry waits before its append
/// starts: a host killed mid-turn loses at most about this much of the turn.
pub const DEFAULT_PERSIST_WITHIN: Duration = Duration::from_secs(1);
/// Default time the shutdown gives pending appends after the CLI exited.
pub const DEFAULT_FLUSH_DEADLINE: Duration = Duration::from_secs(10);
/// Default time a hurried shutdown ([`Client::hurry`](crate::client::Client::hurry))
/// still gives pending appends (the mirror settings' `hurried_flush`):
/// enough for a healthy store's last batch, short next to any drain
/// deadline.
pub const HURRIED_FLUSH: Duration = Duration::from_millis(500);
/// How long the task may take to count what it gave up. Fixed, not
/// configurable: giving up is local work (counting the entries still
/// pending, and those in the spill file), no store is asked, so it ends
/// in microseconds; the bound only keeps a task that is stuck (a bug)
/// from holding the shutdown.
const GIVE_UP_BOUND: Duration = Duration::from_secs(1);
/// What [`MirrorHandle::finish`] waits past the flush deadline. Fixed, not
/// configurable: the task's own flush deadline starts only once the CLI's
/// output has ended, which is usually just before `finish` is called but
/// can come a little after (the last lines still being read); this margin
/// covers that gap and is no budget anyone tunes (the flush deadline is).
const FINISH_MARGIN: Duration = Duration::from_secs(1);
/// `mirror_error` messages waiting for the consumer; more are logged and
/// dropped (their counts are in the session's report regardless).
const MAX_QUEUED_ERRORS: usize = 64;

/// When mirrored entries are appended to the store.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MirrorMode {
    /// Once per turn (at each `result`), when [`MAX_PENDING_ENTRIES`] or
    /// [`MAX_PENDING_BYTES`] are pending, once the oldest pending entry
    /// waited [`DEFAULT_PERSIST_WITHIN`] (see
    /// `ClientBuilder::mirror_persist_within`), and at shutdown; one append
    /// per transcript file each time.
    #[default]
    Batched,
    /// Each frame as it arrives.
    Eager,
}

/// How a session mirrors its transcript, when it has a store.
#[derive(Debug, Clone)]
pub(crate) struct MirrorSettings {
    /// Replaces the project part of every key (a tenant's own scope).
    pub(crate) project_key: Option<String>,
    pub(crate) mode: MirrorMode,
    pub(crate) flush_deadline: Duration,
    /// Entries taken in are persisted within this, even mid-turn; `None`:
    /// only at a turn's end, a threshold, or shutdown.
    pub(crate) persist_within: Option<Duration>,
    pub(crate) overflow: StoreOverflow,
    /// The queue's cap, [`MAX_QUEUED_BYTES`] unless changed.
    pub(crate) queue_bytes: usize,
    /// Bound on one append, [`APPEND_TIMEOUT`] (60 s) unless changed.
    pub(crate) append_timeout: Duration,
    /// What a hurried shutdown still gives pending appends,
    /// [`HURRIED_FLUSH`] (500 ms) unless changed.
    pub(crate) hurried_flush: Duration,
}

impl Default for MirrorSettings {
    fn default() -> Self {
        Self {
            project_key: None,
            mode: MirrorMode::default(),
            flush_deadline: DEFAULT_FLUSH_DEADLINE,
            persist_within: Some(DEFAULT_PERSIST_WITHIN),
            overflow: StoreOverflow::default(),
            queue_bytes: MAX_QUEUED_BYTES,
            append_timeout: APPEND_TIMEOUT,
            hurried_flush: HURRIED_FLUSH,
        }
    }
}

impl MirrorSettings {
    /// The spill policy's folder (`None`: another policy); by default
    /// beside the CLI's `projects` folder.
    pub(crate) fn spill_dir(&self, projects_dir: &std::path::Path) -> Option<PathBuf> {
        match &self.overflow {
            StoreOverflow::Spill { dir: Some(dir) } => Some(dir.clone()),
            StoreOverflow::Spill { dir: None } => Some(
                projects_dir
                    .parent()
                    .unwrap_or(projects_dir)
                    .join("mirror-spill"),
            ),
            _ => None,
        }
    }
}

/// What the read loop runs for the mirror: the divert, and for the pause
/// and spill policies the wait for room.
pub(crate) struct ReadLoopHooks {
    divert: FrameDivert,
    room: Option<DivertRoom>,
}

impl ReadLoopHooks {
    pub(crate) fn apply(self, config: SessionConfig) -> SessionConfig {
        let config = config.divert(self.divert);
        match self.room {
            Some(room) => config.divert_room(room),
            None => config,
        }
    }
}

/// Entries the mirror persisted and did not, so far.
#[derive(Debug, Default)]
pub(crate) struct Counts {
    persisted: AtomicU64,
    unpersisted: AtomicU64,
}

impl Counts {
    pub(crate) fn persisted(&self, n: usize) {
        self.persisted.fetch_add(n as u64, Ordering::Relaxed);
    }

    pub(crate) fn unpersisted(&self, n: u64) {
        self.unpersisted.fetch_add(n, Ordering::Relaxed);
    }

    /// `(persisted, unpersisted)`.
    pub(crate) fn get(&self) -> (u64, u64) {
        (
            self.persisted.load(Ordering::Relaxed),
            self.unpersisted.load(Ordering::Relaxed),
        )
    }
}

/// The client's side of a running mirror.
pub(crate) struct MirrorHandle {
    pub(crate) counts: Arc<Counts>,
    /// Latched when the task ended (everything appended or given up).
    pub(crate) finished: CancellationToken,
    /// Tells the task to give up what is pending now.
    pub(crate) give_up: CancellationToken,
    pub(crate) flush_deadline: Duration,
    pub(crate) hurried_flush: Duration,
}

impl MirrorHandle {
    /// Waits for the task to end (bounded: its own flush deadline, plus
    /// [`FINISH_MARGIN`] in case the CLI's output has not ended yet), then
    /// the counts. Once `hurried` completes, the task gets the settings'
    /// `hurried_flush` more, then gives up (counting and reporting what is
    /// left).
    pub(crate) async fn finish(&self, hurried: impl Future<Output = ()>) -> (u64, u64) {
        let bound = self.flush_deadline + FINISH_MARGIN;
        let hurried_flush = self.hurried_flush;
        let hurried = async {
            hurried.await;
            tokio::time::sleep(hurried_flush).await;
        };
        tokio::select! {
            _ = tokio::time::timeout(bound, self.finished.cancelled()) => {}
            () = hurried => {
                self.give_up.cancel();
                let _ = tokio::time::timeout(GIVE_UP_BOUND, self.finished.cancelled()).await;
            }
        }
        self.counts.get()
    }
}

/// Closes the inbox when the read loop drops its hook.
struct Writer(Arc<Inbox>);

impl Drop for Writer {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Starts the mirror task for one session: returns the read loop's hook,
/// the client's handle and the receiver of `mirror_error` messages.
/// `projects_dir` is the CLI's `<config dir>/projects`.
pub(crate) fn start(
    store: Arc<dyn SessionStore>,
    settings: &MirrorSettings,
    projects_dir: PathBuf,
) -> (ReadLoopHooks, MirrorHandle, mpsc::Receiver<Message>) {
    // Batched mode appends per turn or once this much is pending: the task
    // need not look earlier.
    let wake = match settings.mode {
        MirrorMode::Batched => Wake {
            frames: MAX_PENDING_ENTRIES,
            bytes: MAX_PENDING_BYTES,
        },
        MirrorMode::Eager => Wake::EVERY_PUSH,
    };
    let full = match settings.overflow {
        StoreOverflow::DropOldest => Full::DropOldest,
        StoreOverflow::Pause => Full::Wait,
        StoreOverflow::Spill { .. } => Full::Spill,
    };
    let inbox = Arc::new(Inbox::new(settings.queue_bytes, wake, full));
    let counts = Arc::new(Counts::default());
    let finished = CancellationToken::new();
    let give_up = CancellationToken::new();
    let (errors_tx, errors_rx) = mpsc::channel(MAX_QUEUED_ERRORS);
    let worker = task::Worker::new(store, settings, projects_dir, counts.clone(), errors_tx)
        .give_up_on(give_up.clone());
    let done = finished.clone();
    let task_inbox = inbox.clone();
    let room = (full != Full::DropOldest).then(|| wait_for_room(inbox.clone(), finished.clone()));
    crate::task::spawn(async move {
        let _done = done.drop_guard();
        worker.run(task_inbox).await;
    });
    let writer = Writer(inbox);
    let divert: FrameDivert = Box::new(move |frame| match frame.kind.as_str() {
        "transcript_mirror" => {
            writer.0.push(Item::Mirror(frame.line.clone()));
            true
        }
        "result" => {
            writer.0.push(Item::TurnEnd);
            false
        }
        _ => false,
    });
    let handle = MirrorHandle {
        counts,
        finished,
        give_up,
        flush_deadline: settings.flush_deadline,
        hurried_flush: settings.hurried_flush,
    };
    (ReadLoopHooks { divert, room }, handle, errors_rx)
}

/// The read loop's wait while `inbox` is full: until the task made room,
/// or ended.
fn wait_for_room(inbox: Arc<Inbox>, finished: CancellationToken) -> DivertRoom {
    Box::new(move || {
        if !inbox.is_full() || finished.is_cancelled() {
            return None;
        }
        let (inbox, finished) = (inbox.clone(), finished.clone());
        Some(Box::pin(async move {
            tokio::select! {
                () = inbox.room() => {}
                () = finished.cancelled() => {}
            }
        }))
    })
}

/// The CLI's `projects` folder for a session whose own environment
/// (`Options::env`, set on top of ours) is `env`: under `CLAUDE_CONFIG_DIR`,
/// else under `$HOME/.claude`, each taken from the session's environment
/// first, then from this process's.
pub(crate) fn projects_dir(env: &[(std::ffi::OsString, std::ffi::OsString)]) -> PathBuf {
    let var = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var_os(name))
            .filter(|v| !v.is_empty())
    };
    let config = match var("CLAUDE_CONFIG_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(var("HOME").unwrap_or_default()).join(".claude"),
    };
    config.join("projects")
}
