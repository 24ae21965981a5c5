//! Finding the `claude` CLI executable.
//!
//! Search order ([`find_cli`], [`Discovery::find`]):
//!
//! 1. an explicit path (from `Options::cli_path`); if it is unusable that is
//!    an error naming it, never a silent fall-through;
//! 2. the `CLAUDE_AGENT_CLI` environment variable, with the same rule;
//! 3. `claude` in each absolute directory of `PATH` (relative and empty
//!    entries are skipped: they would depend on the host's cwd);
//! 4. `node_modules/.bin/claude` in the cwd and in each of its parents;
//! 5. the usual install locations: `~/.npm-global/bin/claude`,
//!    `/usr/local/bin/claude`, `~/.local/bin/claude`,
//!    `~/node_modules/.bin/claude`, `~/.yarn/bin/claude`,
//!    `~/.claude/local/claude`.
//!
//! A candidate is usable when it is a file (after following symlinks) and,
//! on unix, has an execute bit set.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

/// Environment variable naming the CLI to use.
pub const CLI_ENV_VAR: &str = "CLAUDE_AGENT_CLI";

/// The command that installs the CLI.
pub const INSTALL_COMMAND: &str = "npm install -g @anthropic-ai/claude-code";

/// Why a configured CLI path cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unusable {
    /// Nothing exists at the path.
    Missing,
    /// The path cannot be inspected (e.g. permission denied on a parent).
    Inaccessible,
    /// The path is a directory or another non-file.
    NotAFile,
    /// The file has no execute permission.
    NotExecutable,
}

impl fmt::Display for Unusable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Missing => "does not exist",
            Self::Inaccessible => "cannot be inspected",
            Self::NotAFile => "is not a file",
            Self::NotExecutable => "is not executable",
        })
    }
}

/// The CLI could not be found.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DiscoveryError {
    /// The explicitly configured CLI path is unusable.
    #[error("claude cli at explicit path {} {reason}", path.display())]
    Explicit {
        /// The configured path.
        path: PathBuf,
        /// What is wrong with it.
        reason: Unusable,
    },
    /// The path in `CLAUDE_AGENT_CLI` is unusable.
    #[error("claude cli from {CLI_ENV_VAR} at {} {reason}", path.display())]
    EnvVar {
        /// The path from the variable.
        path: PathBuf,
        /// What is wrong with it.
        reason: Unusable,
    },
    /// No usable CLI in any searched location.
    #[error(
        "claude cli not found (searched {}); install it with `{INSTALL_COMMAND}`, \
         or set {CLI_ENV_VAR} or the cli path option",
        display_paths(searched)
    )]
    NotFound {
        /// Every candidate path that was checked, in order.
        searched: Vec<PathBuf>,
    },
}

fn display_paths(paths: &[PathBuf]) -> String {
    let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    shown.join(", ")
}

/// Find the CLI using the real environment (`CLAUDE_AGENT_CLI`, `PATH`,
/// `HOME`). `cwd` defaults to the current directory.
///
/// Does a few `stat` calls; cheap, but filesystem I/O all the same.
///
/// ```no_run
/// let cli = claude_agent::discovery::find_cli(None, None)?;
/// # Ok::<(), claude_agent::discovery::DiscoveryError>(())
/// ```
pub fn find_cli(explicit: Option<&Path>, cwd: Option<&Path>) -> Result<PathBuf, DiscoveryError> {
    Discovery::from_env(explicit, cwd).find()
}

/// The inputs of a search, so it can run against anything but the real
/// environment (tests, sandboxes).
///
/// ```
/// use claude_agent::discovery::{Discovery, DiscoveryError};
/// // Nothing to search: not found, and the error says how to install.
/// let err = Discovery::default().find().unwrap_err();
/// assert!(matches!(err, DiscoveryError::NotFound { ref searched } if searched.is_empty()));
/// assert!(err.to_string().contains("npm install -g @anthropic-ai/claude-code"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Discovery {
    /// An explicit CLI path; checked first, never falls through.
    pub explicit: Option<PathBuf>,
    /// The value of `CLAUDE_AGENT_CLI`.
    pub env_cli: Option<OsString>,
    /// The value of `PATH`.
    pub path_var: Option<OsString>,
    /// Where to start looking for `node_modules/.bin/claude`.
    pub cwd: Option<PathBuf>,
    /// The home directory.
    pub home: Option<PathBuf>,
    /// Install locations outside home (`/usr/local/bin/claude` by default).
    pub system_locations: Vec<PathBuf>,
}

impl Discovery {
    /// The search described by the real environment.
    pub fn from_env(explicit: Option<&Path>, cwd: Option<&Path>) -> Self {
        let current = std::env::current_dir().ok();
        let cwd = match (cwd, &current) {
            (Some(c), Some(cur)) if c.is_relative() => Some(cur.join(c)),
            (Some(c), _) => Some(c.to_path_buf()),
            (None, cur) => cur.clone(),
        };
        Self {
            explicit: explicit.map(Path::to_path_buf),
            env_cli: std::env::var_os(CLI_ENV_VAR).filter(|v| !v.is_empty()),
            path_var: std::env::var_os("PATH"),
            cwd,
            home: std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
            system_locations: vec![PathBuf::from("/usr/local/bin/claude")],
        }
    }

    /// Run the search.
    pub fn find(&self) -> Result<PathBuf, DiscoveryError> {
        if let Some(path) = &self.explicit {
            return check(path)
                .map(|()| path.clone())
                .map_err(|reason| DiscoveryError::Explicit {
                    path: path.clone(),
                    reason,
                });
        }
        if let Some(value) = &self.env_cli {
            let path = PathBuf::from(value);
            return check(&path)
                .map(|()| path.clone())
                .map_err(|reason| DiscoveryError::EnvVar { path, reason });
        }
        let searched = self.candidates();
        match searched.iter().find(|p| check(p).is_ok()) {
            Some(found) => Ok(found.clone()),
            None => Err(DiscoveryError::NotFound { searched }),
        }
    }

    /// Every implicit candidate (steps 3-5), in search order, each once
    /// (`PATH` often names `/usr/local/bin` twice, and the cwd's ancestors
    /// can include the home folder).
    pub fn candidates(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(path_var) = &self.path_var {
            out.extend(
                std::env::split_paths(path_var)
                    .filter(|dir| dir.is_absolute())
                    .map(|dir| dir.join("claude")),
            );
        }
        if let Some(cwd) = &self.cwd {
            out.extend(
                cwd.ancestors()
                    .map(|dir| dir.join("node_modules/.bin/claude")),
            );
        }
        let home = |rel: &str| self.home.as_ref().map(|h| h.join(rel));
        out.extend(home(".npm-global/bin/claude"));
        out.extend(self.system_locations.iter().cloned());
        for rel in [
            ".local/bin/claude",
            "node_modules/.bin/claude",
            ".yarn/bin/claude",
            ".claude/local/claude",
        ] {
            out.extend(home(rel));
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|p| seen.insert(p.clone()));
        out
    }
}

/// Is `path` an executable file?
fn check(path: &Path) -> Result<(), Unusable> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Unusable::Missing,
        _ => Unusable::Inaccessible,
    })?;
    if !meta.is_file() {
        return Err(Unusable::NotAFile);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(Unusable::NotExecutable);
        }
    }
    Ok(())
}
