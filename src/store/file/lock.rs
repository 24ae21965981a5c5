//! The per-session advisory lock: one `flock`ed file per session, taken
//! by every writer of the session (any process on this machine) around the
//! uuid check, the append and the summary update.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::time::{Duration, Instant};

use rustix::fs::{FlockOperation, flock};
use rustix::io::Errno;

use crate::store::StoreError;

/// Held while the session is locked; dropping it closes the file, which
/// releases the lock (also when the process dies).
#[derive(Debug)]
pub(super) struct SessionLock {
    _file: File,
}

impl SessionLock {
    /// Take the lock at `path` (created if missing), waiting at most
    /// `timeout`. Blocks the calling thread: call from a blocking task.
    pub(super) fn acquire(path: &Path, timeout: Duration) -> Result<Self, StoreError> {
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
