//! What a session's mirror does when the store falls behind.

use std::path::PathBuf;

/// What happens to mirrored frames when the store falls behind by more
/// than the mirror's queue
/// ([`MAX_QUEUED_BYTES`](super::MAX_QUEUED_BYTES) unless
/// `ClientBuilder::mirror_queue_bytes` says otherwise). Chosen with
/// `ClientBuilder::store_overflow`; the CLI's own session file is complete
/// under every policy.
///
/// The default is [`Spill`](Self::Spill): a local append outpaces any CLI
/// by orders of magnitude (the CLI mirrors what it writes to its own
/// session file, on the same kind of disk), so spilling keeps "no loss"
/// without slowing the session; should the disk lag too, the session
/// pauses rather than drop anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreOverflow {
    /// Drop the oldest queued frames: their entries count as unpersisted
    /// and one `system/mirror_error` says how many were lost. The session
    /// never waits for the store.
    DropOldest,
    /// Stop reading the CLI's stdout until the store catches up: the CLI
    /// is held back (its writes block once the pipe is full), nothing is
    /// dropped. Its other output (control requests, messages) waits too.
    Pause,
    /// Append overflowing frames to a local spill file and replay them, in
    /// order and before newer frames, once the store takes appends again;
    /// the file is removed once replayed. Frames still in it when the
    /// shutdown gives up stay on disk, and the `mirror_error` names the
    /// file. The file is created only when needed, in `dir`, by default
    /// `<the CLI's config dir>/mirror-spill`. A store that returns errors
    /// (its backend failed, a lock timed out) is treated like one that
    /// stalls: the failed batch is retried until the store takes it while
    /// newer frames spill, rather than dropped after
    /// [`APPEND_ATTEMPTS`](super::APPEND_ATTEMPTS). If the spill itself cannot
    /// keep up, the session pauses as with [`Pause`](Self::Pause); if it
    /// cannot be written, those frames are dropped and reported.
    Spill {
        /// Where spill files are written (created if missing).
        dir: Option<PathBuf>,
    },
}

impl Default for StoreOverflow {
    fn default() -> Self {
        Self::spill()
    }
}

impl StoreOverflow {
    /// The spill policy in the default folder.
    pub fn spill() -> Self {
        Self::Spill { dir: None }
    }
}
