//! [`ListSessions`]: which sessions a listing covers, and which page of
//! them, as the official SDKs' `listSessions` options say it.

use std::path::PathBuf;

/// What [`list_sessions_with`](super::list_sessions_with) lists: every
/// project, one project key, or a working directory (with its git
/// worktrees); newest first, paged by `offset` and `limit`.
///
/// ```
/// use claude_agent::sessions::ListSessions;
///
/// // The second page of 20, across every project.
/// let page = ListSessions::all_projects().offset(20).limit(20);
/// // A checkout and its worktrees, interactive sessions only.
/// let mine = ListSessions::directory("/src/app").include_programmatic(false);
/// # let _ = (page, mine);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSessions {
    pub(crate) scope: Scope,
    pub(crate) limit: Option<usize>,
    pub(crate) offset: usize,
    pub(crate) include_worktrees: bool,
    pub(crate) include_programmatic: bool,
}

/// Where a listing looks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Every project (local transcripts only).
    All,
    /// One project key.
    Project(String),
    /// The project of a working directory, and those of its worktrees.
    Directory(PathBuf),
}

impl ListSessions {
    fn new(scope: Scope) -> Self {
        Self {
            scope,
            limit: None,
            offset: 0,
            include_worktrees: true,
            include_programmatic: true,
        }
    }

    /// Every project of the CLI's config folder (the official SDKs'
    /// listing without a directory). A session store is listed one project
    /// at a time: this fails there with
    /// [`SessionsError::LocalOnly`](super::SessionsError::LocalOnly).
    pub fn all_projects() -> Self {
        Self::new(Scope::All)
    }

    /// One project, by key ([`project_key_for`](crate::store::project_key_for)
    /// of its working directory, or a store's own key).
    pub fn project(project_key: impl Into<String>) -> Self {
        Self::new(Scope::Project(project_key.into()))
    }

    /// The project of working directory `dir` (resolved through symlinks)
    /// and, unless [`include_worktrees`](Self::include_worktrees) is
    /// turned off, those of every git worktree of its repository.
    pub fn directory(dir: impl Into<PathBuf>) -> Self {
        Self::new(Scope::Directory(dir.into()))
    }

    /// At most `n` sessions; `0` means no limit, as in the official SDKs.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = (n > 0).then_some(n);
        self
    }

    /// Skip the `n` newest sessions first.
    pub fn offset(mut self, n: usize) -> Self {
        self.offset = n;
        self
    }

    /// With [`directory`](Self::directory): also list the sessions of the
    /// repository's other git worktrees (default `true`). Local
    /// transcripts only.
    pub fn include_worktrees(mut self, yes: bool) -> Self {
        self.include_worktrees = yes;
        self
    }

    /// List sessions started programmatically (SDK entrypoints `sdk-cli`,
    /// `sdk-ts`, `sdk-py`, and daemon sessions); default `true`, as in the
    /// TS SDK. Local transcripts only: a store's listing ignores it, as the
    /// TS SDK's does.
    pub fn include_programmatic(mut self, yes: bool) -> Self {
        self.include_programmatic = yes;
        self
    }
}
