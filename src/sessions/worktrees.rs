//! Which project folders belong to a working directory: its own, and with
//! git worktrees, those of every worktree of its repository, matched the
//! way the official SDKs match them.

use std::path::Path;
use std::time::Duration;

use crate::store::sanitize_path;

/// How long `git worktree list` may take (the official SDKs' bound).
const GIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Longest project key kept whole; a longer path's key is cut here and
/// suffixed with `-<hash>`, and the hash may differ between runtimes.
const MAX_SANITIZED: usize = 200;

/// `dir` resolved through symlinks (as given when that fails): the path
/// the CLI derives the project key from.
pub(crate) async fn canonical(dir: &Path) -> String {
    tokio::fs::canonicalize(dir)
        .await
        .unwrap_or_else(|_| dir.to_path_buf())
        .to_string_lossy()
        .into_owned()
}

/// The working directories of every worktree of the git repository
/// holding `dir` (the main one included); empty when git is missing,
/// fails, takes too long, or `dir` is in no repository.
pub(crate) async fn worktree_paths(dir: &Path) -> Vec<String> {
    let mut git = tokio::process::Command::new("git");
    git.args(["worktree", "list", "--porcelain"])
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let output = match tokio::time::timeout(GIT_TIMEOUT, git.output()).await {
        Ok(Ok(output)) if output.status.success() => output,
        _ => return Vec::new(),
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_prefix("worktree "))
        .map(str::to_owned)
        .collect()
}

/// The folders among `projects` that hold the sessions of working
/// directory `path`: the one named by its key, or for a key cut at 200
/// characters, any named by the cut key and a hash suffix.
pub(crate) fn folders_of<'a>(projects: &'a [String], path: &str) -> Vec<&'a str> {
    let key = sanitize_path(path);
    let cut = (key.len() > MAX_SANITIZED).then(|| format!("{}-", &key[..MAX_SANITIZED]));
    projects
        .iter()
        .map(String::as_str)
        .filter(|name| {
            *name == key
                || cut
                    .as_deref()
                    .is_some_and(|prefix| name.starts_with(prefix))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_path_matches_its_own_folder_only() {
        let projects: Vec<String> = ["-repo", "-repo-foo", "-other"].map(str::to_owned).to_vec();
        assert_eq!(folders_of(&projects, "/repo"), ["-repo"]);
        assert!(folders_of(&projects, "/nowhere").is_empty());
    }

    #[test]
    fn a_long_path_matches_any_hash_suffix_of_its_cut_key() {
        let long = format!("/{}", "a".repeat(250));
        let key = sanitize_path(&long);
        let cut = &key[..MAX_SANITIZED];
        let projects = vec![format!("{cut}-otherhash"), format!("{cut}x"), key.clone()];
        assert_eq!(
            folders_of(&projects, &long),
            [projects[0].as_str(), key.as_str()]
        );
    }
}
