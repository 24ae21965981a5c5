//! The file store's operations, run on blocking threads.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::PoisonError;
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::Inner as FileStore;
use super::layout;
use super::layout::TRANSCRIPT_EXT;
use super::lock::{Abandoned, SessionLock};
use super::uuids::Known;
use crate::store::entry::{SessionSummary, StoreEntry};
use crate::store::summary::fold_entries;
use crate::store::{SessionKey, StoreError, fold_session_summary};

/// The summary sidecar: the summary and how many bytes of the transcript
/// it covers, so a summary that missed an append (a writer died between
/// the two) is rebuilt from the transcript instead of staying wrong.
#[derive(Debug, Serialize, Deserialize)]
struct Sidecar {
    #[serde(flatten)]
    summary: SessionSummary,
    covers_bytes: u64,
}

fn io_err(action: &str, path: &Path) -> impl FnOnce(std::io::Error) -> StoreError {
    let action = format!("{action} {}", path.display());
    move |e| StoreError::backend(action, e)
}

pub(super) fn append(
    store: &FileStore,
    key: &SessionKey,
    entries: &[StoreEntry],
    abandoned: &Abandoned,
) -> Result<(), StoreError> {
    let path = layout::transcript(&store.root, key);
    let meta_dir = layout::meta_dir(&store.root, &key.project_key);
    fs::create_dir_all(&meta_dir).map_err(io_err("create", &meta_dir))?;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io_err("create", parent))?;
    }
    let _lock = SessionLock::acquire(
        &layout::lock(&store.root, key),
        store.lock_timeout,
        abandoned,
    )?;
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(&path)
        .map_err(io_err("open", &path))?;
    let len = drop_torn_tail(&mut file, &path)?;

    let shared = store
        .uuids
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(&path);
    let mut known = shared.lock().unwrap_or_else(PoisonError::into_inner);
    let stored = known.uuids(&path, &mut file, len)?;
    let fresh = crate::store::entry::fresh_entries(entries, |u| stored.contains(u));
    if fresh.is_empty() {
        return Ok(());
    }
    // Each entry's text is its line as is: JSON text has no raw newline.
    let mut buf = Vec::new();
    for (entry, _) in &fresh {
        buf.extend_from_slice(entry.as_str().as_bytes());
        buf.push(b'\n');
    }
    // One write of whole lines with O_APPEND: a crash leaves at worst a
    // torn last line, which loads ignore and the next append removes.
    if let Err(e) = file.write_all(&buf) {
        // How much reached the file is unknown: read it back next time.
        *known = Known::default();
        return Err(io_err("append to", &path)(e));
    }
    if store.sync {
        if let Err(e) = sync(&file, &path, len == 0) {
            *known = Known::default();
            return Err(e);
        }
    }
    known.appended(
        fresh.iter().filter_map(|(_, uuid)| uuid.as_deref()),
        buf.len() as u64,
    );
    drop(known);

    if key.is_main() {
        let mtime = file_mtime_ms(&file, &path)?;
        let fresh: Vec<&StoreEntry> = fresh.into_iter().map(|(entry, _)| entry).collect();
        update_summary(
            store,
            key,
            &path,
            len,
            len + buf.len() as u64,
            &fresh,
            mtime,
        )?;
    }
    Ok(())
}

/// Persisted means on disk: the file's data, and the folder's entry when
/// the append created the file (`created`).
fn sync(file: &File, path: &Path, created: bool) -> Result<(), StoreError> {
    file.sync_data().map_err(io_err("fsync", path))?;
    match path.parent() {
        Some(parent) if created => File::open(parent)
            .and_then(|dir| dir.sync_all())
            .map_err(io_err("fsync", parent)),
        _ => Ok(()),
    }
}

/// Cut a last line without its newline (a writer died mid-write); returns
/// the length of the complete lines. Call with the session lock held.
fn drop_torn_tail(file: &mut File, path: &Path) -> Result<u64, StoreError> {
    let len = file.metadata().map_err(io_err("stat", path))?.len();
    let mut end = len;
    let mut chunk = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let part = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_exact(part))
            .map_err(io_err("read", path))?;
        if let Some(pos) = part.iter().rposition(|&b| b == b'\n') {
            end = start + pos as u64 + 1;
            break;
        }
        end = start;
    }
    if end != len {
        file.set_len(end)
            .map_err(io_err("truncate the torn last line of", path))?;
    }
    Ok(end)
}

fn update_summary(
    store: &FileStore,
    key: &SessionKey,
    transcript: &Path,
    old_len: u64,
    new_len: u64,
    fresh: &[&StoreEntry],
    mtime: i64,
) -> Result<(), StoreError> {
    let path = layout::summary(&store.root, key);
    let prev =
        match fs::read(&path) {
            Ok(bytes) => Some(serde_json::from_slice::<Sidecar>(&bytes).map_err(|e| {
                StoreError::Corrupt {
                    location: path.display().to_string(),
                    what: format!("not a summary: {e}"),
                }
            })?),
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(io_err("read", &path)(e)),
        };
    let mut summary = match prev {
        Some(prev) if prev.covers_bytes == old_len => {
            fold_entries(Some(&prev.summary), key, fresh.iter().copied())
        }
        None if old_len == 0 => fold_entries(None, key, fresh.iter().copied()),
        // Out of step with the transcript: fold it all again.
        _ => {
            let all = read_transcript(transcript)?.unwrap_or_default();
            fold_session_summary(None, key, &all)
        }
    };
    summary.mtime = mtime;
    let sidecar = Sidecar {
        summary,
        covers_bytes: new_len,
    };
    let bytes = serde_json::to_vec(&sidecar)
        .map_err(|e| StoreError::backend(format!("encode the summary of {key}"), e))?;
    // Write then rename, so readers see the old summary or the new one.
    let tmp = path.with_extension("json.tmp");
    fs::write(&tmp, bytes).map_err(io_err("write", &tmp))?;
    fs::rename(&tmp, &path).map_err(io_err("replace", &path))
}

fn file_mtime_ms(file: &File, path: &Path) -> Result<i64, StoreError> {
    let modified = file
        .metadata()
        .and_then(|m| m.modified())
        .map_err(io_err("stat", path))?;
    Ok(modified
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)))
}

/// Every complete line of the transcript at `path` as an entry; `None` if
/// there is no such file. A last line without its newline is being written
/// or was torn by a crash, and is not an entry.
pub(super) fn read_transcript(path: &Path) -> Result<Option<Vec<StoreEntry>>, StoreError> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err("read", path)(e)),
    };
    let Some(end) = bytes.iter().rposition(|&b| b == b'\n') else {
        return Ok(Some(Vec::new()));
    };
    let mut entries = Vec::new();
    for (index, line) in bytes[..end].split(|&b| b == b'\n').enumerate() {
        if line.is_empty() {
            continue;
        }
        let entry = serde_json::from_slice(line).map_err(|e| StoreError::Corrupt {
            location: format!("{} line {}", path.display(), index + 1),
            what: format!("not a JSON entry: {e}"),
        })?;
        entries.push(entry);
    }
    Ok(Some(entries))
}

/// `(name without extension, path)` of each `*{ext}` file in `dir`.
pub(super) fn files_with_ext(dir: &Path, ext: &str) -> Result<Vec<(String, PathBuf)>, StoreError> {
    let read = match fs::read_dir(dir) {
        Ok(read) => read,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_err("list", dir)(e)),
    };
    let mut out = Vec::new();
    for item in read {
        let item = item.map_err(io_err("list", dir))?;
        let name = item.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(ext)) else {
            continue;
        };
        if item
            .file_type()
            .map_err(io_err("stat", &item.path()))?
            .is_file()
        {
            out.push((stem.to_owned(), item.path()));
        }
    }
    Ok(out)
}

pub(super) fn mtime_of(path: &Path) -> Result<Option<i64>, StoreError> {
    match File::open(path) {
        Ok(file) => file_mtime_ms(&file, path).map(Some),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("open", path)(e)),
    }
}

pub(super) fn read_summary(path: &Path) -> Result<Option<SessionSummary>, StoreError> {
    match fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<Sidecar>(&bytes)
            .map(|s| Some(s.summary))
            .map_err(|e| StoreError::Corrupt {
                location: path.display().to_string(),
                what: format!("not a summary: {e}"),
            }),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err("read", path)(e)),
    }
}

pub(super) fn delete(
    store: &FileStore,
    key: &SessionKey,
    abandoned: &Abandoned,
) -> Result<(), StoreError> {
    let lock_path = layout::lock(&store.root, key);
    if !lock_path.parent().is_some_and(Path::exists) {
        return Ok(()); // nothing was ever written to this project
    }
    let _lock = SessionLock::acquire(&lock_path, store.lock_timeout, abandoned)?;
    let transcript = layout::transcript(&store.root, key);
    remove_file(&transcript)?;
    let mut cache = store.uuids.lock().unwrap_or_else(PoisonError::into_inner);
    cache.forget(&transcript);
    if key.is_main() {
        remove_file(&layout::summary(&store.root, key))?;
        let dir = layout::session_dir(&store.root, &key.project_key, &key.session_id);
        match fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(io_err("delete", &dir)(e)),
        }
        cache.forget(&dir);
    }
    Ok(())
}

fn remove_file(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_err("delete", path)(e)),
    }
}

/// The subpath of every transcript under `dir`, `/`-joined.
pub(super) fn subkeys(dir: &Path) -> Result<Vec<String>, StoreError> {
    let mut out = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = pending.pop() {
        let read = match fs::read_dir(&folder) {
            Ok(read) => read,
            Err(e) if e.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(io_err("list", &folder)(e)),
        };
        for item in read {
            let item = item.map_err(io_err("list", &folder))?;
            let Some(name) = item.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let kind = item.file_type().map_err(io_err("stat", &item.path()))?;
            if kind.is_dir() {
                pending.push((item.path(), format!("{prefix}{name}/")));
            } else if let Some(stem) = name.strip_suffix(TRANSCRIPT_EXT).filter(|_| kind.is_file())
            {
                out.push(format!("{prefix}{stem}"));
            }
        }
    }
    Ok(out)
}
