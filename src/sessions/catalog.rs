//! How a listing is built without reading every transcript: first the
//! cheap facts of each session (its id and mtime from a directory listing,
//! or a store's summaries), sorted newest first; then only as many
//! sessions are read as it takes to fill the page, a few at a time.

use std::collections::HashSet;

use futures::{StreamExt, TryStreamExt};

use super::archive::{archived, read_mark};
use super::error::SessionsError;
use super::info::SessionInfo;
use super::list_options::{ListSessions, Scope};
use super::source::SessionSource;
use super::worktrees::{canonical, folders_of, worktree_paths};
use crate::store::{
    SessionKey, SessionStore, SessionSummary, StoreEntry, fold_session_summary, sanitize_path,
};

/// Sessions read at once while filling a page.
const READ_AHEAD: usize = 8;

/// The SDK entrypoints the CLI records for a programmatic session.
const PROGRAMMATIC_ENTRYPOINTS: [&str; 3] = ["sdk-cli", "sdk-ts", "sdk-py"];

/// A session before its transcript is read.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) project_key: String,
    pub(crate) session_id: String,
    pub(crate) mtime: i64,
    /// The transcript's size (local files).
    pub(crate) size: Option<u64>,
    /// The store's summary, when it keeps them: no read needed.
    pub(crate) summary: Option<SessionSummary>,
}

/// The page of sessions `options` asks for, newest first.
pub(crate) async fn page(
    source: &SessionSource,
    options: &ListSessions,
) -> Result<Vec<SessionInfo>, SessionsError> {
    let mut candidates = Vec::new();
    for project in project_keys(source, options).await? {
        candidates.extend(self::candidates(source, &project).await?);
    }
    candidates.sort_by(|a, b| {
        b.mtime
            .cmp(&a.mtime)
            .then_with(|| a.session_id.cmp(&b.session_id))
    });
    let wanted = options.limit.unwrap_or(usize::MAX);
    let mut skipped = 0;
    let mut seen = HashSet::new();
    let mut infos = Vec::new();
    let mut resolved = futures::stream::iter(candidates)
        .map(|candidate| resolve(source, candidate, options.include_programmatic))
        .buffered(READ_AHEAD);
    while infos.len() < wanted {
        let Some(info) = resolved.try_next().await? else {
            break;
        };
        // The same session under two folders (a worktree moved): the
        // newest, which comes first, is the one listed.
        let Some(info) = info.filter(|i| seen.insert(i.session_id.clone())) else {
            continue;
        };
        if skipped < options.offset {
            skipped += 1;
        } else {
            infos.push(info);
        }
    }
    Ok(infos)
}

/// Every session of `project` with what is known without reading it, in
/// no order.
async fn candidates(
    source: &SessionSource,
    project: &str,
) -> Result<Vec<Candidate>, SessionsError> {
    let candidate = |session_id: String, mtime, size, summary| Candidate {
        project_key: project.to_owned(),
        session_id,
        mtime,
        size,
        summary,
    };
    match source {
        SessionSource::Local(local) => Ok(local
            .list(project)
            .await?
            .into_iter()
            .map(|f| candidate(f.session_id, f.mtime, Some(f.size), None))
            .collect()),
        SessionSource::Store(store) => match store.list_session_summaries(project).await {
            Ok(summaries) => Ok(summaries
                .into_iter()
                .map(|s| candidate(s.session_id.clone(), s.mtime, None, Some(s)))
                .collect()),
            // No summaries: each session on the page is read and folded.
            Err(e) if e.is_unsupported() => Ok(store
                .list_sessions(project)
                .await?
                .into_iter()
                .map(|l| candidate(l.session_id, l.mtime, None, None))
                .collect()),
            Err(e) => Err(e.into()),
        },
    }
}

/// One session as a candidate, or `NotFound`.
pub(crate) async fn candidate(
    source: &SessionSource,
    project: &str,
    session_id: &str,
) -> Result<Candidate, SessionsError> {
    match source {
        SessionSource::Local(local) => {
            let path = local.path_of(&SessionKey::new(project, session_id))?;
            let meta = match tokio::fs::metadata(&path).await {
                Ok(meta) if meta.is_file() => meta,
                Ok(_) => return Err(SessionsError::not_found(project, session_id)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(SessionsError::not_found(project, session_id));
                }
                Err(e) => return Err(SessionsError::io(format!("read {}", path.display()), e)),
            };
            Ok(Candidate {
                project_key: project.to_owned(),
                session_id: session_id.to_owned(),
                mtime: super::local::mtime_ms(&meta),
                size: Some(meta.len()),
                summary: None,
            })
        }
        SessionSource::Store(store) => {
            let summary = store_summary(store.as_ref(), project, session_id).await?;
            Ok(Candidate {
                project_key: project.to_owned(),
                session_id: session_id.to_owned(),
                mtime: summary.mtime,
                size: None,
                summary: Some(summary),
            })
        }
    }
}

/// One session's summary from a store: its kept summary, else its entries
/// folded (stamped with its listed mtime, 0 when the store lists none);
/// `NotFound` when it is not there.
async fn store_summary(
    store: &dyn SessionStore,
    project: &str,
    session_id: &str,
) -> Result<SessionSummary, SessionsError> {
    let key = SessionKey::new(project, session_id);
    let missing = || SessionsError::not_found(project, session_id);
    match store.list_session_summaries(project).await {
        Ok(summaries) => summaries
            .into_iter()
            .find(|s| s.session_id == session_id)
            .ok_or_else(missing),
        Err(e) if e.is_unsupported() => {
            let entries = store.load(&key).await?.ok_or_else(missing)?;
            let mtime = match store.list_sessions(project).await {
                Ok(listed) => listed
                    .into_iter()
                    .find(|l| l.session_id == session_id)
                    .map_or(0, |l| l.mtime),
                Err(e) if e.is_unsupported() => 0,
                Err(e) => return Err(e.into()),
            };
            let mut summary = fold_session_summary(None, &key, &entries);
            summary.mtime = mtime;
            Ok(summary)
        }
        Err(e) => Err(e.into()),
    }
}

/// The project keys `options` covers in `source`.
async fn project_keys(
    source: &SessionSource,
    options: &ListSessions,
) -> Result<Vec<String>, SessionsError> {
    let local = match (source, &options.scope) {
        (_, Scope::Project(key)) => return Ok(vec![key.clone()]),
        (SessionSource::Store(_), Scope::All) => {
            return Err(SessionsError::LocalOnly {
                what: "listing every project",
            });
        }
        (SessionSource::Store(_), Scope::Directory(dir)) => {
            return Ok(vec![sanitize_path(&canonical(dir).await)]);
        }
        (SessionSource::Local(local), _) => local,
    };
    let projects = local.projects().await?;
    let Scope::Directory(dir) = &options.scope else {
        return Ok(projects);
    };
    let path = canonical(dir).await;
    let mut keys: Vec<String> = Vec::new();
    let mut add = |found: Vec<&str>| {
        for key in found {
            if !keys.iter().any(|k| k == key) {
                keys.push(key.to_owned());
            }
        }
    };
    add(folders_of(&projects, &path));
    if options.include_worktrees {
        let worktrees = worktree_paths(std::path::Path::new(&path)).await;
        // One worktree is the directory's own repository: nothing to add.
        if worktrees.len() > 1 {
            for worktree in &worktrees {
                add(folders_of(&projects, worktree));
            }
        }
    }
    Ok(keys)
}

/// A candidate's info: `None` when it is not listed (a sidechain, nothing
/// to show, programmatic when those are left out, deleted meanwhile).
pub(crate) async fn resolve(
    source: &SessionSource,
    candidate: Candidate,
    include_programmatic: bool,
) -> Result<Option<SessionInfo>, SessionsError> {
    let key = SessionKey::new(&candidate.project_key, &candidate.session_id);
    let (summary, archived) = match (source, candidate.summary) {
        (SessionSource::Store(_), Some(summary)) => (summary, None),
        (SessionSource::Store(store), None) => {
            let Some(entries) = store.load(&key).await? else {
                return Ok(None);
            };
            (fold_session_summary(None, &key, &entries), None)
        }
        (SessionSource::Local(local), _) => {
            let Some(entries) = local.load(&key).await? else {
                return Ok(None);
            };
            if !include_programmatic && is_programmatic(&entries) {
                return Ok(None);
            }
            let mark = read_mark(local, &key.project_key, &key.session_id).await?;
            (
                fold_session_summary(None, &key, &entries),
                archived(mark, &entries),
            )
        }
    };
    let mut summary = summary;
    summary.mtime = candidate.mtime;
    Ok(
        SessionInfo::from_summary(&summary, candidate.size).map(|mut info| {
            info.archived = archived;
            info.project_key = Some(candidate.project_key);
            info
        }),
    )
}

/// Whether the CLI was started programmatically for this session: its
/// first recorded `entrypoint` is an SDK's, or its first conversation
/// entry says it is a daemon's (what the TS SDK checks).
pub(crate) fn is_programmatic(entries: &[StoreEntry]) -> bool {
    let entrypoint = entries.iter().find_map(|e| e.str_field("entrypoint"));
    if entrypoint.is_some_and(|p| PROGRAMMATIC_ENTRYPOINTS.contains(&p.as_ref())) {
        return true;
    }
    entries
        .iter()
        .find(|e| e.field("parentUuid").is_some())
        .and_then(|e| e.str_field("sessionKind"))
        .is_some_and(|kind| kind == "daemon" || kind == "daemon-worker")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn sdk_entrypoints_and_daemons_are_programmatic() {
        let entry = |v| StoreEntry::from(v);
        assert!(is_programmatic(&[
            entry(json!({"type": "queue-operation"})),
            entry(json!({"type": "user", "parentUuid": null, "entrypoint": "sdk-py"})),
        ]));
        assert!(!is_programmatic(&[entry(
            json!({"type": "user", "parentUuid": null, "entrypoint": "cli"})
        )]));
        assert!(is_programmatic(&[entry(
            json!({"type": "user", "parentUuid": null, "sessionKind": "daemon-worker"})
        )]));
        assert!(!is_programmatic(&[
            entry(json!({"type": "user", "parentUuid": null})),
            entry(json!({"type": "user", "parentUuid": "x", "sessionKind": "daemon"})),
        ]));
    }
}
