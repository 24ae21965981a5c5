//! [`LocalSessions`]: the CLI's own transcripts on this machine,
//! `<config>/projects/<project>/<session>.jsonl`, with subagent
//! transcripts under `<config>/projects/<project>/<session>/`.

use std::path::{Component, Path, PathBuf};

use tokio::io::AsyncWriteExt;

use super::error::SessionsError;
use crate::store::{SessionKey, StoreEntry};

/// The CLI's `projects` folder: where it writes session transcripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalSessions {
    projects_dir: PathBuf,
}

/// One local main transcript: its id, mtime (Unix epoch ms) and size.
#[derive(Debug, Clone)]
pub(crate) struct LocalFile {
    pub(crate) session_id: String,
    pub(crate) mtime: i64,
    pub(crate) size: u64,
}

impl LocalSessions {
    /// The transcripts under `projects_dir` (a `<config>/projects` folder).
    pub fn new(projects_dir: impl Into<PathBuf>) -> Self {
        Self {
            projects_dir: projects_dir.into(),
        }
    }

    /// The CLI's default: `$CLAUDE_CONFIG_DIR/projects`, else
    /// `$HOME/.claude/projects`.
    pub fn from_env() -> Result<Self, SessionsError> {
        let config = match std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| PathBuf::from(home).join(".claude"))
                .ok_or(SessionsError::NoConfigDir)?,
        };
        Ok(Self::new(config.join("projects")))
    }

    /// The `projects` folder read and written.
    pub fn projects_dir(&self) -> &Path {
        &self.projects_dir
    }

    fn project_dir(&self, project_key: &str) -> Result<PathBuf, SessionsError> {
        if single_component(project_key) {
            Ok(self.projects_dir.join(project_key))
        } else {
            Err(SessionsError::InvalidProjectKey {
                key: project_key.to_owned(),
            })
        }
    }

    /// Where `key`'s transcript is; the key's parts must be plain names.
    pub(crate) fn path_of(&self, key: &SessionKey) -> Result<PathBuf, SessionsError> {
        super::error::check_session_id(&key.session_id)?;
        let dir = self.project_dir(&key.project_key)?;
        match &key.subpath {
            None => Ok(dir.join(format!("{}.jsonl", key.session_id))),
            Some(subpath) => {
                if !subpath.split('/').all(single_component) {
                    return Err(SessionsError::InvalidProjectKey {
                        key: key.to_string(),
                    });
                }
                Ok(dir.join(&key.session_id).join(format!("{subpath}.jsonl")))
            }
        }
    }

    /// `key`'s entries in file order, or `None` if there is no such file.
    /// Blank lines, lines that are not JSON and non-objects are skipped, as
    /// the CLI does with a torn last line.
    pub(crate) async fn load(
        &self,
        key: &SessionKey,
    ) -> Result<Option<Vec<StoreEntry>>, SessionsError> {
        let path = self.path_of(key)?;
        let bytes = match tokio::fs::read(&path).await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(SessionsError::io(format!("read {}", path.display()), e)),
        };
        Ok(Some(parse_jsonl(&bytes)))
    }

    /// The main transcripts of `project_key` (none if it has no folder).
    pub(crate) async fn list(&self, project_key: &str) -> Result<Vec<LocalFile>, SessionsError> {
        let dir = self.project_dir(project_key)?;
        let mut read = match tokio::fs::read_dir(&dir).await {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(SessionsError::io(format!("list {}", dir.display()), e)),
        };
        let listing = |e| SessionsError::io(format!("list {}", dir.display()), e);
        let mut files = Vec::new();
        while let Some(entry) = read.next_entry().await.map_err(listing)? {
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if !crate::store::is_session_id(id) {
                continue;
            }
            // A file removed while listing is simply not listed.
            let Ok(meta) = entry.metadata().await else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            files.push(LocalFile {
                session_id: id.to_owned(),
                mtime: mtime_ms(&meta),
                size: meta.len(),
            });
        }
        Ok(files)
    }

    /// The project keys (folders) under the projects folder, sorted; none
    /// when it does not exist.
    pub(crate) async fn projects(&self) -> Result<Vec<String>, SessionsError> {
        let dir = &self.projects_dir;
        let mut read = match tokio::fs::read_dir(dir).await {
            Ok(read) => read,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(SessionsError::io(format!("list {}", dir.display()), e)),
        };
        let listing = |e| SessionsError::io(format!("list {}", dir.display()), e);
        let mut keys = Vec::new();
        while let Some(entry) = read.next_entry().await.map_err(listing)? {
            let is_dir = entry.file_type().await.is_ok_and(|t| t.is_dir());
            if let (true, Some(name)) = (is_dir, entry.file_name().to_str()) {
                keys.push(name.to_owned());
            }
        }
        keys.sort();
        Ok(keys)
    }

    /// The project holding a non-empty transcript of `session_id`: the
    /// first in key order, as the official SDKs search every project.
    pub(crate) async fn find(&self, session_id: &str) -> Result<Option<String>, SessionsError> {
        super::error::check_session_id(session_id)?;
        for project in self.projects().await? {
            let path = self.path_of(&SessionKey::new(&project, session_id))?;
            if tokio::fs::metadata(&path)
                .await
                .is_ok_and(|m| m.is_file() && m.len() > 0)
            {
                return Ok(Some(project));
            }
        }
        Ok(None)
    }

    /// A session's own folder (subagent transcripts, the archive mark).
    pub(crate) fn session_dir(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<PathBuf, SessionsError> {
        super::error::check_session_id(session_id)?;
        Ok(self.project_dir(project_key)?.join(session_id))
    }

    /// The `.meta.json` sidecar the CLI writes beside a subagent's
    /// transcript, when it is there and a JSON object.
    pub(crate) async fn sidecar(
        &self,
        key: &SessionKey,
    ) -> Result<Option<serde_json::Value>, SessionsError> {
        let path = self.path_of(key)?.with_extension("meta.json");
        let bytes = match tokio::fs::read(&path).await {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(SessionsError::io(format!("read {}", path.display()), e)),
        };
        // A corrupt sidecar is as good as none (the official SDKs agree).
        Ok(serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .filter(serde_json::Value::is_object))
    }

    /// Append `entries` to `key`'s transcript, which must exist (the CLI
    /// creates sessions; helpers only add to them).
    pub(crate) async fn append(
        &self,
        key: &SessionKey,
        entries: &[StoreEntry],
        create: bool,
    ) -> Result<(), SessionsError> {
        let path = self.path_of(key)?;
        let mut text = String::new();
        for entry in entries {
            text.push_str(&entry.to_string());
            text.push('\n');
        }
        if create {
            if let Some(parent) = path.parent() {
                tokio::fs::create_dir_all(parent)
                    .await
                    .map_err(|e| SessionsError::io(format!("create {}", parent.display()), e))?;
            }
        }
        let mut file = match tokio::fs::OpenOptions::new()
            .append(true)
            .create(create)
            .open(&path)
            .await
        {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SessionsError::not_found(&key.project_key, &key.session_id));
            }
            Err(e) => return Err(SessionsError::io(format!("open {}", path.display()), e)),
        };
        let write = |e| SessionsError::io(format!("append to {}", path.display()), e);
        file.write_all(text.as_bytes()).await.map_err(write)?;
        file.flush().await.map_err(write)
    }

    /// Delete a session's transcript and its folder of subagent
    /// transcripts.
    pub(crate) async fn delete(&self, key: &SessionKey) -> Result<(), SessionsError> {
        let path = self.path_of(&key.main())?;
        match tokio::fs::remove_file(&path).await {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(SessionsError::not_found(&key.project_key, &key.session_id));
            }
            Err(e) => return Err(SessionsError::io(format!("delete {}", path.display()), e)),
        }
        let dir = self.project_dir(&key.project_key)?.join(&key.session_id);
        match tokio::fs::remove_dir_all(&dir).await {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(SessionsError::io(format!("delete {}", dir.display()), e)),
        }
    }

    /// The subpaths (`subagents/agent-1`, ...) of a session's transcripts,
    /// sorted.
    pub(crate) async fn subkeys(
        &self,
        project_key: &str,
        session_id: &str,
    ) -> Result<Vec<String>, SessionsError> {
        super::error::check_session_id(session_id)?;
        let root = self.project_dir(project_key)?.join(session_id);
        let mut found = Vec::new();
        let mut pending = vec![(root.clone(), String::new())];
        while let Some((dir, prefix)) = pending.pop() {
            let mut read = match tokio::fs::read_dir(&dir).await {
                Ok(read) => read,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(SessionsError::io(format!("list {}", dir.display()), e)),
            };
            let listing = |e| SessionsError::io(format!("list {}", dir.display()), e);
            while let Some(entry) = read.next_entry().await.map_err(listing)? {
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                let Ok(kind) = entry.file_type().await else {
                    continue;
                };
                if kind.is_dir() {
                    pending.push((entry.path(), format!("{prefix}{name}/")));
                } else if let Some(stem) = name.strip_suffix(".jsonl") {
                    // Directly under the session folder is not a subpath.
                    if !prefix.is_empty() {
                        found.push(format!("{prefix}{stem}"));
                    }
                }
            }
        }
        found.sort();
        Ok(found)
    }
}

/// Whether `part` is one plain path component (no separators, not `.`/`..`).
fn single_component(part: &str) -> bool {
    let mut components = Path::new(part).components();
    matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(_)), None)
    ) && !part.contains('/')
}

pub(crate) fn mtime_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The JSON objects of a JSONL file, skipping what cannot be one.
pub(crate) fn parse_jsonl(bytes: &[u8]) -> Vec<StoreEntry> {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| std::str::from_utf8(line).ok())
        .filter_map(|line| StoreEntry::from_json(line).ok())
        .filter(StoreEntry::is_object)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torn_and_blank_lines_are_skipped() {
        let entries = parse_jsonl(b"{\"a\":1}\n\n[1]\n{\"b\":2}\n{\"torn\":");
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn keys_cannot_escape_the_projects_folder() {
        let local = LocalSessions::new("/p");
        let id = "00000000-0000-4000-8000-000000000000";
        assert!(local.path_of(&SessionKey::new("..", id)).is_err());
        assert!(local.path_of(&SessionKey::new("a/b", id)).is_err());
        assert!(local.path_of(&SessionKey::new("a", "../x")).is_err());
        assert!(
            local
                .path_of(&SessionKey::new("a", id).with_subpath("subagents/../../x"))
                .is_err()
        );
        assert_eq!(
            local.path_of(&SessionKey::new("a", id)).ok(),
            Some(PathBuf::from(format!("/p/a/{id}.jsonl")))
        );
    }
}
