//! The consumer queue's entries and the byte budget both of its ends share.

use tokio::sync::Semaphore;

use crate::error::SessionError;
use crate::session::frame::Frame;

/// One entry of the queue.
#[derive(Debug)]
pub(crate) enum Item {
    /// Frames, and the permits they hold together (returned once the
    /// consumer has taken the last of them, so the count never undershoots).
    Batch(Vec<Frame>, u32),
    /// The final error, after which the stream ends. Boxed: every
    /// session's queue allocates room for 32 items up front, sized by the
    /// largest variant.
    End(Box<SessionError>),
}

/// The byte budget shared by both ends.
#[derive(Debug)]
pub(crate) struct Budget {
    pub(super) sem: Semaphore,
    pub(super) cap: u32,
    /// Latched once the CLI has ended: what is left in the pipe is bounded
    /// by the pipe, so it is read regardless of the cap (nothing lost).
    pub(super) lifted: tokio_util::sync::CancellationToken,
}

impl Budget {
    /// A budget of `cap` bytes.
    pub(super) fn new(cap: u32) -> Self {
        Self {
            sem: Semaphore::new(cap as usize),
            cap,
            lifted: tokio_util::sync::CancellationToken::new(),
        }
    }

    /// Bytes currently queued.
    pub(crate) fn buffered(&self) -> u64 {
        if self.sem.is_closed() {
            return 0;
        }
        u64::from(self.cap).saturating_sub(self.sem.available_permits() as u64)
    }

    pub(crate) fn release(&self, permits: u32) {
        if permits > 0 {
            self.sem.add_permits(permits as usize);
        }
    }

    /// Stops enforcing the cap (wakes a waiting reader). Only for when the
    /// writer is gone and the rest of the stream is bounded.
    pub(crate) fn lift(&self) {
        self.lifted.cancel();
    }

    /// The consumer is gone: wake a waiting reader and admit nothing more.
    pub(crate) fn close(&self) {
        self.sem.close();
    }
}
