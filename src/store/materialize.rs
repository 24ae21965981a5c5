//! Resuming from a store: a session's transcripts written back where the
//! CLI looks for them, so `--resume <id>` works on a machine (or in a
//! config directory) that never ran the session.

use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use super::{SessionKey, SessionStore, StoreEntry, StoreError};

/// Bound on each store call while materializing, unless
/// [`Options::load_timeout`](crate::options::Options::load_timeout) sets another.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a session could not be materialized from a store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResumeError {
    /// The store failed to load a transcript or list its subagents.
    #[error("could not load {key} from the session store")]
    Load {
        /// The transcript, as `project/session[/subpath]`.
        key: String,
        /// The store's error.
        #[source]
        source: StoreError,
    },
    /// The store failed to list a project's sessions (for
    /// `continue_conversation`: the newest one is resumed).
    #[error("could not list the sessions of project {project_key} in the session store")]
    List {
        /// The project key.
        project_key: String,
        /// The store's error.
        #[source]
        source: StoreError,
    },
    /// The store did not answer within the load bound ([`LOAD_TIMEOUT`]
    /// unless the options set another).
    #[error("loading {key} from the session store took over {} ms", after.as_millis())]
    Timeout {
        /// The transcript, as `project/session[/subpath]`.
        key: String,
        /// The bound that passed.
        after: Duration,
    },
    /// A transcript file could not be written.
    #[error("could not write the session file {}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The filesystem's error.
        #[source]
        source: std::io::Error,
    },
}

/// What [`materialize_session`] wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Materialized {
    /// Transcript files written (the main one and subagents').
    pub files: usize,
    /// Entries in them.
    pub entries: usize,
}

/// Whether `id` can name a session file: a UUID (what the CLI uses), so it
/// is safe as a path component.
pub fn is_session_id(id: &str) -> bool {
    crate::session_id::is_session_id(id)
}

/// Writes the session `key` (a main key) from `store` into `project_dir`
/// (the CLI's `<config>/projects/<project>`): `<session>.jsonl`, and each
/// subagent transcript at `<session>/<subpath>.jsonl` when the store can
/// list them. A file that already exists is left alone: the CLI's own copy
/// is at least as complete as the mirror of it. `None` when the store has
/// no entries for the session (the CLI then gets `--resume` unchanged).
/// Each store call is bounded by `within`.
pub async fn materialize_session(
    store: &dyn SessionStore,
    key: &SessionKey,
    project_dir: &Path,
    within: Duration,
) -> Result<Option<Materialized>, ResumeError> {
    let key = key.main();
    let Some(main) = load(store, &key, within).await?.filter(|e| !e.is_empty()) else {
        return Ok(None);
    };
    materialize_loaded(store, &key, main, project_dir, within)
        .await
        .map(Some)
}

/// [`materialize_session`] with the main transcript already loaded (the
/// `continue` path loads it to tell sidechains apart).
pub(crate) async fn materialize_loaded(
    store: &dyn SessionStore,
    key: &SessionKey,
    main: Vec<StoreEntry>,
    project_dir: &Path,
    within: Duration,
) -> Result<Materialized, ResumeError> {
    let key = key.main();
    let mut files = vec![(project_dir.join(format!("{}.jsonl", key.session_id)), main)];
    let mut sidecars = Vec::new();
    let listing = store.list_subkeys(&key.project_key, &key.session_id);
    let subpaths = match bounded(&key, listing, within).await {
        Ok(list) => list,
        Err(ResumeError::Load {
            source: StoreError::Unsupported { .. },
            ..
        }) => Vec::new(),
        Err(e) => return Err(e),
    };
    let session_dir = project_dir.join(&key.session_id);
    for subpath in subpaths {
        let Some(rel) = safe_relative(&subpath) else {
            tracing::warn!(%key, subpath, "resume: skipping a subpath that is not a relative path");
            continue;
        };
        let file = session_dir.join(format!("{}.jsonl", rel.display()));
        let sub = key.clone().with_subpath(subpath);
        if let Some(entries) = load(store, &sub, within).await? {
            let (meta, transcript) = split_agent_metadata(entries);
            if let Some(meta) = meta {
                sidecars.push((sidecar_path(&file), meta));
            }
            if !transcript.is_empty() {
                files.push((file, transcript));
            }
        }
    }
    let dir = project_dir.to_path_buf();
    tokio::task::spawn_blocking(move || write_missing(files, sidecars))
        .await
        .map_err(|e| ResumeError::Write {
            path: dir,
            source: std::io::Error::other(e.to_string()),
        })?
}

pub(crate) async fn load(
    store: &dyn SessionStore,
    key: &SessionKey,
    within: Duration,
) -> Result<Option<Vec<StoreEntry>>, ResumeError> {
    bounded(key, store.load(key), within).await
}

pub(crate) async fn bounded<T>(
    key: &SessionKey,
    call: impl Future<Output = Result<T, StoreError>>,
    within: Duration,
) -> Result<T, ResumeError> {
    match tokio::time::timeout(within, call).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(source)) => Err(ResumeError::Load {
            key: key.to_string(),
            source,
        }),
        Err(_) => Err(ResumeError::Timeout {
            key: key.to_string(),
            after: within,
        }),
    }
}

/// `subpath` as a relative path of plain components, or `None`.
fn safe_relative(subpath: &str) -> Option<PathBuf> {
    let path = Path::new(subpath);
    let plain = path.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && !subpath.is_empty()).then(|| path.to_path_buf())
}

/// Writes each file that does not exist yet, whole or not at all (a
/// temporary file renamed into place, owner-only: transcripts hold the
/// conversation).
fn write_missing(
    files: Vec<(PathBuf, Vec<StoreEntry>)>,
    sidecars: Vec<(PathBuf, StoreEntry)>,
) -> Result<Materialized, ResumeError> {
    let mut done = Materialized::default();
    for (path, meta) in sidecars {
        if path.exists() {
            continue;
        }
        write_atomically(&path, |out| {
            serde_json::to_writer(out, &meta).map_err(Into::into)
        })?;
    }
    for (path, entries) in files {
        if path.exists() {
            continue;
        }
        write_atomically(&path, |out| {
            for entry in &entries {
                out.write_all(entry.as_str().as_bytes())?;
                out.write_all(b"\n")?;
            }
            Ok(())
        })?;
        done.files += 1;
        done.entries += entries.len();
    }
    Ok(done)
}

/// Writes `path` whole or not at all: into a temporary file, owner-only,
/// renamed into place.
fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<(), ResumeError> {
    let fail = |source| ResumeError::Write {
        path: path.to_path_buf(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(fail)?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".resume-tmp");
    let tmp = PathBuf::from(tmp);
    let written = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut out = std::io::BufWriter::new(options.open(&tmp)?);
        fill(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}

/// Splits the CLI's `{"type": "agent_metadata", ...}` entries (its
/// `.meta.json` sidecar, mirrored into the subagent's stream) from the
/// transcript lines: the last one wins, as it is rewritten on resume, and
/// it is returned without its synthetic `type`.
fn split_agent_metadata(entries: Vec<StoreEntry>) -> (Option<StoreEntry>, Vec<StoreEntry>) {
    let mut meta = None;
    let mut transcript = Vec::with_capacity(entries.len());
    for entry in entries {
        if entry.str_field("type").as_deref() == Some("agent_metadata") {
            meta = Some(entry);
        } else {
            transcript.push(entry);
        }
    }
    // Rare and small: the one entry rebuilt as a tree to drop a member.
    let meta = meta.map(|entry| match entry.to_value() {
        Ok(serde_json::Value::Object(mut map)) => {
            map.remove("type");
            StoreEntry::from_value(&serde_json::Value::Object(map))
        }
        _ => entry,
    });
    (meta, transcript)
}

/// `agent-<id>.jsonl` -> `agent-<id>.meta.json`, beside it.
fn sidecar_path(transcript: &Path) -> PathBuf {
    transcript.with_extension("meta.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryStore;
    use serde_json::json;

    const ID: &str = "0b7c3f0e-5a51-4d1c-9d55-1f4f5e2f6a01";

    #[test]
    fn only_uuids_are_session_ids() {
        assert!(is_session_id(ID));
        for bad in [
            "",
            "../etc",
            "0b7c3f0e-5a51-4d1c-9d55",
            "0b7c3f0e/5a51-4d1c-9d55-1f4f5e2f6a01",
        ] {
            assert!(!is_session_id(bad), "{bad}");
        }
    }

    #[test]
    fn subpaths_must_stay_below_the_session() {
        assert!(safe_relative("subagents/agent-1").is_some());
        for bad in ["", "/abs", "../up", "a/../../b"] {
            assert!(safe_relative(bad).is_none(), "{bad}");
        }
    }

    #[tokio::test]
    async fn main_and_subagent_transcripts_are_written_where_the_cli_reads_them() {
        let store = MemoryStore::new();
        let key = SessionKey::new("p", ID);
        let sub = key.clone().with_subpath("subagents/agent-1");
        store
            .append(
                &key,
                &[json!({"uuid": "a"}).into(), json!({"uuid": "b"}).into()],
            )
            .await
            .unwrap();
        store
            .append(&sub, &[json!({"uuid": "c"}).into()])
            .await
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let done = materialize_session(&store, &key, dir.path(), LOAD_TIMEOUT)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((done.files, done.entries), (2, 3));
        let main = std::fs::read_to_string(dir.path().join(format!("{ID}.jsonl"))).unwrap();
        assert_eq!(main, "{\"uuid\":\"a\"}\n{\"uuid\":\"b\"}\n");
        let agent = dir.path().join(ID).join("subagents/agent-1.jsonl");
        assert_eq!(
            std::fs::read_to_string(agent).unwrap(),
            "{\"uuid\":\"c\"}\n"
        );

        // A second run finds both files and leaves them alone.
        let again = materialize_session(&store, &key, dir.path(), LOAD_TIMEOUT)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(again, Materialized::default());
    }

    #[tokio::test]
    async fn a_subagents_agent_metadata_entry_becomes_its_meta_json_sidecar() {
        let store = MemoryStore::new();
        let key = SessionKey::new("p", ID);
        let sub = key.clone().with_subpath("subagents/agent-1");
        store
            .append(&key, &[json!({"uuid": "a"}).into()])
            .await
            .unwrap();
        let old_meta = json!({"type": "agent_metadata", "agentType": "old"});
        let meta = json!({"type": "agent_metadata", "agentType": "general-purpose"});
        let line = json!({"uuid": "c", "isSidechain": true});
        store
            .append(&sub, &[old_meta.into(), (&line).into(), meta.into()])
            .await
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        materialize_session(&store, &key, dir.path(), LOAD_TIMEOUT)
            .await
            .unwrap();
        let agents = dir.path().join(ID).join("subagents");
        let transcript = std::fs::read_to_string(agents.join("agent-1.jsonl")).unwrap();
        assert_eq!(transcript, format!("{line}\n"), "transcript lines only");
        let sidecar = std::fs::read_to_string(agents.join("agent-1.meta.json")).unwrap();
        let sidecar: serde_json::Value = serde_json::from_str(&sidecar).unwrap();
        assert_eq!(
            sidecar,
            json!({"agentType": "general-purpose"}),
            "the last, untyped"
        );
    }

    #[tokio::test]
    async fn a_session_missing_from_the_store_materializes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let key = SessionKey::new("p", ID);
        let done = materialize_session(&MemoryStore::new(), &key, dir.path(), LOAD_TIMEOUT)
            .await
            .unwrap();
        assert_eq!(done, None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
