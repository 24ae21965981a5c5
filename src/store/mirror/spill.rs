//! The spill file of the [`Spill`](super::StoreOverflow::Spill) policy:
//! mirror frames the store could not take yet, one per line, appended and
//! replayed by the session's mirror task alone (so writes and reads never
//! race), removed once replayed.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::{Bytes, BytesMut};
use tokio::fs::File;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// Spill files this process opened, for unique names.
static OPENED: AtomicU64 = AtomicU64::new(0);

/// Where a session's overflow goes, and how far it was replayed.
pub(super) struct Spill {
    dir: PathBuf,
    file: Option<Open>,
}

struct Open {
    path: PathBuf,
    write: File,
    read: BufReader<File>,
    /// Bytes written, and bytes replayed from the start of the file.
    written: u64,
    replayed: u64,
    /// Entries written and not replayed yet.
    entries: u64,
}

impl Spill {
    pub(super) fn new(dir: PathBuf) -> Self {
        Self { dir, file: None }
    }

    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Leaves the file as it is (unreadable, say) and starts a new one for
    /// later frames.
    pub(super) fn forget(&mut self) {
        self.file = None;
    }

    /// Frames were spilled and not all replayed yet.
    pub(super) fn has_frames(&self) -> bool {
        self.file.as_ref().is_some_and(|f| f.replayed < f.written)
    }

    /// The file, if one is open, and where its unreplayed part starts.
    pub(super) fn location(&self) -> Option<(&Path, u64)> {
        self.file.as_ref().map(|f| (f.path.as_path(), f.replayed))
    }

    /// Entries written and not replayed.
    pub(super) fn entries(&self) -> u64 {
        self.file.as_ref().map_or(0, |f| f.entries)
    }

    /// Appends `frames` (each `entries` as counted by the caller), opening
    /// the file first if needed.
    pub(super) async fn write(&mut self, frames: &[Bytes], entries: u64) -> io::Result<()> {
        if frames.is_empty() {
            return Ok(());
        }
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(Open::create(&self.dir).await?),
        };
        let mut buf = BytesMut::new();
        for frame in frames {
            buf.extend_from_slice(frame);
            buf.extend_from_slice(b"\n");
        }
        file.write.write_all(&buf).await?;
        // Written through before the replay reads it with its own handle.
        file.write.flush().await?;
        file.written += buf.len() as u64;
        file.entries += entries;
        Ok(())
    }

    /// Up to about `max_bytes` of the oldest unreplayed frames; empty once
    /// everything written was replayed.
    pub(super) async fn read(&mut self, max_bytes: usize) -> io::Result<Vec<Bytes>> {
        let Some(file) = &mut self.file else {
            return Ok(Vec::new());
        };
        let mut frames = Vec::new();
        let mut size = 0;
        while size < max_bytes && file.replayed < file.written {
            let mut line = Vec::new();
            let n = file.read.read_until(b'\n', &mut line).await?;
            if n == 0 {
                break;
            }
            file.replayed += n as u64;
            size += n;
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            frames.push(Bytes::from(line));
        }
        Ok(frames)
    }

    /// `entries` of what [`read`](Self::read) returned are in the store.
    pub(super) fn replayed(&mut self, entries: u64) {
        if let Some(f) = &mut self.file {
            f.entries = f.entries.saturating_sub(entries);
        }
    }

    /// Everything was replayed: the file goes.
    pub(super) async fn remove(&mut self) -> io::Result<()> {
        match self.file.take() {
            Some(f) => tokio::fs::remove_file(&f.path).await,
            None => Ok(()),
        }
    }
}

impl Open {
    async fn create(dir: &Path) -> io::Result<Self> {
        tokio::fs::create_dir_all(dir).await?;
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis());
        let name = format!(
            "mirror-{stamp}-{}-{}.ndjson",
            std::process::id(),
            OPENED.fetch_add(1, Ordering::Relaxed)
        );
        let path = dir.join(name);
        let write = tokio::fs::OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(&path)
            .await?;
        let read = File::open(&path).await?;
        Ok(Self {
            path,
            write,
            read: BufReader::new(read),
            written: 0,
            replayed: 0,
            entries: 0,
        })
    }
}
