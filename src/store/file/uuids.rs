//! The uuids already in each transcript, remembered between appends so an
//! append reads only what other writers added since, not the whole file.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::store::StoreError;
use crate::store::entry::entry_uuid;

/// Transcripts remembered at most; past this the cache starts over (a
/// forgotten transcript is simply read again).
const MAX_TRANSCRIPTS: usize = 256;

/// What is known of one transcript file: which file (device and inode, so
/// a deleted and recreated file is noticed), how far it was read, and the
/// uuids in that part.
#[derive(Debug, Default)]
struct Known {
    id: (u64, u64),
    len: u64,
    uuids: HashSet<String>,
}

#[derive(Debug, Default)]
pub(super) struct UuidCache {
    known: HashMap<PathBuf, Known>,
}

impl UuidCache {
    /// The uuids in `file` (the transcript at `path`, whose complete lines
    /// end at `len`), reading only what this cache has not seen. Call with
    /// the session lock held.
    pub(super) fn uuids(
        &mut self,
        path: &Path,
        file: &mut File,
        len: u64,
    ) -> Result<&mut HashSet<String>, StoreError> {
        let meta = file
            .metadata()
            .map_err(|e| StoreError::backend(format!("stat {}", path.display()), e))?;
        let id = (meta.dev(), meta.ino());
        if self.known.len() >= MAX_TRANSCRIPTS && !self.known.contains_key(path) {
            self.known.clear();
        }
        let known = self.known.entry(path.to_path_buf()).or_default();
        if known.id != id || known.len > len {
            *known = Known {
                id,
                ..Known::default()
            };
        }
        if known.len < len {
            let mut tail = Vec::new();
            file.seek(SeekFrom::Start(known.len))
                .and_then(|_| file.take(len - known.len).read_to_end(&mut tail))
                .map_err(|e| StoreError::backend(format!("read {}", path.display()), e))?;
            for line in tail.split(|&b| b == b'\n') {
                // A line that is not JSON is reported by `load`; it has no
                // uuid to deduplicate against.
                if let Ok(entry) = serde_json::from_slice::<serde_json::Value>(line) {
                    if let Some(uuid) = entry_uuid(&entry) {
                        known.uuids.insert(uuid.to_owned());
                    }
                }
            }
            known.len = len;
        }
        Ok(&mut known.uuids)
    }

    /// Record that this process appended `written` bytes at the end of the
    /// transcript, so the next append does not read them back.
    pub(super) fn advance(&mut self, path: &Path, written: u64) {
        if let Some(known) = self.known.get_mut(path) {
            known.len += written;
        }
    }

    /// Forget `path` and everything under it (deleted).
    pub(super) fn forget(&mut self, path: &Path) {
        self.known.retain(|known, _| !known.starts_with(path));
    }
}
