//! [`list_sessions`] and [`session_info`].

use super::error::{SessionsError, check_session_id};
use super::info::SessionInfo;
use super::source::SessionSource;

/// The sessions of `project_key` that have something to show (not
/// subagent sidechains, not metadata only), newest first.
pub async fn list_sessions(
    source: &SessionSource,
    project_key: &str,
) -> Result<Vec<SessionInfo>, SessionsError> {
    let mut infos: Vec<SessionInfo> = source
        .list(project_key)
        .await?
        .iter()
        .filter_map(|listed| SessionInfo::from_summary(&listed.summary, listed.size))
        .collect();
    infos.sort_by(|a, b| {
        b.last_modified
            .cmp(&a.last_modified)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    Ok(infos)
}

/// One session's info: `Ok(None)` when it exists but has nothing to show
/// (a sidechain or metadata only); `NotFound` when it does not exist.
pub async fn session_info(
    source: &SessionSource,
    project_key: &str,
    session_id: &str,
) -> Result<Option<SessionInfo>, SessionsError> {
    check_session_id(session_id)?;
    let found = source.listed(project_key, session_id).await?;
    Ok(SessionInfo::from_summary(&found.summary, found.size))
}
