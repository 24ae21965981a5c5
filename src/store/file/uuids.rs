//! The uuids already in each transcript, remembered between appends so an
//! append reads only what other writers added since, not the whole file.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::store::StoreError;
use crate::store::store_entry::{pick, raw_str};

/// Transcripts remembered at most; past this the cache starts over (a
/// forgotten transcript is simply read again).
const MAX_TRANSCRIPTS: usize = 256;

/// Bytes of a transcript's start remembered to recognise the file.
const HEAD_BYTES: usize = 256;

/// What is known of one transcript file: which file (device, inode and
/// first bytes, so a file deleted and recreated by another process is
/// noticed even when its inode number is reused), how far it was read, and
/// the uuids in that part.
#[derive(Debug, Default)]
pub(super) struct Known {
    id: (u64, u64),
    head: Vec<u8>,
    len: u64,
    uuids: HashSet<String>,
}

/// One transcript's entry, locked on its own so appends to different
/// sessions never wait for each other's reads.
pub(super) type Shared = Arc<Mutex<Known>>;

#[derive(Debug, Default)]
pub(super) struct UuidCache {
    known: HashMap<PathBuf, Shared>,
}

impl UuidCache {
    /// The entry for the transcript at `path` (taken while the session
    /// lock is held, then locked by the caller).
    pub(super) fn entry(&mut self, path: &Path) -> Shared {
        if self.known.len() >= MAX_TRANSCRIPTS && !self.known.contains_key(path) {
            self.known.clear();
        }
        Arc::clone(self.known.entry(path.to_path_buf()).or_default())
    }

    /// Forget `path` and everything under it (deleted).
    pub(super) fn forget(&mut self, path: &Path) {
        self.known.retain(|known, _| !known.starts_with(path));
    }
}

impl Known {
    /// The uuids in `file` (the transcript at `path`, whose complete lines
    /// end at `len`), reading only what was not seen before. Call with the
    /// session lock held.
    pub(super) fn uuids(
        &mut self,
        path: &Path,
        file: &mut File,
        len: u64,
    ) -> Result<&HashSet<String>, StoreError> {
        let read_err = |e| StoreError::backend(format!("read {}", path.display()), e);
        let meta = file.metadata().map_err(read_err)?;
        let id = (meta.dev(), meta.ino());
        let head_len = usize::try_from(len).unwrap_or(usize::MAX).min(HEAD_BYTES);
        let mut head = vec![0; head_len];
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.read_exact(&mut head))
            .map_err(read_err)?;
        let same_start = head.starts_with(&self.head) || self.head.starts_with(&head);
        if self.id != id || self.len > len || !same_start {
            *self = Known {
                id,
                ..Known::default()
            };
        }
        if self.len < len {
            let mut tail = Vec::new();
            file.seek(SeekFrom::Start(self.len))
                .and_then(|_| file.take(len - self.len).read_to_end(&mut tail))
                .map_err(read_err)?;
            for line in tail.split(|&b| b == b'\n') {
                // A line that is not JSON is reported by `load`; it has no
                // uuid to deduplicate against.
                let Ok(text) = std::str::from_utf8(line) else {
                    continue;
                };
                let [uuid] = pick(text, &["uuid"]);
                if let Some(uuid) = uuid.and_then(raw_str).filter(|u| !u.is_empty()) {
                    self.uuids.insert(uuid.into_owned());
                }
            }
            self.len = len;
        }
        if self.head.len() < head.len() {
            self.head = head;
        }
        Ok(&self.uuids)
    }

    /// Record that this process appended `written` bytes holding
    /// `uuids` at the end of the transcript, so the next append does not
    /// read them back.
    pub(super) fn appended<'u>(&mut self, uuids: impl Iterator<Item = &'u str>, written: u64) {
        self.uuids.extend(uuids.map(str::to_owned));
        self.len += written;
    }
}
