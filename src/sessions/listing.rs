//! [`list_sessions`], [`list_sessions_with`], [`session_info`] and the
//! lookups that need no project key ([`find_session`],
//! [`session_info_by_id`]).

use super::catalog::{candidate, page, resolve};
use super::error::{SessionsError, check_session_id};
use super::info::SessionInfo;
use super::list_options::ListSessions;
use super::source::SessionSource;

/// The sessions of `project_key` that have something to show (not
/// subagent sidechains, not metadata only), newest first.
pub async fn list_sessions(
    source: &SessionSource,
    project_key: &str,
) -> Result<Vec<SessionInfo>, SessionsError> {
    list_sessions_with(source, &ListSessions::project(project_key)).await
}

/// The sessions `options` selects, newest first (ties by session id),
/// each session once: every project, one, or a directory with its git
/// worktrees; paged by offset and limit.
///
/// Only the sessions on the page (and those skipped before it) are read:
/// the rest are ordered by their files' mtimes, or a store's summaries.
pub async fn list_sessions_with(
    source: &SessionSource,
    options: &ListSessions,
) -> Result<Vec<SessionInfo>, SessionsError> {
    page(source, options).await
}

/// One session's info: `Ok(None)` when it exists but has nothing to show
/// (a sidechain or metadata only); `NotFound` when it does not exist.
pub async fn session_info(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<Option<SessionInfo>, SessionsError> {
    check_session_id(session_id)?;
    let found = candidate(source, project_key, session_id).await?;
    resolve(source, found, true).await
}

/// The project key of the local project holding `session_id` (the first
/// in key order when several do), searching every project as the official
/// SDKs do when given no directory. `NotFound` (project `*`) when none
/// does; [`SessionsError::LocalOnly`] for a store, which is searched by
/// project.
pub async fn find_session(
    source: &SessionSource,
    session_id: &str,
) -> Result<String, SessionsError> {
    check_session_id(session_id)?;
    let SessionSource::Local(local) = source else {
        return Err(SessionsError::LocalOnly {
            what: "finding a session in every project",
        });
    };
    local
        .find(session_id)
        .await?
        .ok_or_else(|| SessionsError::not_found("*", session_id))
}

/// [`session_info`] of a session in whichever local project holds it
/// ([`find_session`]); its [`project_key`](SessionInfo::project_key) says
/// which.
pub async fn session_info_by_id(
    source: &SessionSource,
    session_id: &str,
) -> Result<Option<SessionInfo>, SessionsError> {
    let project = find_session(source, session_id).await?;
    session_info(source, &project, session_id).await
}
