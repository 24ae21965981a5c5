//! Where a transcript lives in a store: [`SessionKey`], the project key
//! derived from a working directory, and the mapping from the CLI's
//! transcript file paths to keys.

use std::path::{Component, Path};

/// Identifies one transcript in a [`SessionStore`](super::SessionStore): a
/// session's main transcript (`subpath` is `None`) or one of its subagent
/// transcripts (`subpath` like `subagents/agent-<id>`, mirroring the CLI's
/// on-disk layout).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionKey {
    /// Caller-defined scope: by default the sanitized working directory
    /// ([`project_key_for`]); multi-tenant hosts may use a tenant id.
    pub project_key: String,
    /// The CLI's session id.
    pub session_id: String,
    /// `None` for the main transcript. Never empty: an empty subpath is
    /// rejected by every store as [`StoreError::InvalidKey`](super::StoreError::InvalidKey).
    pub subpath: Option<String>,
}

impl SessionKey {
    /// The key of a session's main transcript.
    pub fn new(project_key: impl Into<String>, session_id: impl Into<String>) -> Self {
        Self {
            project_key: project_key.into(),
            session_id: session_id.into(),
            subpath: None,
        }
    }

    /// This session's transcript at `subpath` (e.g. `subagents/agent-1`).
    pub fn with_subpath(mut self, subpath: impl Into<String>) -> Self {
        self.subpath = Some(subpath.into());
        self
    }

    /// The main transcript of the same session.
    pub fn main(&self) -> Self {
        Self::new(self.project_key.clone(), self.session_id.clone())
    }

    /// Whether this is a main transcript (no subpath).
    pub fn is_main(&self) -> bool {
        self.subpath.is_none()
    }

    /// Why this key is unusable in any store, if it is: an empty project
    /// key, session id or subpath.
    pub(crate) fn problem(&self) -> Option<&'static str> {
        if self.project_key.is_empty() {
            Some("the project key is empty")
        } else if self.session_id.is_empty() {
            Some("the session id is empty")
        } else if self.subpath.as_deref() == Some("") {
            Some("the subpath is empty (use None for the main transcript)")
        } else {
            None
        }
    }
}

impl std::fmt::Display for SessionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.project_key, self.session_id)?;
        if let Some(subpath) = &self.subpath {
            write!(f, "/{subpath}")?;
        }
        Ok(())
    }
}

/// Longest sanitized project key kept whole; longer ones are cut here and
/// get a hash suffix (path components are limited to 255 bytes).
const MAX_SANITIZED_LENGTH: usize = 200;

/// The project key the CLI uses for `cwd`: the directory resolved through
/// symlinks (as `realpath`; left as given when that fails), every UTF-16
/// code unit that is not an ASCII letter or digit replaced by `-`, and a key
/// longer than 200 units cut to 200 and suffixed with `-` and a base-36
/// 32-bit string hash of the path, the same on every runtime.
///
/// This touches the filesystem (to resolve symlinks); call it off async
/// workers when that may be slow. The CLI also NFC-normalizes paths on
/// macOS; this function does not, so a key for a decomposed Unicode path
/// can differ from the CLI's there.
pub fn project_key_for(cwd: &Path) -> String {
    let resolved = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    sanitize_path(&resolved.to_string_lossy())
}

/// [`project_key_for`] without resolving the path: the sanitizing alone.
pub fn sanitize_path(path: &str) -> String {
    let units: Vec<u16> = path.encode_utf16().collect();
    let sanitized: String = units
        .iter()
        .map(|&unit| match u8::try_from(unit) {
            Ok(byte) if byte.is_ascii_alphanumeric() => char::from(byte),
            _ => '-',
        })
        .collect();
    if units.len() <= MAX_SANITIZED_LENGTH {
        return sanitized;
    }
    // Every char of `sanitized` is ASCII, so byte and unit counts agree.
    format!(
        "{}-{}",
        &sanitized[..MAX_SANITIZED_LENGTH],
        base36(string_hash(&units))
    )
}

/// The JavaScript `(h << 5) - h + charCode | 0` string hash over UTF-16
/// code units, as an absolute value.
fn string_hash(units: &[u16]) -> u64 {
    let hash = units.iter().fold(0i32, |h, &unit| {
        h.wrapping_shl(5)
            .wrapping_sub(h)
            .wrapping_add(i32::from(unit))
    });
    i64::from(hash).unsigned_abs()
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

/// The key of the transcript at `file_path` (a `transcript_mirror` frame's
/// `filePath`) under the CLI's `projects_dir`:
/// `<project>/<session>.jsonl` is a main transcript and
/// `<project>/<session>/<a>/.../<name>.jsonl` (at least two components below
/// the session, e.g. `subagents/agent-<id>.jsonl`) a subpath
/// `<a>/.../<name>`, always `/`-joined. `None` for a path outside
/// `projects_dir` or of any other shape. Purely lexical: no filesystem
/// access.
pub fn key_for_mirror_path(file_path: &Path, projects_dir: &Path) -> Option<SessionKey> {
    let rel = file_path.strip_prefix(projects_dir).ok()?;
    let mut parts = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    match parts.as_slice() {
        [project, file] => {
            let session = file.strip_suffix(".jsonl")?;
            Some(SessionKey::new(*project, session))
        }
        [project, session, rest @ ..] if rest.len() >= 2 => {
            let mut subpath = rest.join("/");
            if let Some(stripped) = subpath.strip_suffix(".jsonl") {
                subpath.truncate(stripped.len());
            }
            Some(SessionKey::new(*project, *session).with_subpath(subpath))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_replaces_every_non_alphanumeric_with_a_dash() {
        assert_eq!(
            sanitize_path("/Users/foo/my-project"),
            "-Users-foo-my-project"
        );
        assert_eq!(sanitize_path("/tmp/a b.c_d"), "-tmp-a-b-c-d");
        assert_eq!(sanitize_path("plugin:name:server"), "plugin-name-server");
    }

    #[test]
    fn sanitize_counts_utf16_units_like_the_cli() {
        // é is one unit, 😀 two (a surrogate pair), so three dashes in all.
        assert_eq!(sanitize_path("é😀"), "---");
    }

    #[test]
    fn long_paths_are_cut_at_200_and_get_the_portable_hash() {
        let path = format!("/{}", "x".repeat(250));
        let key = sanitize_path(&path);
        let (head, hash) = key.split_at(MAX_SANITIZED_LENGTH);
        assert_eq!(head, format!("-{}", "x".repeat(199)));
        // The hash of the original path, computed independently here.
        let mut h: i64 = 0;
        for unit in path.encode_utf16() {
            h = ((h << 5) - h + i64::from(unit)) as i32 as i64;
        }
        assert_eq!(hash, format!("-{}", base36(h.unsigned_abs())));
        // A 200-unit key is kept whole.
        assert_eq!(sanitize_path(&"y".repeat(200)), "y".repeat(200));
    }

    #[test]
    fn string_hash_matches_known_javascript_values() {
        // (h<<5)-h+c|0 in JavaScript: "a" = 97, "ab" = 3105, "hello" = 99162322.
        assert_eq!(string_hash(&[97]), 97);
        assert_eq!(string_hash(&"ab".encode_utf16().collect::<Vec<_>>()), 3105);
        assert_eq!(
            string_hash(&"hello".encode_utf16().collect::<Vec<_>>()),
            99_162_322
        );
        assert_eq!(base36(99_162_322), "1n1e4y");
        assert_eq!(base36(0), "0");
    }

    #[test]
    fn project_key_for_resolves_symlinks() {
        let dir = std::env::temp_dir();
        let resolved = std::fs::canonicalize(&dir).unwrap_or(dir.clone());
        assert_eq!(
            project_key_for(&dir),
            sanitize_path(&resolved.to_string_lossy())
        );
    }

    #[test]
    fn mirror_paths_map_to_main_and_subagent_keys() {
        let projects = Path::new("/home/u/.claude/projects");
        assert_eq!(
            key_for_mirror_path(
                Path::new("/home/u/.claude/projects/-w-p/abc.jsonl"),
                projects
            ),
            Some(SessionKey::new("-w-p", "abc"))
        );
        assert_eq!(
            key_for_mirror_path(
                Path::new("/home/u/.claude/projects/-w-p/abc/subagents/agent-7.jsonl"),
                projects
            ),
            Some(SessionKey::new("-w-p", "abc").with_subpath("subagents/agent-7"))
        );
        assert_eq!(
            key_for_mirror_path(
                Path::new("/home/u/.claude/projects/-w-p/abc/subagents/deep/agent-7.jsonl"),
                projects
            ),
            Some(SessionKey::new("-w-p", "abc").with_subpath("subagents/deep/agent-7"))
        );
    }

    #[test]
    fn mirror_paths_of_other_shapes_have_no_key() {
        let projects = Path::new("/p");
        for path in [
            "/elsewhere/x/y.jsonl",
            "/p/only-project",
            "/p/x/y.json",
            "/p/x/y/z.jsonl",
            "/p/../p/x/y.jsonl",
            "/p",
        ] {
            assert_eq!(
                key_for_mirror_path(Path::new(path), projects),
                None,
                "{path}"
            );
        }
    }
}
