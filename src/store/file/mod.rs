//! [`FileStore`]: session transcripts as JSONL files under one folder,
//! shared safely by every process on the machine.

mod layout;
mod lock;
mod ops;
mod uuids;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;

use self::layout::{SUMMARY_EXT, TRANSCRIPT_EXT};
use self::lock::Abandoned;
use self::uuids::UuidCache;
use super::StoreError;
use super::entry::{SessionListEntry, SessionSummary, StoreEntry};
use super::key::SessionKey;
use super::session_store::{SessionStore, StoreResult, check_append, check_key};

/// How long an append or delete waits by default for another writer of
/// the same session to finish.
const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(30);

/// A [`SessionStore`] in a local folder: the embedded default. Implements
/// every optional method.
///
/// Layout: `<root>/<project_key>/<session_id>.jsonl` for a main transcript,
/// `<root>/<project_key>/<session_id>/<subpath>.jsonl` for the others (the
/// CLI's own layout), and per session a summary and a lock file in
/// `<root>/<project_key>/.meta/`. Key parts must be usable as file names:
/// not empty, no `/`, `\` or NUL, not starting with `.`, not ending with
/// `.jsonl` (else [`StoreError::InvalidKey`]).
///
/// Appends write whole lines in one `O_APPEND` write under the session's
/// `flock` lock, so writers in several processes interleave whole batches,
/// each once, and the uuid check sees every earlier batch. A line torn by a
/// crash is ignored by loads and removed by the next append. The listed
/// `mtime` is the transcript file's modification time. All file I/O runs on
/// tokio's blocking threads.
///
/// **Persisted** means on disk: an append returns once its batch is
/// `fsync`ed (`fdatasync`; the folder too when the append created the
/// file), so it survives a crash of the machine, not only of the process.
/// [`FileStore::sync`]`(false)` leaves the flush to the kernel: a process
/// crash still loses nothing that was appended, a power loss may.
#[derive(Debug, Clone)]
pub struct FileStore {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    lock_timeout: Duration,
    /// `fsync` each append before it returns.
    sync: bool,
    uuids: Mutex<UuidCache>,
}

impl FileStore {
    /// A store in `root` (created on the first append).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                root: root.into(),
                lock_timeout: DEFAULT_LOCK_TIMEOUT,
                sync: true,
                uuids: Mutex::new(UuidCache::default()),
            }),
        }
    }

    /// A copy with `change` applied to its settings (and a fresh cache).
    fn with(self, change: impl FnOnce(&mut Duration, &mut bool)) -> Self {
        let (mut lock_timeout, mut sync) = (self.inner.lock_timeout, self.inner.sync);
        change(&mut lock_timeout, &mut sync);
        Self {
            inner: Arc::new(Inner {
                root: self.inner.root.clone(),
                lock_timeout,
                sync,
                uuids: Mutex::new(UuidCache::default()),
            }),
        }
    }

    /// How long appends and deletes wait for another writer of the same
    /// session (default 30 s) before failing with
    /// [`StoreError::LockTimeout`].
    pub fn lock_timeout(self, timeout: Duration) -> Self {
        self.with(|t, _| *t = timeout)
    }

    /// Whether each append is `fsync`ed before it returns (default `true`):
    /// with `false` an append is in the kernel's page cache when it
    /// returns, safe from a crash of this process but not of the machine.
    pub fn sync(self, sync: bool) -> Self {
        self.with(|_, s| *s = sync)
    }

    /// The store's folder.
    pub fn root(&self) -> &Path {
        &self.inner.root
    }

    /// Run `op` on a blocking thread; it is told (through [`Abandoned`])
    /// once this future is dropped.
    async fn blocking<T: Send + 'static>(
        &self,
        action: String,
        op: impl FnOnce(&Inner, &Abandoned) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        /// Sets the flag when the caller's future ends, done or dropped.
        struct OnDrop(Abandoned);
        impl Drop for OnDrop {
            fn drop(&mut self) {
                self.0.set();
            }
        }
        let inner = Arc::clone(&self.inner);
        let abandoned = Abandoned::default();
        let _on_drop = OnDrop(abandoned.clone());
        tokio::task::spawn_blocking(move || op(&inner, &abandoned))
            .await
            .map_err(|e| StoreError::backend(action, e))?
    }
}

impl SessionStore for FileStore {
    fn append<'a>(
        &'a self,
        key: &'a SessionKey,
        entries: &'a [StoreEntry],
    ) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_append(key, entries)?;
            layout::check(key)?;
            if entries.is_empty() {
                return Ok(());
            }
            let (key, entries) = (key.clone(), entries.to_vec());
            self.blocking(format!("append to {key}"), move |inner, abandoned| {
                ops::append(inner, &key, &entries, abandoned)
            })
            .await
        })
    }

    fn load<'a>(
        &'a self,
        key: &'a SessionKey,
    ) -> BoxFuture<'a, StoreResult<Option<Vec<StoreEntry>>>> {
        Box::pin(async move {
            check_key(key)?;
            layout::check(key)?;
            let path = layout::transcript(self.root(), key);
            self.blocking(format!("load {key}"), move |_, _| {
                ops::read_transcript(&path)
            })
            .await
        })
    }

    fn list_sessions<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionListEntry>>> {
        Box::pin(async move {
            if !layout::valid_project(project_key) {
                return Ok(Vec::new());
            }
            let dir = layout::project_dir(self.root(), project_key);
            self.blocking(
                format!("list the sessions of {project_key}"),
                move |_, _| {
                    let mut out = Vec::new();
                    for (session_id, path) in ops::files_with_ext(&dir, TRANSCRIPT_EXT)? {
                        // Deleted since listed: not a session any more.
                        if let Some(mtime) = ops::mtime_of(&path)? {
                            out.push(SessionListEntry { session_id, mtime });
                        }
                    }
                    Ok(out)
                },
            )
            .await
        })
    }

    fn list_session_summaries<'a>(
        &'a self,
        project_key: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<SessionSummary>>> {
        Box::pin(async move {
            if !layout::valid_project(project_key) {
                return Ok(Vec::new());
            }
            let dir = layout::meta_dir(self.root(), project_key);
            self.blocking(
                format!("list the summaries of {project_key}"),
                move |_, _| {
                    let mut out = Vec::new();
                    for (_, path) in ops::files_with_ext(&dir, SUMMARY_EXT)? {
                        out.extend(ops::read_summary(&path)?);
                    }
                    Ok(out)
                },
            )
            .await
        })
    }

    fn delete<'a>(&'a self, key: &'a SessionKey) -> BoxFuture<'a, StoreResult<()>> {
        Box::pin(async move {
            check_key(key)?;
            layout::check(key)?;
            let key = key.clone();
            self.blocking(format!("delete {key}"), move |inner, abandoned| {
                ops::delete(inner, &key, abandoned)
            })
            .await
        })
    }

    fn list_subkeys<'a>(
        &'a self,
        project_key: &'a str,
        session_id: &'a str,
    ) -> BoxFuture<'a, StoreResult<Vec<String>>> {
        Box::pin(async move {
            if !layout::valid_project(project_key) || !layout::valid_session(session_id) {
                return Ok(Vec::new());
            }
            let dir = layout::session_dir(self.root(), project_key, session_id);
            self.blocking(
                format!("list the subkeys of {project_key}/{session_id}"),
                move |_, _| ops::subkeys(&dir),
            )
            .await
        })
    }
}
