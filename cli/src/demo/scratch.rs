//! A private scratch directory (HOME and working directory of the CLI),
//! removed when dropped, so the demo reads no user settings and leaves
//! nothing behind.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use super::DemoError;

/// `<tmp>/claude-agent-demo-<pid>-<nanos>/{home,work}`.
#[derive(Debug)]
pub(crate) struct Scratch {
    root: PathBuf,
    home: PathBuf,
    cwd: PathBuf,
}

impl Scratch {
    /// Creates the directories; `create_dir` fails rather than reuse one.
    pub(crate) fn new() -> Result<Self, DemoError> {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let base = std::env::temp_dir();
        let root = base.join(format!("claude-agent-demo-{}-{nanos}", std::process::id()));
        let home = root.join("home");
        let cwd = root.join("work");
        let err = |source| DemoError::Scratch {
            dir: base.clone(),
            source,
        };
        // The root is owned (and removed on drop) only once we created it.
        std::fs::create_dir(&root).map_err(err)?;
        let scratch = Self { root, home, cwd };
        std::fs::create_dir(&scratch.home).map_err(err)?;
        std::fs::create_dir(&scratch.cwd).map_err(err)?;
        Ok(scratch)
    }

    /// The root, for files of the demo itself.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The CLI's HOME.
    pub(crate) fn home(&self) -> &Path {
        &self.home
    }

    /// The CLI's working directory.
    pub(crate) fn cwd(&self) -> &Path {
        &self.cwd
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // Best effort: a leftover temp dir is not worth failing the demo.
        let _ = std::fs::remove_dir_all(&self.root);
    }
}
