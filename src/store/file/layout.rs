//! Where the file store keeps each transcript, summary and lock, and which
//! key parts it accepts so that no two keys share a file.
//!
//! ```text
//! <root>/<project>/<session>.jsonl                 main transcript
//! <root>/<project>/<session>/<subpath>.jsonl       subpath transcripts
//! <root>/<project>/.meta/<session>.summary.json    the session's summary
//! <root>/<project>/.meta/<session>.lock            the session's write lock
//! ```

use std::path::{Path, PathBuf};

use crate::store::{SessionKey, StoreError};

pub(super) const META_DIR: &str = ".meta";
pub(super) const TRANSCRIPT_EXT: &str = ".jsonl";
pub(super) const SUMMARY_EXT: &str = ".summary.json";

/// Why `part` cannot be a path component here: it would escape its folder,
/// collide with the metadata folder, or collide with a transcript file.
fn component_problem(part: &str) -> Option<&'static str> {
    if part.is_empty() {
        Some("is empty")
    } else if part.starts_with('.') {
        Some("starts with '.'")
    } else if part.contains(['/', '\\', '\0']) {
        Some("contains '/', '\\' or NUL")
    } else if part.ends_with(TRANSCRIPT_EXT) {
        Some("ends with .jsonl")
    } else {
        None
    }
}

fn check_part(key: &SessionKey, what: &str, part: &str) -> Result<(), StoreError> {
    match component_problem(part) {
        Some(problem) => Err(StoreError::invalid_key(
            key,
            format!("the file store's {what} {problem}"),
        )),
        None => Ok(()),
    }
}

/// Check that every part of `key` maps to its own file.
pub(super) fn check(key: &SessionKey) -> Result<(), StoreError> {
    check_part(key, "project key", &key.project_key)?;
    check_part(key, "session id", &key.session_id)?;
    if let Some(subpath) = &key.subpath {
        for part in subpath.split('/') {
            check_part(key, "subpath component", part)?;
        }
    }
    Ok(())
}

/// Whether `project_key` can name a project folder (else it has none).
pub(super) fn valid_project(project_key: &str) -> bool {
    component_problem(project_key).is_none()
}

/// Whether `session_id` can name a session (else it has nothing stored).
pub(super) fn valid_session(session_id: &str) -> bool {
    component_problem(session_id).is_none()
}

pub(super) fn project_dir(root: &Path, project_key: &str) -> PathBuf {
    root.join(project_key)
}

pub(super) fn meta_dir(root: &Path, project_key: &str) -> PathBuf {
    project_dir(root, project_key).join(META_DIR)
}

/// The folder holding a session's subpath transcripts.
pub(super) fn session_dir(root: &Path, project_key: &str, session_id: &str) -> PathBuf {
    project_dir(root, project_key).join(session_id)
}

pub(super) fn transcript(root: &Path, key: &SessionKey) -> PathBuf {
    match &key.subpath {
        None => {
            project_dir(root, &key.project_key).join(format!("{}{TRANSCRIPT_EXT}", key.session_id))
        }
        Some(subpath) => {
            let mut path = session_dir(root, &key.project_key, &key.session_id);
            path.extend(subpath.split('/').map(|part| part.to_owned()));
            let name = format!(
                "{}{TRANSCRIPT_EXT}",
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            path.set_file_name(name);
            path
        }
    }
}

pub(super) fn summary(root: &Path, key: &SessionKey) -> PathBuf {
    meta_dir(root, &key.project_key).join(format!("{}{SUMMARY_EXT}", key.session_id))
}

pub(super) fn lock(root: &Path, key: &SessionKey) -> PathBuf {
    meta_dir(root, &key.project_key).join(format!("{}.lock", key.session_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_map_to_the_documented_files() {
        let root = Path::new("/r");
        let main = SessionKey::new("p", "s");
        assert_eq!(transcript(root, &main), Path::new("/r/p/s.jsonl"));
        assert_eq!(
            transcript(root, &main.clone().with_subpath("subagents/agent-1")),
            Path::new("/r/p/s/subagents/agent-1.jsonl")
        );
        assert_eq!(
            transcript(root, &main.clone().with_subpath("subagents/agent-1.v2")),
            Path::new("/r/p/s/subagents/agent-1.v2.jsonl")
        );
        assert_eq!(summary(root, &main), Path::new("/r/p/.meta/s.summary.json"));
        assert_eq!(lock(root, &main), Path::new("/r/p/.meta/s.lock"));
    }

    #[test]
    fn parts_that_could_escape_or_collide_are_rejected() {
        for key in [
            SessionKey::new("..", "s"),
            SessionKey::new("p", "a/b"),
            SessionKey::new("p", ".meta"),
            SessionKey::new("p", "x.jsonl"),
            SessionKey::new("p", "s").with_subpath("a/../b"),
            SessionKey::new("p", "s").with_subpath("a//b"),
            SessionKey::new("p", "s").with_subpath("/abs"),
        ] {
            assert!(
                matches!(check(&key), Err(StoreError::InvalidKey { .. })),
                "{key}"
            );
        }
        assert!(
            check(&SessionKey::new("-tmp-x", "0a-b").with_subpath("subagents/agent-1")).is_ok()
        );
    }
}
