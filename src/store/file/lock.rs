//! The per-session advisory lock: one `flock`ed file per session, taken
//! by every writer of the session (any process on this machine) around the
//! uuid check, the append and the summary update.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, flock};
use rustix::io::Errno;

use crate::store::StoreError;

/// Set once the caller of a blocking operation stopped waiting for it (its
/// future was dropped, e.g. a mirror that gave up on a stalled store): the
/// lock wait then ends at once instead of holding a blocking thread, which
/// the runtime's shutdown waits for, through the whole lock timeout.
#[derive(Debug, Clone, Default)]
pub(super) struct Abandoned(Arc<AtomicBool>);

impl Abandoned {
    pub(super) fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Held while the session is locked; dropping it closes the file, which
/// releases the lock (also when the process dies).
#[derive(Debug)]
pub(super) struct SessionLock {
    _file: File,
}

impl SessionLock {
    /// Take the lock at `path` (created if missing), waiting at most
    /// `timeout`, and no longer once `abandoned` is set. Blocks the calling
    /// thread: call from a blocking task.
    pub(super) fn acquire(
        path: &Path,
        timeout: Duration,
        abandoned: &Abandoned,
    ) -> Result<Self, StoreError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| {
                StoreError::backend(format!("open the lock file {}", path.display()), e)
            })?;
        let start = Instant::now();
        let mut pause = Duration::from_millis(1);
        loop {
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => return Ok(Self { _file: file }),
                Err(Errno::WOULDBLOCK | Errno::INTR) => {}
                Err(e) => {
                    return Err(StoreError::backend(
                        format!("lock {}", path.display()),
                        std::io::Error::from(e),
                    ));
                }
            }
            if abandoned.is_set() {
                return Err(StoreError::backend(
                    format!("lock {}", path.display()),
                    std::io::Error::new(
                        std::io::ErrorKind::Interrupted,
                        "the caller stopped waiting",
                    ),
                ));
            }
            let waited = start.elapsed();
            if waited >= timeout {
                return Err(StoreError::LockTimeout {
                    lock: path.display().to_string(),
                    waited_ms: u64::try_from(waited.as_millis()).unwrap_or(u64::MAX),
                });
            }
            // Polling keeps the wait bounded without a signal to interrupt
            // a blocking flock; the pause grows to 20 ms.
            std::thread::sleep(pause.min(timeout - waited));
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_abandoned_wait_for_a_held_lock_ends_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.lock");
        // Another open file holds it: flock conflicts across open files,
        // in one process too.
        let held = SessionLock::acquire(&path, Duration::ZERO, &Abandoned::default()).unwrap();
        let abandoned = Abandoned::default();
        abandoned.set();
        let start = Instant::now();
        let err = SessionLock::acquire(&path, Duration::from_secs(60), &abandoned).unwrap_err();
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            start.elapsed()
        );
        assert!(matches!(err, StoreError::Backend { .. }), "{err}");
        drop(held);
        SessionLock::acquire(&path, Duration::ZERO, &abandoned).expect("free: taken at once");
    }
}
